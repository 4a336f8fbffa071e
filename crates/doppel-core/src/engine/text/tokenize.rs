//! Tokenization: Unicode words, stop words, stemming, Soundex codes, Roth's
//! character streams, and word/character k-grams.
//!
//! Input is always normalized text (see [`crate::engine::text::normalize()`]), so words
//! arrive lowercase. Words are UAX #29 word boundaries as implemented by
//! `unicode-segmentation`; stemming is Snowball via `rust-stemmers`; Soundex
//! is `rphonetic`'s US-English Soundex.

use std::borrow::Cow;

use rphonetic::Encoder;
use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;
use unicode_segmentation::UnicodeSegmentation;

use crate::engine::text::fused::FusedText;
use crate::engine::text::stopwords::StopWords;

/// Languages with a Snowball stemmer. Only English ships a stop-word list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    /// English.
    #[default]
    English,
    /// French.
    French,
    /// German.
    German,
    /// Spanish.
    Spanish,
    /// Italian.
    Italian,
    /// Portuguese.
    Portuguese,
    /// Dutch.
    Dutch,
    /// Swedish.
    Swedish,
    /// Norwegian.
    Norwegian,
    /// Danish.
    Danish,
    /// Finnish.
    Finnish,
    /// Russian.
    Russian,
}

impl Language {
    fn stemmer_algorithm(self) -> rust_stemmers::Algorithm {
        use rust_stemmers::Algorithm as A;
        match self {
            Language::English => A::English,
            Language::French => A::French,
            Language::German => A::German,
            Language::Spanish => A::Spanish,
            Language::Italian => A::Italian,
            Language::Portuguese => A::Portuguese,
            Language::Dutch => A::Dutch,
            Language::Swedish => A::Swedish,
            Language::Norwegian => A::Norwegian,
            Language::Danish => A::Danish,
            Language::Finnish => A::Finnish,
            Language::Russian => A::Russian,
        }
    }
}

/// How words become *terms*, the units of the IDF-weighted algorithms.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TokenizerConfig {
    /// Stemmer and stop-word language. Default: English.
    pub language: Language,
    /// Drop stop words from the term stream. Default: true (Fan & Huang).
    pub remove_stopwords: bool,
    /// Reduce terms to their Snowball stem. Default: true (Fan & Huang).
    pub stem: bool,
    /// Leave page furniture (running heads, page numbers, form feeds) of
    /// scanned books out of what every algorithm reads
    /// ([`crate::engine::text::page_furniture`]). Default: true.
    pub strip_furniture: bool,
}

impl TokenizerConfig {
    /// Whether this configuration makes the same terms as `other` (the
    /// settings of words and terms; furniture is decided before them).
    pub fn same_terms(&self, other: &TokenizerConfig) -> bool {
        self.language == other.language
            && self.remove_stopwords == other.remove_stopwords
            && self.stem == other.stem
    }
}

impl Default for TokenizerConfig {
    fn default() -> Self {
        Self {
            language: Language::English,
            remove_stopwords: true,
            stem: true,
            strip_furniture: true,
        }
    }
}

/// Roth's processing variations. For word and Soundex streams: A = all words,
/// B = stop words removed, C = duplicate words removed, D = both removed.
/// For character streams: A = all characters, B = stop words removed,
/// C = vowels removed, D = both removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Variation {
    /// All words (characters).
    A,
    /// Stop words removed.
    B,
    /// Duplicate words (for characters: vowels) removed.
    C,
    /// Both removed.
    D,
}

impl Variation {
    /// Whether stop words are removed (B and D in both tables).
    pub fn removes_stopwords(self) -> bool {
        matches!(self, Variation::B | Variation::D)
    }

    /// C and D: duplicates removed (word streams) or vowels removed (chars).
    pub fn removes_second_kind(self) -> bool {
        matches!(self, Variation::C | Variation::D)
    }
}

/// Splits normalized text into words and turns words into terms.
pub struct Tokenizer {
    config: TokenizerConfig,
    stopwords: StopWords,
    stemmer: rust_stemmers::Stemmer,
    soundex: rphonetic::Soundex,
}

