//! One pass over a document's normalized text that every algorithm shares.
//!
//! Tokenizing, stop-word lookup, stemming and Soundex are the expensive part
//! of fingerprinting; doing them once per document (and caching each distinct
//! word's results per thread) is what lets all eleven algorithms run at
//! tens of MB/s per core. Algorithms read only an [`Analysis`].

use std::borrow::Cow;
use std::cell::RefCell;

use crate::engine::text::fused::{fused_segmentable, FusedText};
use crate::engine::text::normalize::normalize_fused;
use crate::engine::text::tokenize::{for_each_word, keep_alnum, ASCII_ALNUM};
use crate::engine::text::{normalize, Tokenizer, TokenizerConfig};
use crate::engine::word_cache::WordCache;
use crate::hash::{hash64, token_hash, TOKEN_SEED};

/// Everything the algorithms need from one document.
#[derive(Debug, Clone, Default)]
pub struct Analysis {
    /// The normalized text (Roth's character stream reads it); empty when
    /// the analysis was made without it ([`Analyzer::analyze_with`]).
    pub text: String,
    /// The letters and digits of the normalized text, in order (what
    /// winnowing reads); empty when not asked for.
    pub alnum: String,
    /// Hash of every word, in order (exact, shingles, MinHash).
    pub words: Vec<u64>,
    /// Whether each word is a stop word (parallel to `words`).
    pub stop: Vec<bool>,
    /// Hash (32 bits) of each word's Soundex code, 0 where it has none (parallel
    /// to `words`).
    pub soundex: Vec<u64>,
    /// Term hashes: stop words removed (if configured) and stemmed (if
    /// configured), in order (SimHash family, I-Match, statistics).
    pub terms: Vec<u64>,
}

impl Analysis {
    /// Number of words; a document with none is "empty" to every algorithm.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Distinct terms, sorted (the document's contribution to document frequencies).
    pub fn unique_terms(&self) -> Vec<u64> {
        let mut t = self.terms.clone();
        crate::hash::sort_hashes(&mut t);
        t.dedup();
        t
    }
}

/// Which parts of an [`Analysis`] to build; the rest stay empty.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Needs {
    /// The normalized text.
    pub text: bool,
    /// The normalized text's letters and digits.
    pub alnum: bool,
    /// Terms, stop-word flags and Soundex codes (everything that needs the
    /// per-word cache of stems and codes).
    pub terms: bool,
}

impl Needs {
    /// Everything: what a caller that needs all parts asks for.
    pub const ALL: Needs = Needs {
        text: true,
        alnum: true,
        terms: true,
    };
}

/// Builds [`Analysis`] values; cheap to share across threads.
#[derive(Debug)]
pub struct Analyzer {
    tokenizer: Tokenizer,
    /// Distinguishes this analyzer's cache entries from another config's.
    config_tag: u64,
}

/// What the analysis derives from one word.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct WordEntry {
    /// Term hash; [`NO_TERM`] for a dropped stop word.
    term: u64,
    /// Hash of the Soundex code (never 0), or 0 without one.
    soundex: u32,
    is_stop: bool,
}

thread_local! {
    static WORD_CACHE: RefCell<WordCache<WordEntry>> = RefCell::new(WordCache::default());
}

/// Term hash of the empty marker; real terms never hash to it by construction.
const NO_TERM: u64 = 0;

impl Analyzer {
    /// An analyzer for texts tokenized under `config`.
    pub fn new(config: &TokenizerConfig) -> Self {
        let tag = hash64(format!("{config:?}").as_bytes(), 0x7a67);
        Self {
            tokenizer: Tokenizer::new(config),
            config_tag: tag | 1,
        }
    }

    /// Its tokenizer.
    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    /// Normalize decoded text and analyze it, keeping the normalized text.
    pub fn analyze(&self, decoded_text: &str) -> Analysis {
        self.analyze_with(decoded_text, Needs::ALL)
    }

