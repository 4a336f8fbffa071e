//! Reading files into fingerprints within a memory bound: what a scan and
//! an index do with each file they read.
//!
//! A file is read whole (its bytes become its text without a copy when
//! they are UTF-8), decoded, and fingerprinted a piece at a time
//! ([`Engine::fingerprint_text`]): no vector with an entry per word of the
//! whole file is ever made, so a file of n bytes takes n for its text, the
//! page-furniture line table (12 bytes a line) and the fingerprints' sets
//! of distinct hashes, plus one piece's analysis (about 100 MiB) —
//! [`ReadLimits::bound`] says how much at most is expected: 2n + 128 MiB.
//!
//! Files over [`ReadLimits::big_file_bytes`] are *big*: they are read one
//! at a time in the whole process (after the small ones, which are read in
//! parallel), and only when their bound fits [`ReadLimits::budget_bytes`].
//! Every large reservation on the way is fallible, so a file that memory
//! cannot be had for is skipped with its reason ([`Skip::OutOfMemory`],
//! [`Skip::OverBudget`]) while every other file is still read: never the
//! end of the scan.
//!
//! When boilerplate is learned ([`read_document_sampled`]), a file that is
//! not big is analyzed whole instead: the learner's samples and the body
//! left once its boilerplate is known are positions in the whole
//! document's analysis (one vector entry per word: a few times an 8 MiB
//! file at most). A big file is never sampled: it takes no part in
//! learning and is fingerprinted whole, boilerplate included.

use std::collections::TryReserveError;
use std::path::Path;
use std::sync::Mutex;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::collection::{Skip, Source};
use doppel_core::doc::FileIdentity;
use doppel_core::engine::document::PIECE_BYTES;
use doppel_core::engine::fingerprinter::{PrintOptions, Printed, ShingleSampler};
use doppel_core::engine::stats::TermWeights;
use doppel_core::engine::text::decode::{decode_owned, DecodeError};
use doppel_core::engine::{quality, Engine};
use doppel_pairing::boilerplate::DocSamples;
use doppel_pairing::keeper::{KeeperFacts, TextForm};
use doppel_pairing::library::LibraryConfig;

const MIB: u64 = 1 << 20;

/// `[reading]`: how large files are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct ReadSettings {
    /// Files larger than this (in MiB) are read one at a time. Default: 8.
    pub big_file_mib: u64,
    /// The most memory (in MiB) reading one big file may be expected to
    /// take ([`ReadLimits::bound`]); a file over it is skipped with the
    /// reason. Default: 2048.
    pub memory_budget_mib: u64,
}

impl Default for ReadSettings {
    fn default() -> Self {
        Self {
            big_file_mib: 8,
            memory_budget_mib: 2048,
        }
    }
}

impl ReadSettings {
    /// The limits these settings give (pieces of the default size).
    pub fn limits(&self) -> ReadLimits {
        ReadLimits {
            big_file_bytes: self.big_file_mib.saturating_mul(MIB),
            budget_bytes: self.memory_budget_mib.saturating_mul(MIB),
            piece_bytes: PIECE_BYTES,
        }
    }
}

/// How files are read, in bytes ([`ReadSettings::limits`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadLimits {
    /// Files larger than this are big: read one at a time, under the budget.
    pub big_file_bytes: u64,
    /// The most a big file's [`ReadLimits::bound`] may be.
    pub budget_bytes: u64,
    /// Bytes of text analyzed at a time ([`PIECE_BYTES`]; smaller in tests,
    /// which cut small files into many pieces).
    pub piece_bytes: usize,
}

impl Default for ReadLimits {
    fn default() -> Self {
        ReadSettings::default().limits()
    }
}

impl ReadLimits {
    /// Whether a file of `bytes` is big (read one at a time).
    pub fn is_big(&self, bytes: u64) -> bool {
        bytes > self.big_file_bytes
    }