impl std::fmt::Debug for Tokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokenizer")
            .field("config", &self.config)
            .field("stopwords", &self.stopwords.len())
            .finish()
    }
}

impl Tokenizer {
    /// A tokenizer under `config` (its language's stemmer and stop words).
    pub fn new(config: &TokenizerConfig) -> Self {
        Self {
            config: config.clone(),
            stopwords: StopWords::for_language(config.language),
            stemmer: rust_stemmers::Stemmer::create(config.language.stemmer_algorithm()),
            soundex: rphonetic::Soundex::default(),
        }
    }

    /// Its configuration.
    pub fn config(&self) -> &TokenizerConfig {
        &self.config
    }

    /// The words of normalized text, in order.
    pub fn words<'a>(&self, normalized: &'a str) -> Vec<&'a str> {
        let mut words = Vec::new();
        for_each_word(normalized, |w| words.push(w));
        words
    }

    /// Whether `word` is one of the language's stop words.
    pub fn is_stopword(&self, word: &str) -> bool {
        self.stopwords.contains(word)
    }

    /// The term a word contributes, or `None` for a stop word (when stop-word
    /// removal is on).
    pub fn term<'a>(&self, word: &'a str) -> Option<Cow<'a, str>> {
        if self.config.remove_stopwords && self.is_stopword(word) {
            return None;
        }
        Some(if self.config.stem {
            self.stemmer.stem(word)
        } else {
            Cow::Borrowed(word)
        })
    }

    /// The Soundex code of a word (`"robert"` → `"R163"`), or `None` when the
    /// word has no Latin letters to encode. Accents are stripped first
    /// (`"café"` codes as `"cafe"`); other non-ASCII letters are dropped, since
    /// Soundex is defined on A–Z only (and `rphonetic` indexes a 26-entry
    /// table with any letter it is given).
    pub fn soundex(&self, word: &str) -> Option<String> {
        let ascii: String = if word.is_ascii() {
            word.chars().filter(char::is_ascii_alphabetic).collect()
        } else {
            word.nfd().filter(char::is_ascii_alphabetic).collect()
        };
        if ascii.is_empty() {
            return None;
        }
        let code = self.soundex.encode(&ascii);
        (code.len() == 4).then_some(code)
    }

    /// Roth's character stream: the text with all whitespace removed, and
    /// per `variation` its stop words and/or vowels removed.
    pub fn char_stream(&self, normalized: &str, variation: Variation) -> String {
        let mut out = String::with_capacity(normalized.len());
        for word in normalized.split(' ') {
            if variation.removes_stopwords()
                && self.is_stopword(word.trim_matches(|c: char| !c.is_alphanumeric()))
            {
                continue;
            }
            for c in word.chars() {
                if variation.removes_second_kind() && is_vowel(c) {
                    continue;
                }
                out.push(c);
            }
        }
        out
    }
}

/// Call `f` with every UAX #29 word of normalized text (words containing a
/// letter or digit, as `unicode_words` yields them).
///
/// Normalized text separates tokens with single spaces and word boundaries
/// always fall at spaces, so each space-separated token is segmented alone:
/// pure-ASCII tokens (nearly all of them in book text) by the fused pass's
/// block scanner ([`FusedText::for_each_word_in`]: the UAX #29 rules
/// restricted to ASCII, 64 bytes at a time; normalized text has no line
/// ends to join at nor typographic apostrophes, so its words are exactly
/// the rules'), and other tokens by `unicode-segmentation`.
pub fn for_each_word<'a>(normalized: &'a str, mut f: impl FnMut(&'a str)) {
    // A space is a boundary to the ASCII scanner too, so a run of
    // all-ASCII tokens needs no splitting: only the tokens holding a
    // non-ASCII byte are cut out and handed to `unicode-segmentation`.
    let bytes = normalized.as_bytes();
    let scanner = FusedText::over(normalized);
    let ascii_words_of = |from: usize, to: usize, f: &mut dyn FnMut(&'a str)| {
        scanner.for_each_word_in(from, to, |_, start, end| f(&normalized[start..end]));
    };
    // `normalized[..done]` has been segmented.
    let mut done = 0;
    while let Some(offset) = bytes[done..].iter().position(|b| !b.is_ascii()) {
        let first = done + offset;
        let start = bytes[done..first]
            .iter()
            .rposition(|&b| b == b' ')
            .map_or(done, |n| done + n + 1);
        let end = bytes[first..]
            .iter()
            .position(|&b| b == b' ')
            .map_or(bytes.len(), |n| first + n);
        ascii_words_of(done, start, &mut f);
        normalized[start..end].unicode_words().for_each(&mut f);
        done = end;
    }
    ascii_words_of(done, bytes.len(), &mut f);
}

