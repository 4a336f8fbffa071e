//! A text-quality estimate for choosing which copy of a document to keep:
//! the share of its words an English dictionary knows (the stop words and
//! the Snowball stems of the pinned reference IDF table,
//! `assets/idf/en.tsv`) and the share that look like OCR confusions (a
//! digit inside letters, `l1ke`, or an unknown word that one repair of a
//! scanner's usual confusion, `rn`/`m`, `cl`/`d`, `e`/`c`, ... makes a
//! known one). A clean e-text scores higher than its scan; the estimate
//! is a pure function of the text. Where the file records the OCR
//! engine's own word confidence (ALTO `WC`, hOCR `x_wconf`), a low one
//! holds the score down ([`TextQuality::with_confidence`]).

use std::cell::RefCell;
use std::sync::OnceLock;

use serde::Serialize;

use super::analysis::{hashed_words, spelled, NormalizedText, WordSource};
use super::stats::IdfTable;
use super::text::fused::{fused_segmentable, FusedText};
use super::text::normalize::normalize;
use super::text::stopwords::StopWords;
use super::text::tokenize::Language;
use super::word_cache::WordCache;

/// The tag of [`READINGS`]' one configuration.
const READINGS_TAG: u64 = 1;

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

/// The mean word confidence of a clean scan's OCR: Tesseract reads a
/// clean page at 0.90–0.96 (the Emma chapter's eleven scanned pages,
/// `tests/data/formats/emma_scan.xml`: 0.937); a poor scan's mean is
/// below 0.7.
pub const CLEAN_CONFIDENCE: f64 = 0.9;

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
    /// The OCR engine's mean word confidence, in [0, 1], when the file
    /// records one ([`Self::with_confidence`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ocr_confidence: Option<f64>,
}

impl TextQuality {
    /// The same, with the OCR engine's mean word confidence (0–1) where
    /// the file records one; a value outside 0–1 is no confidence.
    pub fn with_confidence(self, confidence: Option<f32>) -> Self {
        Self {
            ocr_confidence: confidence
                .map(f64::from)
                .filter(|c| (0.0..=1.0).contains(c)),
            ..self
        }
    }

    /// What the words alone say, in [0, 1]: the dictionary share less the
    /// confusion share (a confusion is both an unknown word and a sign of
    /// a scan); 0 without a word to judge.
    pub fn words_score(&self) -> f64 {
        if self.judged == 0 {
            return 0.0;
        }
        (self.dictionary - self.confusions).clamp(0.0, 1.0)
    }

    /// The most the OCR confidence allows the score to be: the confidence
    /// as a share of a clean scan's ([`CLEAN_CONFIDENCE`]), at most 1 —
    /// 0.9 or more allows anything, 0.8 at most 0.89, 0.7 at most 0.78,
    /// 0.5 at most 0.56. `None` without a recorded confidence.
    pub fn confidence_ceiling(&self) -> Option<f64> {
        self.ocr_confidence
            .map(|c| (c / CLEAN_CONFIDENCE).clamp(0.0, 1.0))
    }

    /// One figure in [0, 1]: [`Self::words_score`], held down to
    /// [`Self::confidence_ceiling`] where the OCR engine was unsure of
    /// many words. A text without a recorded confidence scores what its
    /// words say; one without a word to judge scores 0.
    ///
    /// Why the lower of the two, and why a ceiling scaled to a clean
    /// scan's confidence: the two figures see different failures. The
    /// dictionary misses a misreading that is still a word (`he` for
    /// `be`, `modem` for `modern`) and cannot tell a page the engine
    /// guessed through; the engine's doubt misses nothing it read wrong
    /// with assurance. Either one can show a copy is poor, so the score a
    /// curator can trust is the lower. A blend would instead let a high
    /// dictionary share hide a doubtful engine, and would move every clean
    /// scan's score. Taken as it is, the confidence would cap even a clean
    /// scan at ~0.94, below the same scan's PDF text layer or a plain text
    /// (which record no confidence) though it reads no worse: a file that
    /// tells more would lose for it. Scaled so a clean scan's confidence
    /// allows anything, it changes nothing for a good copy and marks a
    /// poor one down in proportion to its engine's doubt.
    pub fn score(&self) -> f64 {
        let words = self.words_score();
        match self.confidence_ceiling() {
            Some(ceiling) => words.min(ceiling),
            None => words,
        }
    }

