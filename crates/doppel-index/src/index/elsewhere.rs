//! What an index reads of a file, as one function wherever the file is
//! read: [`read_for_index`] (a reconcile's own reading calls it, and so do
//! doppel-cluster's executors), its outcome an [`IndexRead`] that travels
//! in serde's form and becomes the record the index commits. A caller
//! that reads elsewhere is a [`ReadsElsewhere`]
//! ([`super::IndexOptions::elsewhere`]); what it could not read comes
//! back [`IndexRead::not_read`], which is never committed (the next
//! reconcile reads it).

use doppel_core::doc::FileIdentity;
use doppel_core::engine::fingerprinter::PrintOptions;
use doppel_core::engine::Engine;
use doppel_core::engine::Fingerprints;
use doppel_pairing::boilerplate::DocSamples;
use doppel_pairing::keeper::KeeperFacts;
use doppel_pairing::library::LibraryConfig;
use doppel_store::{DocRecord, DocStatus};

use super::sync::Ingested;
use super::FileReader;
use crate::collection::{FileEntry, ListedRoot, Skip, Source, DEFAULT_SIZE_CAP};
use crate::reading::{print_bytes_sampled, read_document_sampled, ReadLimits};

/// Reads an index's files somewhere else than this process (on a
/// cluster's executors), each with [`read_for_index`].
pub trait ReadsElsewhere: Send + Sync {
    /// `entries` read as [`read_for_index`] reads them (sampled for the
    /// learner under `learning`'s settings, when given), in their order:
    /// one [`IndexRead`] each, [`IndexRead::not_read`] for what could not
    /// be had.
    fn read(&self, entries: &[FileEntry], learning: Option<&LibraryConfig>) -> Vec<IndexRead>;
}

/// What reading one file for an index gave.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct IndexRead {
    /// Its identity as read (as listed when it was not).
    identity: FileIdentity,
    /// xxh3-64 of its bytes (0 when not read).
    content_hash: u64,
    outcome: Outcome,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
enum Outcome {
    /// Read and fingerprinted.
    Read {
        encoding: String,
        /// Every distinct word shingle, when anything reads the count.
        shingles: u32,
        keeper: KeeperFacts,
        /// Boxed: the other outcomes are small.
        fingerprints: Box<Fingerprints>,
        /// Its decoded text and samples, for the learner.
        learned: Option<(String, DocSamples)>,
    },
    /// Not a document, and why; `changed`: it changed or went away while
    /// it was read, so it is looked at again, not recorded.
    Skipped { reason: String, changed: bool },
    /// Not read at all (the reading elsewhere failed): not committed.
    NotRead,
}

impl IndexRead {
    /// A file that could not be read elsewhere: not committed, so the
    /// next reconcile reads it.
    pub fn not_read(entry: &FileEntry) -> Self {
        Self {
            identity: entry.identity,
            content_hash: 0,
            outcome: Outcome::NotRead,
        }
    }

    /// Whether this is [`IndexRead::not_read`].
    pub fn is_not_read(&self) -> bool {
        matches!(self.outcome, Outcome::NotRead)
    }

    /// What the index commits of `entry` read as this.
    pub(super) fn into_ingested(self, entry: FileEntry) -> Ingested {
        let mut record = DocRecord::read(entry.doc.clone(), self.identity, self.content_hash);
        let (changed, learned) = match self.outcome {
            Outcome::Read {
                encoding,
                shingles,
                keeper,
                fingerprints,
                learned,
            } => {
                // `record.terms` stays empty: the folder index weighs terms
                // by the pinned IDF table, so nothing reads them back (they
                // were a fifth of the file at 100k documents).
                record.encoding = Some(encoding);
                record.shingles = shingles;
                record.keeper = Some(keeper);
                record.fingerprints = Some(*fingerprints);
                (false, learned)
            }
            Outcome::Skipped { reason, changed } => {
                record.status = DocStatus::Skipped { reason };
                (changed, None)
            }
            Outcome::NotRead => {
                let reason = "not read".to_owned();
                record.status = DocStatus::Skipped { reason };
                (true, None)
            }
        };
        Ingested {
            entry,
            record,
            changed,
            learned,
            from_the_store: false,
        }
    }
}

/// Read (only if it is still the file listed under `root`) and
/// fingerprint one file for an index within `limits` (no shared state
/// touched), keeping its text and samples for the learner when
/// `learning` under these settings and the file is not big (a big file
/// takes no part in learning: [`crate::reading`]).
pub fn read_for_index(
    engine: &Engine,
    root: &ListedRoot,
    limits: &ReadLimits,
    learning: Option<&LibraryConfig>,
    entry: &FileEntry,
) -> IndexRead {
    read_with(engine, root, limits, None, learning, entry)
}

/// [`read_for_index`], through a test's `reader` when given.
pub(super) fn read_with(
    engine: &Engine,
    root: &ListedRoot,
    limits: &ReadLimits,
    reader: Option<&FileReader>,
    learning: Option<&LibraryConfig>,
    entry: &FileEntry,
) -> IndexRead {
    // The record's shingle count is every distinct word shingle's, where
    // anything reads it (0 otherwise).
    let options = PrintOptions {
        count_all_shingles: engine.reads_shingle_count(),
        ..PrintOptions::default()
    };
    let weights = engine.reference_weights();
    let read = match reader {
        // A test's reader stands in for the file system.
        Some(reader) => reader(&entry.path, DEFAULT_SIZE_CAP).and_then(|(bytes, identity)| {
            print_bytes_sampled(bytes, identity, engine, weights, options, limits, learning)
        }),
        None => read_document_sampled(
            Source::Listed(root, entry),
            DEFAULT_SIZE_CAP,
            engine,
            weights,
            options,
            limits,
            learning,
        ),
    };
    match read {
        Ok(read) => IndexRead {
            identity: read.identity,
            content_hash: read.content_hash,
            outcome: Outcome::Read {
                encoding: read.encoding.to_owned(),
                shingles: read.printed.all_shingles.unwrap_or_default() as u32,
                keeper: read.keeper,
                fingerprints: Box::new(read.printed.fingerprints),
                learned: read.sampled.map(|s| (s.text, s.samples)),
            },
        },
        Err(skip) => IndexRead {
            identity: entry.identity,
            content_hash: 0,
            outcome: Outcome::Skipped {
                // Changed or deleted while being read: whatever comes next
                // is looked at again.
                changed: skip == Skip::Changed || std::fs::symlink_metadata(&entry.path).is_err(),
                reason: skip.to_string(),
            },
        },
    }
}
