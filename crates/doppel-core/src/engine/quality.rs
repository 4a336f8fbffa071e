//! A text-quality estimate for choosing which copy of a document to keep:
//! the share of its words an English dictionary knows (the stop words and
//! the Snowball stems of the pinned reference IDF table,
//! `assets/idf/en.tsv`) and the share that look like OCR confusions (a
//! digit inside letters, `l1ke`, or an unknown word that one repair of a
//! scanner's usual confusion, `rn`/`m`, `cl`/`d`, `e`/`c`, ... makes a
//! known one). A clean e-text scores higher than its scan; the estimate
//! is a pure function of the text.

use std::sync::OnceLock;

use serde::Serialize;

use super::stats::IdfTable;
use super::text::normalize::normalize;
use super::text::stopwords::StopWords;
use super::text::tokenize::{for_each_word, Language};

/// What a scanner reads for a pattern (pattern, what was read), inside
/// words. A repair replaces what was read by the pattern.
const CONFUSIONS: &[(&str, &str)] = &[
    ("rn", "m"),
    ("m", "rn"),
    ("h", "li"),
    ("li", "h"),
    ("cl", "d"),
    ("d", "cl"),
    ("vv", "w"),
    ("w", "vv"),
    ("e", "c"),
    ("c", "e"),
    ("u", "n"),
    ("n", "u"),
    ("l", "1"),
    ("l", "i"),
];

/// How clean a text reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct TextQuality {
    /// Words (UAX #29) in the text.
    pub words: usize,
    /// Words with a letter (those judged).
    pub judged: usize,
    /// Share of judged words the dictionary knows, in [0, 1].
    pub dictionary: f64,
    /// Share of judged words that look like an OCR confusion, in [0, 1].
    pub confusions: f64,
}

impl TextQuality {
    /// One figure in [0, 1]: the dictionary share less the confusion share
    /// (a confusion is both an unknown word and a sign of a scan). A text
    /// without a word to judge scores 0.
    pub fn score(&self) -> f64 {
        if self.judged == 0 {
            return 0.0;
        }
        (self.dictionary - self.confusions).clamp(0.0, 1.0)
    }
}

struct Dictionary {
    stopwords: StopWords,
    stems: IdfTable,
    stemmer: rust_stemmers::Stemmer,
}

impl Dictionary {
    fn get() -> &'static Dictionary {
        static DICTIONARY: OnceLock<Dictionary> = OnceLock::new();
        DICTIONARY.get_or_init(|| Dictionary {
            stopwords: StopWords::for_language(Language::English),
            stems: IdfTable::reference(),
            stemmer: rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English),
        })
    }

    fn knows(&self, word: &str) -> bool {
        if self.stopwords.contains(word) {
            return true;
        }
        let stem = self.stemmer.stem(word);
        self.stems.df(crate::hash::token_hash(&stem).max(1)) > 0
    }

    /// An unknown word that one repair of a confusion makes known.
    fn repairs(&self, word: &str) -> bool {
        CONFUSIONS.iter().any(|&(pattern, read)| {
            word.match_indices(read).any(|(k, _)| {
                let repaired = format!("{}{pattern}{}", &word[..k], &word[k + read.len()..]);
                self.knows(&repaired)
            })
        })
    }
}

/// The quality of `text` (decoded; normalized here).
pub fn estimate(text: &str) -> TextQuality {
    let dict = Dictionary::get();
    let normalized = normalize(text);
    let (mut words, mut judged, mut known, mut confused) = (0usize, 0usize, 0usize, 0usize);
    for_each_word(&normalized, |w| {
        words += 1;
        let letters = w.chars().filter(|c| c.is_alphabetic()).count();
        if letters == 0 {
            return;
        }
        judged += 1;
        let digits = w.chars().any(|c| c.is_ascii_digit());
        if digits {
            // `l1ke`, `0f`: letters and digits mixed inside one word.
            confused += 1;
        } else if dict.knows(w) {
            known += 1;
        } else if letters > 2 && dict.repairs(w) {
            confused += 1;
        }
    });
    let share = |n: usize| {
        if judged == 0 {
            0.0
        } else {
            n as f64 / judged as f64
        }
    };
    TextQuality {
        words,
        judged,
        dictionary: share(known),
        confusions: share(confused),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLEAN: &str = "It is a truth universally acknowledged, that a single man in \
        possession of a good fortune, must be in want of a wife. However little known \
        the feelings or views of such a man may be on his first entering a neighbourhood, \
        this truth is so well fixed in the minds of the surrounding families.";

    #[test]
    fn a_clean_text_reads_as_dictionary_words() {
        let q = estimate(CLEAN);
        assert!(q.dictionary > 0.95, "{q:?}");
        assert_eq!(q.confusions, 0.0, "{q:?}");
        assert_eq!(q.words, q.judged);
    }

    #[test]
    fn scanner_confusions_lower_the_score() {
        let scan = CLEAN
            .replace("truth", "trutli")
            .replace("single", "sing1e")
            .replace("possession", "posscssion")
            .replace("families", "farnilies")
            .replace("fixed", "fixcd");
        let (clean, noisy) = (estimate(CLEAN), estimate(&scan));
        assert!(noisy.confusions > 0.05, "{noisy:?}");
        assert!(clean.score() > noisy.score() + 0.1, "{clean:?} {noisy:?}");
    }

    #[test]
    fn the_estimate_is_deterministic_and_empty_text_scores_zero() {
        assert_eq!(estimate(CLEAN), estimate(CLEAN));
        let empty = estimate("  12 34 ");
        assert_eq!(empty.judged, 0);
        assert_eq!(empty.score(), 0.0);
    }
}