    /// The most memory reading a file of `bytes` is expected to take:
    /// twice the file (its text, and the line table and the distinct-hash
    /// sets, which stay under another file's worth for text; or a second
    /// copy while a file that is not UTF-8 is decoded) and 64 pieces (one
    /// piece's analysis and the fingerprints' work on it,
    /// [`doppel_core::engine::document::PIECE_HEADROOM`] bytes a byte, and their fixed state): 2n +
    /// 128 MiB with the default pieces.
    pub fn bound(&self, bytes: u64) -> u64 {
        bytes
            .saturating_mul(2)
            .saturating_add(64 * self.piece_bytes as u64)
    }
}

/// A file read and fingerprinted.
#[derive(Debug, Clone)]
pub struct ReadDoc {
    /// The file's identity when it was read (unchanged while it was).
    pub identity: FileIdentity,
    /// The hash of its bytes ([`doppel_store::content_hash`]).
    pub content_hash: u64,
    /// The encoding its text was decoded from.
    pub encoding: &'static str,
    /// Its fingerprints and measures.
    pub printed: Printed,
    /// Its text and samples, when it was read for the boilerplate learner
    /// and is not big.
    pub sampled: Option<Sampled>,
    /// What the keeper rule reads of it ([`keeper_facts`]).
    pub keeper: KeeperFacts,
}

/// What the keeper rule ([`doppel_pairing::keeper`]) reads of a decoded
/// file read as `identity`: its text quality (held down by a low OCR
/// confidence where its format records one), words, how far its format
/// is from plain text, UTF-8 and age. Estimated a piece of `piece_bytes`
/// at a time, so a big file stays within its bound.
pub fn keeper_facts(
    decoded: &doppel_core::engine::text::decode::Decoded,
    identity: &FileIdentity,
    piece_bytes: usize,
) -> KeeperFacts {
    let confidence = decoded.book.as_ref().and_then(|b| b.confidence);
    let quality =
        quality::estimate_in_pieces(&decoded.text, piece_bytes).with_confidence(confidence);
    KeeperFacts {
        quality: quality.score(),
        form: text_form(decoded.book.as_ref().map(|b| b.format)),
        utf8: KeeperFacts::is_utf8(decoded.encoding),
        words: quality.words as u64,
        modified_ns: identity.mtime_ns,
    }
}

/// How far a file of `format` (`None`: plain text) is from the text
/// itself: a plain text is it, an e-book (EPUB, HTML, TEI) holds it in
/// markup, a page format (PDF, ALTO, hOCR, a zip or folder of pages) lays
/// out a scan's OCR with its page furniture.
pub fn text_form(format: Option<doppel_formats::Format>) -> TextForm {
    use doppel_formats::Format;
    match format {
        None | Some(Format::Text) => TextForm::Plain,
        Some(Format::Pdf | Format::Alto | Format::Hocr | Format::PageZip | Format::PageFolder) => {
            TextForm::Pages
        }
        Some(_) => TextForm::Ebook,
    }
}

/// A file's decoded text and what the boilerplate learner reads of it.
#[derive(Debug, Clone)]
pub struct Sampled {
    /// The decoded text (its body is fingerprinted once its boilerplate is
    /// known).
    pub text: String,
    /// The sampled shingles of its whole analysis
    /// ([`crate::boilerplate::samples`]).
    pub samples: DocSamples,
}

/// Big files are read one at a time in the whole process.
static BIG_FILE: Mutex<()> = Mutex::new(());

/// Read, decode and fingerprint the file at `path` (at most `cap` bytes),
/// within `limits`: a big file waits for its turn and must fit the budget.
pub fn read_document(
    path: &Path,
    cap: u64,
    engine: &Engine,
    weights: &dyn TermWeights,
    options: PrintOptions,
    limits: &ReadLimits,
) -> Result<ReadDoc, Skip> {
    let source = Source::Path(path);
    read_document_sampled(source, cap, engine, weights, options, limits, None)
}