/// Whether each byte value is an ASCII letter or digit.
pub(crate) const ASCII_ALNUM: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = (b as u8).is_ascii_alphanumeric();
        b += 1;
    }
    table
};

/// What the letters and digits of `text` become, in order: an ASCII byte
/// `b` is `ascii(b)`, written for every ASCII byte and kept only for a
/// letter or digit (no branch per byte: word boundaries would mispredict
/// every few characters); any other letter or digit writes what it becomes
/// into the slice `other` is given (room for its UTF-8 length) and says
/// how many it wrote.
pub(crate) fn keep_alnum<T: Copy + Default>(
    text: &str,
    ascii: impl Fn(u8) -> T,
    mut other: impl FnMut(char, &mut [T]) -> usize,
) -> Vec<T> {
    let bytes = text.as_bytes();
    let mut out = vec![T::default(); bytes.len()];
    let mut n = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii() {
            out[n] = ascii(b);
            n += usize::from(ASCII_ALNUM[usize::from(b)]);
            i += 1;
        } else {
            let c = text[i..].chars().next().expect("a character starts here");
            if c.is_alphanumeric() {
                n += other(c, &mut out[n..]);
            }
            i += c.len_utf8();
        }
    }
    out.truncate(n);
    out
}

/// UAX #29 word classes of ASCII characters.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Class {
    Letter,
    Digit,
    /// `_` (ExtendNumLet).
    Connector,
    /// `:` (MidLetter).
    MidLetter,
    /// `.` and `'` (MidNumLet, Single_Quote).
    MidNumLet,
    /// `,` and `;` (MidNum).
    MidNum,
    Other,
}

const fn class(b: u8) -> Class {
    match b {
        b'a'..=b'z' | b'A'..=b'Z' => Class::Letter,
        b'0'..=b'9' => Class::Digit,
        b'_' => Class::Connector,
        b':' => Class::MidLetter,
        b'.' | b'\'' => Class::MidNumLet,
        b',' | b';' => Class::MidNum,
        _ => Class::Other,
    }
}

/// WB6/WB7 and WB11/WB12: whether a middle character of class `mid`, between
/// a word character of class `last` and a character of class `after`, stays
/// inside the word.
pub(crate) fn mid_joins(last: Class, mid: Class, after: Option<Class>) -> bool {
    match mid {
        Class::MidLetter => last == Class::Letter && after == Some(Class::Letter),
        Class::MidNumLet => {
            (last == Class::Letter && after == Some(Class::Letter))
                || (last == Class::Digit && after == Some(Class::Digit))
        }
        Class::MidNum => last == Class::Digit && after == Some(Class::Digit),
        _ => false,
    }
}

/// Word classes of all 256 byte values (non-ASCII bytes are `Other`).
pub(crate) const CLASSES: [Class; 256] = {
    let mut table = [Class::Other; 256];
    let mut b = 0;
    while b < 128 {
        table[b] = class(b as u8);
        b += 1;
    }
    table
};

fn is_vowel(c: char) -> bool {
    matches!(c, 'a' | 'e' | 'i' | 'o' | 'u')
}