    /// Analyze decoded text, building only what `needs` asks for (words
    /// always). Text that is ASCII or close to it (dashes, curly quotes)
    /// never builds the normalized text unless asked: the fused pass
    /// ([`crate::engine::text::fused`]) finds its words, and its letters and digits
    /// are its ASCII ones, lowercased.
    pub fn analyze_with(&self, decoded_text: &str, needs: Needs) -> Analysis {
        if fused_segmentable(decoded_text) {
            let mut analysis = self.collect(needs, &FusedText::new(decoded_text));
            if needs.alnum {
                analysis.alnum = fused_alnum(decoded_text);
            }
            if needs.text {
                analysis.text = normalize_fused(decoded_text);
            }
            analysis
        } else {
            let text = normalize(decoded_text);
            let mut analysis = self.collect(needs, &NormalizedText(&text));
            if needs.alnum {
                analysis.alnum = alnum_of(&text);
            }
            if needs.text {
                analysis.text = text;
            }
            analysis
        }
    }

    /// Analyze text that is already normalized.
    pub fn analyze_normalized(&self, text: String) -> Analysis {
        let mut analysis = self.collect(Needs::ALL, &NormalizedText(&text));
        analysis.alnum = alnum_of(&text);
        analysis.text = text;
        analysis
    }

    /// Build the word streams from the words of `source`.
    fn collect(&self, needs: Needs, source: &impl WordSource) -> Analysis {
        if !needs.terms {
            let mut words = Vec::with_capacity(source.len() / 4);
            source.for_each_word(|word, _, _| words.push(hash64(word, TOKEN_SEED)));
            return Analysis {
                words,
                ..Analysis::default()
            };
        }
        // Two passes: segmenting and hashing first, then the cache lookups
        // in a tight loop of their own (`each_entry`), where the processor
        // can overlap their memory accesses (between segmentation's
        // word-boundary branches it cannot). A cache miss spells its word
        // from its span.
        let (words, spans) = hashed_words(source);
        let mut stop = Vec::with_capacity(words.len());
        let mut soundex = Vec::with_capacity(words.len());
        let mut terms = vec![NO_TERM; words.len()];
        let mut kept = 0;
        WORD_CACHE.with(|cell| {
            let mut cache = cell.borrow_mut();
            cache.prepare(self.config_tag);
            let derive = |i: usize| spelled(source, spans[i], |word| self.word_entry(word));
            cache.each_entry(&words, derive, |entry| {
                stop.push(entry.is_stop);
                soundex.push(u64::from(entry.soundex));
                // Whether a word is a stop word is a coin flip to the
                // branch predictor: keep its term without a branch.
                terms[kept] = entry.term;
                kept += usize::from(entry.term != NO_TERM);
            });
        });
        terms.truncate(kept);
        Analysis {
            words,
            stop,
            soundex,
            terms,
            ..Analysis::default()
        }
    }

    fn word_entry(&self, word: &str) -> WordEntry {
        let term = match self.tokenizer.term(word) {
            Some(t) => token_hash(&t).max(1),
            None => NO_TERM,
        };
        WordEntry {
            term,
            is_stop: self.tokenizer.is_stopword(word),
            soundex: self
                .tokenizer
                .soundex(word)
                .map_or(0, |c| (token_hash(&c) as u32).max(1)),
        }
    }

    /// Term hash of one word as the analyzer would compute it (`None` for a
    /// stop word). Used to build and read IDF tables keyed by term text.
    pub fn term_hash(&self, word: &str) -> Option<u64> {
        self.tokenizer.term(word).map(|t| token_hash(&t).max(1))
    }
}

/// The hash of each word of `source`, and its span.
pub(super) fn hashed_words(source: &impl WordSource) -> (Vec<u64>, Vec<(usize, usize)>) {
    let mut words = Vec::with_capacity(source.len() / 4);
    let mut spans = Vec::with_capacity(words.capacity());
    source.for_each_word(|word, start, end| {
        words.push(hash64(word, TOKEN_SEED));
        spans.push((start, end));
    });
    (words, spans)
}

