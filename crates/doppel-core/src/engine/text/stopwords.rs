//! Stop-word lists, shipped as plain text in `assets/stopwords/` and embedded
//! at build time so a binary never depends on files beside it.

use std::collections::HashSet;

use crate::engine::text::Language;

const ENGLISH: &str = include_str!("../../../../../assets/stopwords/en.txt");

/// A set of stop words (lowercase, as produced by normalization).
#[derive(Debug, Clone, Default)]
pub struct StopWords {
    words: HashSet<String>,
}

impl StopWords {
    /// The shipped list for `language`, or an empty list where none ships.
    pub fn for_language(language: Language) -> Self {
        match language {
            Language::English => Self::parse(ENGLISH),
            _ => Self::default(),
        }
    }

    /// Parse a list: one word per line, `#` starts a comment line.
    pub fn parse(list: &str) -> Self {
        let words = list
            .lines()
            .map(str::trim)
            .filter(|line| !line.is_empty() && !line.starts_with('#'))
            .map(str::to_owned)
            .collect();
        Self { words }
    }

    /// Whether `word` (lowercased) is a stop word.
    pub fn contains(&self, word: &str) -> bool {
        self.words.contains(word)
    }

    /// How many stop words there are.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn english_list_has_the_common_function_words() {
        let stop = StopWords::for_language(Language::English);
        for w in ["the", "and", "of", "don't", "shall"] {
            assert!(stop.contains(w), "{w} should be a stop word");
        }
        assert!(!stop.contains("whale"));
        assert!(!stop.contains("# English stop words: the Snowball project's English list"));
    }
}