/// [`read_document`] of `source` (a listed file is read only if it is
/// still the one listed: [`crate::collection::ListedRoot::open_listed`]),
/// and when `learning` (the library's settings, with boilerplate learning
/// on) a file that is not big is analyzed whole and sampled for the
/// learner ([`ReadDoc::sampled`]); a big file is read a piece at a time
/// and not sampled.
pub fn read_document_sampled(
    source: Source<'_>,
    cap: u64,
    engine: &Engine,
    weights: &dyn TermWeights,
    options: PrintOptions,
    limits: &ReadLimits,
    learning: Option<&LibraryConfig>,
) -> Result<ReadDoc, Skip> {
    let opened = source.open(cap)?;
    let len = opened.len();
    let _turn = if limits.is_big(len) {
        let needed = limits.bound(len);
        if needed > limits.budget_bytes {
            return Err(Skip::OverBudget {
                needed,
                budget: limits.budget_bytes,
            });
        }
        // A reader that panicked left nothing behind but the lock.
        Some(
            BIG_FILE
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner()),
        )
    } else {
        None
    };
    let out_of_memory = || Skip::OutOfMemory {
        needed: limits.bound(len),
    };
    let (bytes, identity) = opened.read(cap).map_err(|skip| match skip {
        Skip::OutOfMemory { .. } => out_of_memory(),
        other => other,
    })?;
    print_bytes_sampled(bytes, identity, engine, weights, options, limits, learning)
}

/// Decode and fingerprint a file's `bytes` (read as `identity`) within
/// `limits`: [`read_document`] once the file is read.
pub fn print_bytes(
    bytes: Vec<u8>,
    identity: FileIdentity,
    engine: &Engine,
    weights: &dyn TermWeights,
    options: PrintOptions,
    limits: &ReadLimits,
) -> Result<ReadDoc, Skip> {
    print_bytes_sampled(bytes, identity, engine, weights, options, limits, None)
}

/// [`print_bytes`], sampling for the learner as [`read_document_sampled`]
/// does (a file is big by the bytes read).
pub fn print_bytes_sampled(
    bytes: Vec<u8>,
    identity: FileIdentity,
    engine: &Engine,
    weights: &dyn TermWeights,
    options: PrintOptions,
    limits: &ReadLimits,
    learning: Option<&LibraryConfig>,
) -> Result<ReadDoc, Skip> {
    let big = limits.is_big(bytes.len() as u64);
    let needed = limits.bound(bytes.len() as u64);
    let out_of_memory = || Skip::OutOfMemory { needed };
    let content_hash = doppel_store::content_hash(&bytes);
    let decoded = decode_owned(bytes).map_err(|e| match e {
        DecodeError::NotText(reason) => Skip::NotText(reason),
        DecodeError::Memory(_) => out_of_memory(),
    })?;
    let encoding = decoded.encoding;
    let keeper = keeper_facts(&decoded, &identity, limits.piece_bytes);
    let (printed, sampled) = match learning.filter(|_| !big) {
        Some(library) => {
            let (printed, sampled) =
                print_text_sampled(decoded.text, engine, weights, options, library)
                    .map_err(|_| out_of_memory())?;
            (printed, Some(sampled))
        }
        None => {
            let printed = engine
                .fingerprint_text_in_pieces(&decoded.text, weights, options, limits.piece_bytes)
                .map_err(|_| out_of_memory())?;
            (printed, None)
        }
    };
    Ok(ReadDoc {
        identity,
        content_hash,
        encoding,
        printed,
        sampled,
        keeper,
    })
}

/// Fingerprint and sample a decoded `text` as [`print_bytes_sampled`]
/// does a file that is not big when learning under `library`: the same
/// prints and samples from a text kept in the index as from its file. An
/// error when memory for them cannot be had (the file is skipped).
pub fn print_text_sampled(
    text: String,
    engine: &Engine,
    weights: &dyn TermWeights,
    options: PrintOptions,
    library: &LibraryConfig,
) -> Result<(Printed, Sampled), TryReserveError> {
    let (printed, samples) = print_and_sample(&text, engine, weights, options, library)?;
    Ok((printed, Sampled { text, samples }))
}