/// `f` of the word of `source` at `span`, spelled again (a cache miss).
pub(super) fn spelled<T>(
    source: &impl WordSource,
    (start, end): (usize, usize),
    f: impl FnOnce(&str) -> T,
) -> T {
    let spelled = source.spell(start, end);
    f(std::str::from_utf8(&spelled).expect("words are whole UTF-8 strings"))
}

/// Where [`Analyzer::collect`] takes words from: each word's normalized
/// spelling with its byte span, and the spelling again from the span.
pub(super) trait WordSource {
    /// Bytes of the underlying text.
    fn len(&self) -> usize;
    fn for_each_word(&self, f: impl FnMut(&[u8], usize, usize));
    fn spell(&self, start: usize, end: usize) -> Cow<'_, [u8]>;
}

impl WordSource for FusedText {
    fn len(&self) -> usize {
        FusedText::len(self)
    }

    fn for_each_word(&self, f: impl FnMut(&[u8], usize, usize)) {
        FusedText::for_each_word(self, f)
    }

    fn spell(&self, start: usize, end: usize) -> Cow<'_, [u8]> {
        FusedText::spell(self, start, end)
    }
}

/// Normalized text, whose words are slices of it.
pub(super) struct NormalizedText<'a>(pub &'a str);

impl WordSource for NormalizedText<'_> {
    fn len(&self) -> usize {
        self.0.len()
    }

    fn for_each_word(&self, mut f: impl FnMut(&[u8], usize, usize)) {
        let base = self.0.as_ptr() as usize;
        for_each_word(self.0, |w| {
            let start = w.as_ptr() as usize - base;
            f(w.as_bytes(), start, start + w.len())
        });
    }

    fn spell(&self, start: usize, end: usize) -> Cow<'_, [u8]> {
        Cow::Borrowed(&self.0.as_bytes()[start..end])
    }
}

/// The letters and digits of (normalized) text, in order.
fn alnum_of(text: &str) -> String {
    let kept = keep_alnum(text, |b| b, |c, out| c.encode_utf8(out).len());
    String::from_utf8(kept).expect("whole characters")
}

