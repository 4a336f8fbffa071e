//! The synthetic collection of the Fan & Huang protocol: books cut into
//! ~4 KB texts on word boundaries, a vocabulary to draw edits from, and the
//! seeded word-level edit generator that makes the near-duplicates.

use std::collections::BTreeSet;

use unicode_segmentation::UnicodeSegmentation;

use doppel_core::hash::SplitMix64;

/// Cut `text` into pieces of about `chunk_bytes` bytes, each ending on a
/// word boundary: a piece runs from its start to the first whitespace at or
/// after `start + chunk_bytes` (so pieces are slightly longer than
/// `chunk_bytes`, never split a word, and never start or end with
/// whitespace). A trailing piece shorter than half a chunk is dropped, so
/// every piece is "rough 4 KB" as in the paper. `chunk_bytes` of 0 is
/// treated as 1.
pub fn chunk_text(text: &str, chunk_bytes: usize) -> Vec<&str> {
    let chunk_bytes = chunk_bytes.max(1);
    let mut out = Vec::new();
    let mut start = skip_whitespace(text, 0);
    while start < text.len() {
        let mut end = (start + chunk_bytes).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        end = text[end..]
            .find(char::is_whitespace)
            .map_or(text.len(), |i| end + i);
        // `end` may fall inside a run of whitespace.
        let piece = text[start..end].trim_end();
        if end < text.len() || piece.len() * 2 >= chunk_bytes {
            out.push(piece);
        }
        start = skip_whitespace(text, end);
    }
    out
}

fn skip_whitespace(text: &str, from: usize) -> usize {
    text[from..]
        .find(|c: char| !c.is_whitespace())
        .map_or(text.len(), |i| from + i)
}

/// The distinct lower-cased words of `texts` (UAX #29 words made only of
/// letters and apostrophes, so no numbers or verse references), sorted: the
/// vocabulary the edit generator draws inserted and replacement words from.
/// Every distinct word is equally likely to be drawn, whatever its
/// frequency.
pub fn vocabulary<'a>(texts: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut words = BTreeSet::new();
    for text in texts {
        for word in text.unicode_words() {
            let wordlike = word
                .chars()
                .all(|c| c.is_alphabetic() || c == '\'' || c == '’')
                && word.chars().any(char::is_alphabetic);
            if wordlike && !words.contains(word) {
                words.insert(word.to_lowercase());
            }
        }
    }
    words.into_iter().collect()
}

/// A near-duplicate made by [`edit_words`], with the generator's own
/// bookkeeping of what it did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edited {
    /// The edited text.
    pub text: String,
    /// Whitespace-separated words of the source.
    pub source_words: usize,
    /// Words inserted.
    pub inserted: usize,
    /// Words deleted.
    pub deleted: usize,
    /// Words replaced by others.
    pub replaced: usize,
}

impl Edited {
    /// Edit operations applied (insertions + deletions + replacements).
    pub fn edits(&self) -> usize {
        self.inserted + self.deleted + self.replaced
    }

    /// Edits per source word.
    pub fn rate(&self) -> f64 {
        self.edits() as f64 / self.source_words.max(1) as f64
    }
}

/// Number of edit operations [`edit_words`] applies to a text of `words`
/// words at `rate`: `round(rate × words)`, at least 1 when `rate > 0` (an
/// edited copy always differs from its source), 0 when `rate ≤ 0`.
pub fn edit_count(words: usize, rate: f64) -> usize {
    if rate.is_nan() || rate <= 0.0 {
        return 0;
    }
    ((rate * words as f64).round() as usize).max(1)
}

/// Make a near-duplicate of `source` by [`edit_count`] word operations, each
/// at an independent random location and each equally likely to be an
/// insertion (a vocabulary word before a random word, or at the end), a
/// deletion (of a random word with its following whitespace) or a
/// replacement (a random word becomes a vocabulary word; punctuation attached
/// to it goes too). Words are whitespace-separated tokens; the whitespace
/// between untouched words is kept, so `rate = 0` returns `source` byte for
/// byte. With an empty vocabulary every operation is a deletion. Seeded by
/// `rng` only: the same rng state gives the same copy.
pub fn edit_words(source: &str, rate: f64, vocabulary: &[String], rng: &mut SplitMix64) -> Edited {
    let lead_len = source.len() - source.trim_start().len();
    let (lead, body) = source.split_at(lead_len);
    // (word, whitespace after it)
    let mut tokens: Vec<(&str, &str)> = Vec::new();
    let mut rest = body;
    while !rest.is_empty() {
        let word_end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let sep_end = word_end
            + rest[word_end..]
                .find(|c: char| !c.is_whitespace())
                .unwrap_or(rest.len() - word_end);
        tokens.push((&rest[..word_end], &rest[word_end..sep_end]));
        rest = &rest[sep_end..];
    }
    let source_words = tokens.len();
    let n = edit_count(source_words, rate);
    let (mut inserted, mut deleted, mut replaced) = (0, 0, 0);
    let draw = |rng: &mut SplitMix64| -> &str {
        vocabulary[rng.below(vocabulary.len() as u64) as usize].as_str()
    };
    for _ in 0..n {
        let op = if vocabulary.is_empty() {
            1
        } else if tokens.is_empty() {
            0
        } else {
            rng.below(3)
        };
        match op {
            0 => {
                let at = rng.below(tokens.len() as u64 + 1) as usize;
                let word = draw(rng);
                if at == tokens.len() && at > 0 {
                    // Appending: the new last word inherits the text's ending.
                    let end = std::mem::replace(&mut tokens[at - 1].1, " ");
                    tokens.push((word, end));
                } else {
                    tokens.insert(at, (word, " "));
                }
                inserted += 1;
            }
            1 => {
                if tokens.is_empty() {
                    continue;
                }
                let at = rng.below(tokens.len() as u64) as usize;
                let (_, sep) = tokens.remove(at);
                if at == tokens.len() && at > 0 {
                    tokens[at - 1].1 = sep;
                }
                deleted += 1;
            }
            _ => {
                let at = rng.below(tokens.len() as u64) as usize;
                tokens[at].0 = draw(rng);
                replaced += 1;
            }
        }
    }
    let mut text = String::with_capacity(source.len() + source.len() / 4);
    text.push_str(lead);
    for (word, sep) in &tokens {
        text.push_str(word);
        text.push_str(sep);
    }
    Edited {
        text,
        source_words,
        inserted,
        deleted,
        replaced,
    }
}
