//! One pass over a document's normalized text that every algorithm shares.
//!
//! Tokenizing, stop-word lookup, stemming and Soundex are the expensive part
//! of fingerprinting; doing them once per document (and caching each distinct
//! word's results per thread) is what lets all eleven algorithms run at
//! tens of MB/s per core. Algorithms read only an [`Analysis`].

use std::cell::RefCell;

use crate::hash::{hash64, token_hash, HashKeyed, TOKEN_SEED};
use crate::text::normalize::normalize_fused;
use crate::text::tokenize::{for_each_raw_word, for_each_word, fused_segmentable};
use crate::text::{normalize, Tokenizer, TokenizerConfig};

/// Everything the algorithms need from one document.
#[derive(Debug, Clone, Default)]
pub struct Analysis {
    /// The normalized text (winnowing and Roth's character stream read it);
    /// empty when the analysis was made without it
    /// ([`Analyzer::analyze_with`]).
    pub text: String,
    /// Hash of every word, in order (exact, shingles, MinHash).
    pub words: Vec<u64>,
    /// Whether each word is a stop word (parallel to `words`).
    pub stop: Vec<bool>,
    /// Hash of each word's Soundex code, 0 where it has none (parallel to `words`).
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
        t.sort_unstable();
        t.dedup();
        t
    }
}

/// Which parts of an [`Analysis`] to build; the rest stay empty.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Needs {
    /// The normalized text.
    pub text: bool,
    /// Terms, stop-word flags and Soundex codes (everything that needs the
    /// per-word cache of stems and codes).
    pub terms: bool,
}

impl Needs {
    pub const ALL: Needs = Needs {
        text: true,
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

#[derive(Clone, Copy)]
struct WordEntry {
    term: u64,
    is_stop: bool,
    soundex: u64,
}

/// Word hashes are already uniform, so the cache map hashes nothing.
type WordCache = HashKeyed<WordEntry>;

/// Per-thread cache bound: a library's vocabulary fits, a hostile stream of
/// unique tokens cannot grow memory without limit.
const CACHE_LIMIT: usize = 1 << 18;

thread_local! {
    static WORD_CACHE: RefCell<(u64, WordCache)> = RefCell::new((0, WordCache::default()));
}

/// Term hash of the empty marker; real terms never hash to it by construction.
const NO_TERM: u64 = 0;

impl Analyzer {
    pub fn new(config: &TokenizerConfig) -> Self {
        let tag = hash64(format!("{config:?}").as_bytes(), 0x7a67);
        Self {
            tokenizer: Tokenizer::new(config),
            config_tag: tag | 1,
        }
    }

    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    /// Normalize decoded text and analyze it, keeping the normalized text.
    pub fn analyze(&self, decoded_text: &str) -> Analysis {
        self.analyze_with(decoded_text, Needs::ALL)
    }

    /// Analyze decoded text, building only what `needs` asks for (words
    /// always). Text that is ASCII or close to it (dashes, curly quotes)
    /// never builds the normalized text unless asked: one fused pass
    /// normalizes, segments and hashes (see
    /// [`crate::text::tokenize::for_each_raw_word`]).
    pub fn analyze_with(&self, decoded_text: &str, needs: Needs) -> Analysis {
        if fused_segmentable(decoded_text) {
            let mut analysis = self.collect(needs, |emit| for_each_raw_word(decoded_text, emit));
            if needs.text {
                analysis.text = normalize_fused(decoded_text);
            }
            analysis
        } else {
            let text = normalize(decoded_text);
            let mut analysis =
                self.collect(needs, |emit| for_each_word(&text, |w| emit(w.as_bytes())));
            if needs.text {
                analysis.text = text;
            }
            analysis
        }
    }

    /// Analyze text that is already normalized.
    pub fn analyze_normalized(&self, text: String) -> Analysis {
        let mut analysis = self.collect(Needs::ALL, |emit| {
            for_each_word(&text, |w| emit(w.as_bytes()))
        });
        analysis.text = text;
        analysis
    }

    /// Build the word streams from a word source that calls its argument
    /// with each (normalized) word.
    fn collect(&self, needs: Needs, source: impl FnOnce(&mut dyn FnMut(&[u8]))) -> Analysis {
        if !needs.terms {
            let mut words = Vec::with_capacity(512);
            source(&mut |word: &[u8]| words.push(hash64(word, TOKEN_SEED)));
            return Analysis {
                words,
                ..Analysis::default()
            };
        }
        // Two passes: segmenting and hashing first, then the cache lookups
        // in a tight loop of their own, where the processor can overlap
        // their memory accesses (between segmentation's word-boundary
        // branches it cannot). The words' bytes are kept for cache misses.
        let mut words = Vec::with_capacity(512);
        let mut spelled = Vec::with_capacity(4096);
        let mut ends: Vec<u32> = Vec::with_capacity(512);
        source(&mut |word: &[u8]| {
            words.push(hash64(word, TOKEN_SEED));
            spelled.extend_from_slice(word);
            ends.push(spelled.len() as u32);
        });
        let mut stop = Vec::with_capacity(words.len());
        let mut soundex = Vec::with_capacity(words.len());
        let mut terms = Vec::with_capacity(words.len());
        WORD_CACHE.with(|cell| {
            let mut cell = cell.borrow_mut();
            let (tag, cache) = &mut *cell;
            if *tag != self.config_tag || cache.len() > CACHE_LIMIT {
                cache.clear();
                *tag = self.config_tag;
            }
            for (i, &h) in words.iter().enumerate() {
                let entry = match cache.get(&h) {
                    Some(&entry) => entry,
                    None => {
                        let start = if i == 0 { 0 } else { ends[i - 1] as usize };
                        let word = std::str::from_utf8(&spelled[start..ends[i] as usize])
                            .expect("words are whole UTF-8 strings");
                        *cache.entry(h).or_insert(self.word_entry(word))
                    }
                };
                stop.push(entry.is_stop);
                soundex.push(entry.soundex);
                if entry.term != NO_TERM {
                    terms.push(entry.term);
                }
            }
        });
        Analysis {
            text: String::new(),
            words,
            stop,
            soundex,
            terms,
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
                .map_or(0, |c| token_hash(&c).max(1)),
        }
    }

    /// Term hash of one word as the analyzer would compute it (`None` for a
    /// stop word). Used to build and read IDF tables keyed by term text.
    pub fn term_hash(&self, word: &str) -> Option<u64> {
        self.tokenizer.term(word).map(|t| token_hash(&t).max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            let path = format!("{}/sample-corpus/{file}", env!("CARGO_MANIFEST_DIR"));
            let text = std::fs::read_to_string(path).unwrap();
            let text = format!(
                "{text} Don\u{2019}t \u{201c}quote\u{201d} \u{ab}guillemets\u{bb}\u{a0}— end"
            );
            assert!(
                crate::text::tokenize::fused_segmentable(&text),
                "{file} takes the fused pass"
            );
            let fused = a.analyze_with(
                &text,
                Needs {
                    text: false,
                    terms: true,
                },
            );
            let full = a.analyze_normalized(normalize(&text));
            assert_eq!(fused.words, full.words, "{file}");
            assert_eq!(fused.terms, full.terms, "{file}");
            assert_eq!(fused.soundex, full.soundex, "{file}");
        }
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