    /// Whether the OCR confidence holds the score below what the words
    /// alone say (then a face names it as the reason).
    pub fn held_by_confidence(&self) -> bool {
        self.confidence_ceiling()
            .is_some_and(|ceiling| ceiling < self.words_score())
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

/// What the estimate makes of one word. A pure function of the word, so
/// each distinct word is judged once per thread ([`READINGS`]): judging
/// stems it, and stemming every word of every document had been about a
/// third of a scan's CPU time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Reading {
    /// No letters: counted, not judged.
    #[default]
    Unjudged,
    /// A word the dictionary knows.
    Known,
    /// Letters and digits mixed (`l1ke`, `0f`), or an unknown word one
    /// repair of a confusion makes known.
    Confused,
    /// Neither.
    Unknown,
}

impl Reading {
    fn of(dict: &Dictionary, w: &str) -> Reading {
        let letters = w.chars().filter(|c| c.is_alphabetic()).count();
        if letters == 0 {
            Reading::Unjudged
        } else if w.chars().any(|c| c.is_ascii_digit()) {
            Reading::Confused
        } else if dict.knows(w) {
            Reading::Known
        } else if letters > 2 && dict.repairs(w) {
            Reading::Confused
        } else {
            Reading::Unknown
        }
    }
}

thread_local! {
    /// Each word's [`Reading`], by its hash (the dictionary is fixed, so
    /// one tag serves every estimate).
    static READINGS: RefCell<WordCache<Reading>> = RefCell::new(WordCache::default());
}

/// The quality of `text` (decoded; its words are found as the analysis
/// finds them: by the fused pass where it can, else in its normalized
/// form).
pub fn estimate(text: &str) -> TextQuality {
    if fused_segmentable(text) {
        estimate_words(&FusedText::new(text))
    } else {
        estimate_words(&NormalizedText(&normalize(text)))
    }
}

fn estimate_words(source: &impl WordSource) -> TextQuality {
    let dict = Dictionary::get();
    let (hashes, spans) = hashed_words(source);
    let (mut judged, mut known, mut confused) = (0usize, 0usize, 0usize);
    READINGS.with(|cell| {
        let mut readings = cell.borrow_mut();
        readings.prepare(READINGS_TAG);
        let derive = |i: usize| spelled(source, spans[i], |word| Reading::of(dict, word));
        readings.each_entry(&hashes, derive, |reading| {
            judged += usize::from(reading != Reading::Unjudged);
            known += usize::from(reading == Reading::Known);
            confused += usize::from(reading == Reading::Confused);
        });
    });
    let words = hashes.len();
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
        ocr_confidence: None,
    }
}