/// Hashes of the k-shingles (k consecutive tokens) of a token-hash stream.
/// A stream shorter than `k` yields one shingle of all its tokens, so short
/// texts still have a fingerprint; an empty stream yields none.
///
/// Each shingle hash is `mix64(seed ^ Σ tᵢ·P^(k−1−i))`: the polynomial is
/// rolled along the stream (two multiplications per shingle, whatever k) and
/// the final mix gives full avalanche; token hashes are already uniform.
pub fn shingle_hashes(tokens: &[u64], k: usize, seed: u64) -> impl Iterator<Item = u64> + '_ {
    const P: u64 = 0x9e37_79b9_7f4a_7c15 | 1;
    let k = k.max(1).min(tokens.len().max(1));
    let top = (1..k).fold(1u64, |acc, _| acc.wrapping_mul(P));
    // The first k − 1 tokens; then each step takes one token in, yields,
    // and takes the oldest out (indexes that need no bounds checks).
    let mut poly = tokens[..(k - 1).min(tokens.len())]
        .iter()
        .fold(0u64, |acc, &t| acc.wrapping_mul(P).wrapping_add(t));
    let entering = tokens.get(k - 1..).unwrap_or_default();
    entering
        .iter()
        .zip(tokens)
        .map(move |(&entering, &leaving)| {
            poly = poly.wrapping_mul(P).wrapping_add(entering);
            let hash = crate::hash::mix64(poly ^ seed);
            poly = poly.wrapping_sub(leaving.wrapping_mul(top));
            hash
        })
}