/// Fingerprint a (small) text from its whole analysis, as
/// [`Engine::fingerprint_text`] would in pieces, and sample it for the
/// learner under `library`'s settings.
fn print_and_sample(
    text: &str,
    engine: &Engine,
    weights: &dyn TermWeights,
    options: PrintOptions,
    library: &LibraryConfig,
) -> Result<(Printed, DocSamples), TryReserveError> {
    let analysis = engine.try_analyze(text)?;
    let options = PrintOptions {
        sample_shingles: Some(ShingleSampler::new(library.candidates.shingle_modulus)),
        ..options
    };
    let mut printed = engine.print(&analysis, weights, options)?;
    let sampled = printed.samples.take().unwrap_or_default();
    let samples = DocSamples::from_sampled(sampled, analysis.words.len());
    Ok((printed, samples))
}

/// The decoded text of `source` (at most `cap` bytes) when it is not big
/// under `limits`; `None` when it is big or cannot be read (the caller
/// keeps what it has).
pub fn read_small_text(source: Source<'_>, cap: u64, limits: &ReadLimits) -> Option<String> {
    let opened = source.open(cap).ok()?;
    if limits.is_big(opened.len()) {
        return None;
    }
    let (bytes, _) = opened.read(cap).ok()?;
    decode_owned(bytes).ok().map(|decoded| decoded.text)
}

/// At most this many files are read together (in parallel) and then
/// handled together: a reconcile commits them in one transaction (each
/// chunk's arrival makes the library gather some held documents'
/// candidates again, so few large chunks cost far less than many small
/// ones), a one-shot scan hands their samples to the learner at once.
pub const CHUNK_FILES: usize = 1024;

/// ... and at most this many bytes of them (a chunk's fingerprints and
/// learner samples are held until it is handled), but always one file.
pub const CHUNK_BYTES: u64 = 16 << 20;

/// The next chunk of `items`: at most `most` of them ([`CHUNK_FILES`] but
/// in tests) and [`CHUNK_BYTES`] of their `bytes`, but always one.
pub fn next_chunk<T>(
    items: &mut std::iter::Peekable<impl Iterator<Item = T>>,
    bytes: impl Fn(&T) -> u64,
    most: usize,
) -> Vec<T> {
    let mut chunk = Vec::new();
    let mut total = 0;
    while let Some(item) = items
        .next_if(|i| chunk.is_empty() || (chunk.len() < most && total + bytes(i) <= CHUNK_BYTES))
    {
        total += bytes(&item);
        chunk.push(item);
    }
    chunk
}