/// [`estimate`] of `text` a piece of about `piece_bytes` at a time (cut
/// after a whitespace, so no word is split), the counts summed: the same
/// estimate as of the whole text, holding one piece's normalized copy
/// instead of the whole text's (a big file is read within its bound).
pub fn estimate_in_pieces(text: &str, piece_bytes: usize) -> TextQuality {
    let (mut words, mut judged, mut known, mut confused) = (0usize, 0usize, 0.0, 0.0);
    let mut rest = text;
    while !rest.is_empty() {
        let mut end = rest.len().min(piece_bytes.max(1));
        while !rest.is_char_boundary(end) {
            end += 1;
        }
        if end < rest.len() {
            // Past the last whitespace before the cut, else the first after.
            let space = rest[..end]
                .rfind(char::is_whitespace)
                .or_else(|| rest[end..].find(char::is_whitespace).map(|i| end + i));
            end = space.map_or(rest.len(), |at| {
                at + rest[at..].chars().next().map_or(1, char::len_utf8)
            });
        }
        let (piece, after) = rest.split_at(end);
        let q = estimate(piece);
        words += q.words;
        judged += q.judged;
        known += q.dictionary * q.judged as f64;
        confused += q.confusions * q.judged as f64;
        rest = after;
    }
    let share = |n: f64| {
        if judged == 0 {
            0.0
        } else {
            n / judged as f64
        }
    };
    TextQuality {
        words,
        judged,
        dictionary: share(known),
        confusions: share(confused),
        ocr_confidence: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::text::tokenize::for_each_word;

    #[test]
    fn an_estimate_in_pieces_counts_as_the_whole_does() {
        let text = format!("{CLEAN} trutli sing1e farnilies {CLEAN}");
        let whole = estimate(&text);
        for piece in [7, 64, 300, 1 << 20] {
            let pieces = estimate_in_pieces(&text, piece);
            assert_eq!((pieces.words, pieces.judged), (whole.words, whole.judged));
            assert!((pieces.score() - whole.score()).abs() < 1e-9, "{piece}");
        }
        assert_eq!(estimate_in_pieces("", 10), estimate(""));
    }

    /// The estimate's counts with every word judged afresh, no cache.
    fn judged_afresh(text: &str) -> (usize, usize, usize, usize) {
        let dict = Dictionary::get();
        let mut counts = (0, 0, 0, 0);
        for_each_word(&normalize(text), |w| {
            counts.0 += 1;
            match Reading::of(dict, w) {
                Reading::Unjudged => {}
                Reading::Known => (counts.1, counts.2) = (counts.1 + 1, counts.2 + 1),
                Reading::Confused => (counts.1, counts.3) = (counts.1 + 1, counts.3 + 1),
                Reading::Unknown => counts.1 += 1,
            }
        });
        counts
    }

    proptest::proptest! {
        /// However often a word was seen before, on this thread or in this
        /// text, it reads as it does judged afresh.
        #[test]
        fn a_cached_reading_is_the_reading(
            picks in proptest::collection::vec(0usize..16, 0..60),
            again in proptest::bool::ANY,
        ) {
            // The fused pass reads the ASCII ones, and the hyphen, dash and
            // curly apostrophe; a combining accent needs normalizing.
            const WORDS: [&str; 16] = [
                "truth", "the", "trutli", "sing1e", "farnilies", "42", "--", "Fortune",
                "zzqx", "modem", "cafe\u{301}", "neighbourhood", "don\u{2019}t", "ac-\nknowledged",
                "\u{2014}", "IT'S",
            ];
            let text = picks.iter().map(|&i| WORDS[i]).collect::<Vec<_>>().join(" ");
            if again {
                estimate(&text);
            }
            let (words, judged, known, confused) = judged_afresh(&text);
            let q = estimate(&text);
            let share = |n: usize| if judged == 0 { 0.0 } else { n as f64 / judged as f64 };
            proptest::prop_assert_eq!((q.words, q.judged), (words, judged));
            proptest::prop_assert_eq!(q.dictionary, share(known));
            proptest::prop_assert_eq!(q.confusions, share(confused));
        }
    }

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
    fn a_low_ocr_confidence_holds_the_score_down_and_a_clean_one_does_not() {
        let q = estimate(CLEAN);
        let words = q.score();
        assert!(words > 0.95, "{q:?}");
        // Without a confidence (plain text, a PDF), or one outside 0–1:
        // the words' score, as before.
        assert_eq!(q.ocr_confidence, None);
        assert_eq!(q.score(), q.words_score());
        assert_eq!(q.with_confidence(None), q);
        assert_eq!(q.with_confidence(Some(1.5)), q);
        assert_eq!(q.with_confidence(Some(f32::NAN)), q);
        // A clean scan's confidence (the Emma fixture's 0.937) leaves it.
        let clean = q.with_confidence(Some(0.937));
        assert_eq!(clean.score(), words);
        assert!(!clean.held_by_confidence());
        // A poor scan's is the score: 0.63 of a clean scan's 0.9 is 0.7.
        let poor = q.with_confidence(Some(0.63));
        assert!((poor.score() - 0.7).abs() < 1e-6, "{}", poor.score());
        assert!(poor.held_by_confidence());
        assert_eq!(poor.words_score(), words);
        // Lower confidence, lower score; never above the words' score.
        let scores: Vec<f64> = [0.95, 0.85, 0.7, 0.5, 0.0]
            .map(|c| q.with_confidence(Some(c)).score())
            .to_vec();
        assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
        assert!(scores.iter().all(|&s| s <= words));
        // Nothing to judge is 0 whatever the engine said.
        let empty = estimate("12 34").with_confidence(Some(0.99));
        assert_eq!(empty.score(), 0.0);
    }

    #[test]
    fn the_estimate_is_deterministic_and_empty_text_scores_zero() {
        assert_eq!(estimate(CLEAN), estimate(CLEAN));
        let empty = estimate("  12 34 ");
        assert_eq!(empty.judged, 0);
        assert_eq!(empty.score(), 0.0);
    }
}