/// Character k-grams of `stream` as (hash, byte offset of the gram in
/// `stream`). Grams are whole characters, so non-ASCII text is safe.
pub fn char_kgram_hashes(stream: &str, k: usize, seed: u64) -> Vec<(u64, usize)> {
    let k = k.max(1);
    let starts: Vec<usize> = stream
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(stream.len()))
        .collect();
    if starts.len() <= k {
        return Vec::new();
    }
    (0..starts.len() - k)
        .map(|i| {
            let gram = &stream.as_bytes()[starts[i]..starts[i + k]];
            (crate::hash::hash64(gram, seed), starts[i])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::text::normalize;

    fn tok() -> Tokenizer {
        Tokenizer::new(&TokenizerConfig::default())
    }

    #[test]
    fn words_are_unicode_words_without_punctuation() {
        let t = tok();
        let text = normalize("Don’t panic: naïve café-goers, 42 of them!");
        let words = t.words(&text);
        assert_eq!(
            words,
            ["don't", "panic", "naïve", "café", "goers", "42", "of", "them"]
        );
    }

    #[test]
    fn stop_words_are_dropped_and_terms_stemmed() {
        let t = tok();
        assert_eq!(t.term("the"), None);
        assert_eq!(t.term("running").as_deref(), Some("run"));
        assert_eq!(t.term("connections").as_deref(), Some("connect"));
        let plain = Tokenizer::new(&TokenizerConfig {
            remove_stopwords: false,
            stem: false,
            ..TokenizerConfig::default()
        });
        assert_eq!(plain.term("the").as_deref(), Some("the"));
        assert_eq!(plain.term("running").as_deref(), Some("running"));
    }

    #[test]
    fn soundex_codes_match_the_standard() {
        let t = tok();
        assert_eq!(t.soundex("robert").as_deref(), Some("R163"));
        assert_eq!(t.soundex("rupert").as_deref(), Some("R163"));
        assert_eq!(t.soundex("tymczak").as_deref(), Some("T522"));
        assert_eq!(t.soundex("42"), None);
        assert_eq!(t.soundex("café"), t.soundex("cafe"));
        assert_eq!(t.soundex("élégante"), t.soundex("elegante"));
        assert_eq!(t.soundex("москва"), None);
    }

    proptest::proptest! {
        #[test]
        fn soundex_never_panics_on_any_word(word in "\\PC{0,20}") {
            let _ = tok().soundex(&word);
        }
    }

    proptest::proptest! {
        #[test]
        fn ascii_scanner_equals_unicode_segmentation(text in "[a-cA-C0-2_.:,;' x-]{0,40}") {
            let mut ours = Vec::new();
            for_each_word(&text, |w| ours.push(w));
            let theirs: Vec<&str> = text.unicode_words().collect();
            proptest::prop_assert_eq!(ours, theirs);
        }

        /// ASCII stretches of any length between non-ASCII tokens: words
        /// across the scanner's 64-byte blocks, a block long or longer,
        /// and at a stretch's ends.
        #[test]
        fn long_ascii_stretches_equal_unicode_segmentation(
            words in proptest::collection::vec(
                "([a-c0-2]{1,70}|[_.:,;'-]|\u{e9}[a-c]{0,3}|\u{4e00}|[a-c]\u{301})", 0..40),
        ) {
            let text = words.join(" ");
            let mut ours = Vec::new();
            for_each_word(&text, |w| ours.push(w));
            let theirs: Vec<&str> = text.split(' ').flat_map(|t| t.unicode_words()).collect();
            proptest::prop_assert_eq!(ours, theirs);
        }

        /// Cutting only the non-ASCII tokens out of normalized text finds
        /// the words that segmenting every token alone finds.
        #[test]
        fn words_of_mixed_text_equal_words_of_each_token(
            words in proptest::collection::vec("[a-c0-2_.:,;'\u{b7}\u{2019}\u{2500}\u{3b1}\u{e9}\u{301}\u{5d0}\u{4e00}-]{1,8}", 0..30),
        ) {
            let text = words.join(" ");
            let mut ours = Vec::new();
            for_each_word(&text, |w| ours.push(w));
            let theirs: Vec<&str> = text.split(' ').flat_map(|t| t.unicode_words()).collect();
            proptest::prop_assert_eq!(ours, theirs);
        }
    }

    #[test]
    fn roth_char_stream_variations() {
        let t = tok();
        let text = "four score and seven years";
        assert_eq!(t.char_stream(text, Variation::A), "fourscoreandsevenyears");
        assert_eq!(t.char_stream(text, Variation::B), "fourscoresevenyears");
        assert_eq!(t.char_stream(text, Variation::C), "frscrndsvnyrs");
        assert_eq!(t.char_stream(text, Variation::D), "frscrsvnyrs");
    }

    #[test]
    fn blog_four_shingling_has_exactly_seven_shingles() {
        // "to be or not to be, that is the question" → 7 distinct 4-shingles.
        let t = Tokenizer::new(&TokenizerConfig::default());
        let text = normalize("to be or not to be, that is the question");
        let words = t.words(&text);
        let hashes: Vec<u64> = words.iter().map(|w| crate::hash::token_hash(w)).collect();
        let shingles: std::collections::BTreeSet<u64> = shingle_hashes(&hashes, 4, 1).collect();
        let expected: std::collections::BTreeSet<u64> = [
            "to be or not",
            "be or not to",
            "or not to be",
            "not to be that",
            "to be that is",
            "be that is the",
            "that is the question",
        ]
        .iter()
        .map(|s| {
            let h: Vec<u64> = s.split(' ').map(crate::hash::token_hash).collect();
            let mut one = shingle_hashes(&h, 4, 1);
            let hash = one.next().unwrap();
            assert!(one.next().is_none(), "a 4-word phrase is one 4-shingle");
            hash
        })
        .collect();
        assert_eq!(shingles, expected);
    }

    #[test]
    fn rolled_shingles_equal_shingles_hashed_from_scratch() {
        let tokens: Vec<u64> = (0..50u64).map(crate::hash::mix64).collect();
        let rolled: Vec<u64> = shingle_hashes(&tokens, 5, 9).collect();
        assert_eq!(rolled.len(), 46);
        for (i, &h) in rolled.iter().enumerate() {
            assert_eq!(shingle_hashes(&tokens[i..i + 5], 5, 9).next(), Some(h));
        }
        assert_eq!(
            shingle_hashes(&tokens[..3], 5, 9).count(),
            1,
            "short stream: one shingle"
        );
        assert_eq!(shingle_hashes(&[], 5, 9).count(), 0);
    }

    #[test]
    fn char_kgrams_cover_non_ascii_text() {
        let grams = char_kgram_hashes("çaféé", 4, 0);
        assert_eq!(grams.len(), 2);
        assert_eq!(grams[0].1, 0);
        assert_eq!(grams[1].1, 2); // 'ç' is two bytes
        assert!(char_kgram_hashes("abc", 4, 0).is_empty());
    }
}