/// `read` of every item, in the items' order: the small ones in parallel,
/// then the big ones ([`ReadLimits::is_big`] of `bytes`) one after the
/// other on this thread, so only one big file is in memory at a time.
pub fn read_all<T: Send, R: Send>(
    items: Vec<T>,
    bytes: impl Fn(&T) -> u64,
    limits: &ReadLimits,
    read: impl Fn(T) -> R + Sync,
) -> Vec<R> {
    // Each item with its place, to put the results back in order.
    type Placed<T> = Vec<(usize, T)>;
    let (big, small): (Placed<T>, Placed<T>) = items
        .into_iter()
        .enumerate()
        .partition(|(_, item)| limits.is_big(bytes(item)));
    let mut results: Vec<(usize, R)> = small
        .into_par_iter()
        .map(|(at, item)| (at, read(item)))
        .collect();
    results.extend(big.into_iter().map(|(at, item)| (at, read(item))));
    results.sort_unstable_by_key(|&(at, _)| at);
    results.into_iter().map(|(_, result)| result).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::boilerplate;

    /// Sizes of the chunks `next_chunk` cuts `sizes` into.
    fn chunk_sizes(sizes: &[u64]) -> Vec<usize> {
        let mut items = sizes.iter().enumerate().peekable();
        std::iter::from_fn(|| {
            Some(next_chunk(&mut items, |(_, b)| **b, CHUNK_FILES)).filter(|c| !c.is_empty())
        })
        .map(|c| c.len())
        .collect()
    }

    /// Chunks hold at most [`CHUNK_FILES`] files and [`CHUNK_BYTES`]
    /// bytes, a file bigger than the budget goes alone, and every file is
    /// in exactly one chunk, in order.
    #[test]
    fn chunks_are_bounded_by_files_and_bytes_and_keep_every_file() {
        assert_eq!(
            chunk_sizes(&[10; 2500]),
            vec![CHUNK_FILES, CHUNK_FILES, 452]
        );
        let half = CHUNK_BYTES / 2;
        let mixed = [half, half, 1, CHUNK_BYTES * 3, 1];
        assert_eq!(chunk_sizes(&mixed), vec![2, 1, 1, 1]);
        let mut items = mixed.iter().enumerate().peekable();
        let mut order = Vec::new();
        loop {
            let chunk = next_chunk(&mut items, |(_, b)| **b, CHUNK_FILES);
            if chunk.is_empty() {
                break;
            }
            order.extend(chunk.into_iter().map(|(i, _)| i));
        }
        assert_eq!(order, [0, 1, 2, 3, 4]);
    }

    /// A file whose memory cannot be had while it is fingerprinted for the
    /// learner (its sampled shingles) or its page furniture is found (its
    /// line table) is skipped with the reason, as a file that is not text
    /// is; the same files read once memory is there.
    #[test]
    fn a_file_memory_cannot_be_had_for_is_skipped_with_its_reason() {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("plain.txt");
        std::fs::write(
            &plain,
            "the words of a short text, one of many here\n".repeat(50),
        )
        .unwrap();
        let paged = dir.path().join("paged.txt");
        let page = "a page of the book with its words\n".repeat(20);
        std::fs::write(&paged, format!("{page}\u{c}\n{page}\u{c}\n{page}")).unwrap();
        let engine = Engine::default();
        let (limits, library) = (ReadLimits::default(), LibraryConfig::default());
        let read = |path: &Path| {
            read_document_sampled(
                Source::Path(path),
                u64::MAX,
                &engine,
                engine.reference_weights(),
                PrintOptions::default(),
                &limits,
                Some(&library),
            )
        };
        for path in [&plain, &paged] {
            let bytes = std::fs::metadata(path).unwrap().len();
            let refused = {
                let _limit = doppel_core::engine::memory::refuse_over(0);
                read(path)
            };
            let skip = refused.expect_err("skipped");
            assert_eq!(
                skip,
                Skip::OutOfMemory {
                    needed: limits.bound(bytes)
                }
            );
            assert_eq!(
                skip.to_string(),
                "not enough memory to read it (up to 129 MiB needed)"
            );
            assert!(read(path).is_ok(), "{} reads with memory", path.display());
        }
    }

    proptest::proptest! {
        /// The samples taken while fingerprinting are the learner's
        /// sampling of the whole analysis's shingles, whichever algorithms
        /// are on (some read no shingles of their own), whatever the
        /// modulus, and for documents shorter than a shingle.
        #[test]
        fn samples_taken_while_fingerprinting_are_the_learners_sampling(
            words in proptest::collection::vec(0usize..40, 0..400),
            enabled in 0usize..3,
            modulus in proptest::sample::select(vec![1u64, 3, 8]),
        ) {
            use doppel_core::engine::algo::AlgorithmId as Id;
            let text: Vec<String> = words.iter().map(|w| format!("w{w}")).collect();
            let text = text.join(" ");
            let mut config = doppel_core::engine::EngineConfig::default();
            match enabled {
                0 => {}
                1 => config.enabled = [Id::Minhash].into(),
                _ => config.enabled = [Id::Simhash].into(),
            }
            let engine = Engine::new(config);
            let mut library = LibraryConfig::default();
            library.candidates.shingle_modulus = modulus;
            let weights = engine.reference_weights();
            let (printed, samples) =
                print_and_sample(&text, &engine, weights, PrintOptions::default(), &library)
                    .unwrap();
            let analysis = engine.analyze(&text);
            proptest::prop_assert_eq!(&samples, &boilerplate::samples(&engine, &analysis, &library));
            proptest::prop_assert_eq!(printed.samples, None);
            proptest::prop_assert_eq!(
                printed.fingerprints,
                engine.fingerprint(&analysis, weights).unwrap()
            );
        }
    }
}