/// [`alnum_of`] the normalized form of text that
/// [`fused_segmentable`] accepts: its ASCII letters and digits, lowercased
/// (normalization only lowercases them, and the other characters it
/// accepts are neither letters nor digits). No branch per byte.
fn fused_alnum(text: &str) -> String {
    const LOWER: [u8; 256] = {
        let mut table = [0u8; 256];
        let mut b = 0;
        while b < 256 {
            table[b] = (b as u8).to_ascii_lowercase();
            b += 1;
        }
        table
    };
    let bytes = text.as_bytes();
    let mut out = vec![0u8; bytes.len()];
    let mut n = 0;
    for &b in bytes {
        out[n] = LOWER[usize::from(b)];
        n += usize::from(ASCII_ALNUM[usize::from(b)]);
    }
    out.truncate(n);
    String::from_utf8(out).expect("ASCII letters and digits")
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn alnum_of_keeps_every_letter_and_digit_in_order(
            text in "[a-cA-C0-2 _.,'\u{e9}\u{301}\u{3b1}\u{4e00}\u{2500}\u{1d7d8}\u{660}]{0,80}"
        ) {
            let expected: String = text.chars().filter(|c| c.is_alphanumeric()).collect();
            proptest::prop_assert_eq!(alnum_of(&text), expected);
        }
    }

    #[test]
    fn analysis_separates_words_terms_and_soundex() {
        let a = Analyzer::new(&TokenizerConfig::default());
        let doc = a.analyze("The whales were Running");
        assert_eq!(doc.words.len(), 4);
        assert_eq!(doc.stop, [true, false, true, false]);
        assert_eq!(doc.terms.len(), 2);
        assert_eq!(doc.terms[1], token_hash("run"));
        assert!(doc.soundex.iter().all(|&s| s != 0));
    }

    #[test]
    fn fused_ascii_pass_equals_normalize_then_tokenize() {
        let a = Analyzer::new(&TokenizerConfig::default());
        let text = "The  Whale's DIGI-\r\n  tized log: 3.14, e.g. U.S.A.\tmid-word";
        let fused = a.analyze_with(
            text,
            Needs {
                text: false,
                alnum: false,
                terms: true,
            },
        );
        let full = a.analyze_normalized(normalize(text));
        assert_eq!(fused.words, full.words);
        assert_eq!(fused.terms, full.terms);
        assert_eq!(fused.soundex, full.soundex);
        assert!(fused.text.is_empty());
        assert_eq!(a.analyze(text).text, full.text);
    }

    #[test]
    fn fused_pass_equals_the_full_pipeline_on_real_text_with_dashes_and_quotes() {
        let a = Analyzer::new(&TokenizerConfig::default());
        for file in [
            "moby/moby-dick-ch1.txt",
            "austen/emma-ch1.txt",
            "misc/alice-ch1-3.txt",
        ] {
            let path = format!(
                "{}/sample-corpus/{file}",
                concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
            );
            let text = std::fs::read_to_string(path).unwrap();
            let text = format!(
                "{text} Don\u{2019}t \u{201c}quote\u{201d} \u{ab}guillemets\u{bb}\u{a0}— end"
            );
            assert!(
                crate::engine::text::fused::fused_segmentable(&text),
                "{file} takes the fused pass"
            );
            let fused = a.analyze_with(
                &text,
                Needs {
                    text: false,
                    alnum: false,
                    terms: true,
                },
            );
            let full = a.analyze_normalized(normalize(&text));
            assert_eq!(fused.words, full.words, "{file}");
            assert_eq!(fused.terms, full.terms, "{file}");
            assert_eq!(fused.soundex, full.soundex, "{file}");
        }
    }

    proptest::proptest! {
        /// Winnowing reads the same letters and digits whichever path made
        /// them (the fused pass never builds the normalized text).
        #[test]
        fn fused_letters_and_digits_equal_the_normalized_texts(
            text in "[aBc1_.:,;' \t\r\n\u{2018}\u{2019}\u{2013}\u{2014}\u{201c}\u{201d}\u{ab}\u{bb}\u{a0}-]{0,60}"
        ) {
            proptest::prop_assert!(crate::engine::text::fused::fused_segmentable(&text));
            let a = Analyzer::new(&TokenizerConfig::default());
            let fused = a.analyze_with(&text, Needs { text: false, alnum: true, terms: false });
            proptest::prop_assert_eq!(fused.alnum, alnum_of(&normalize(&text)));
        }
    }

    #[test]
    fn letters_and_digits_of_any_text_are_those_of_its_normalized_form() {
        let a = Analyzer::new(&TokenizerConfig::default());
        for text in ["Ça fait ﬁne, Straße 42", "The WHALE’s — 1851", ""] {
            let doc = a.analyze(text);
            assert_eq!(doc.alnum, alnum_of(&normalize(text)), "{text:?}");
        }
        assert_eq!(
            a.analyze("Ça fait ﬁne, Straße 42").alnum,
            "çafaitfinestrasse42"
        );
        assert_eq!(a.analyze("The WHALE’s — 1851").alnum, "thewhales1851");
    }

    #[test]
    fn cache_never_leaks_between_configurations() {
        let stemmed = Analyzer::new(&TokenizerConfig::default());
        let plain = Analyzer::new(&TokenizerConfig {
            stem: false,
            ..TokenizerConfig::default()
        });
        let a = stemmed.analyze("running");
        let b = plain.analyze("running");
        assert_eq!(a.terms, [token_hash("run")]);
        assert_eq!(b.terms, [token_hash("running")]);
    }
}
