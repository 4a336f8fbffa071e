//! What the store reads and writes: a document's row ([`DocRecord`]), its
//! library entry ([`DocEntry`]), listings and verdicts.

use serde::{Deserialize, Serialize};

use super::Result;
use doppel_core::doc::{CuratorVerdict, DocPath, FileIdentity};
use doppel_core::engine::{Fingerprints, PairScores, ResidentPrints};
use doppel_pairing::boilerplate::DocBoilerplate;
use doppel_pairing::boilerplate::DocSamples;
use doppel_pairing::candidates::DocKeys;
use doppel_pairing::keeper::KeeperFacts;

/// A document's row in one store: what its library entry and pairs are
/// stored by. Meaningful only to the store that gave it (an index keeps
/// it only while restoring or rewriting what is stored by row).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RowId(pub(super) i64);

/// Whether a file was fingerprinted or skipped (with the reason shown to the user).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DocStatus {
    /// Read and fingerprinted.
    Indexed,
    /// Not a document.
    Skipped {
        /// Why, in words.
        reason: String,
    },
}

/// One file of the watched folder as the index knows it.
#[derive(Debug, Clone, PartialEq)]
pub struct DocRecord {
    /// The row id; `None` for a record not read from the store. Ignored by
    /// [`super::Documents::upsert_document`], which keys on `path` and keeps the id of an
    /// existing row.
    pub id: Option<RowId>,
    /// The path relative to the root.
    pub path: DocPath,
    /// The file's `stat` identity when it was read.
    pub identity: FileIdentity,
    /// xxh3-64 of the file's bytes ([`super::content_hash`]).
    pub content_hash: u64,
    /// When the path was first indexed (unix ns); kept on update, so the
    /// earliest-seen member of a cluster can represent it.
    pub first_seen_ns: i64,
    /// Indexed, or skipped and why.
    pub status: DocStatus,
    /// The detected text encoding, if decoded.
    pub encoding: Option<String>,
    /// Every enabled algorithm's fingerprint (indexed documents).
    pub fingerprints: Option<Fingerprints>,
    /// The document's sorted, distinct term hashes (for collection statistics).
    pub terms: Vec<u64>,
    /// Number of distinct word shingles (the fusion containment guard).
    pub shingles: u32,
    /// What the keeper rule reads of an indexed document (text quality,
    /// format, words; its UTF-8 and age are `encoding`'s and
    /// `identity`'s, which the store keeps them from): `None` for a
    /// skipped file or a row written before schema 8, whose file the
    /// index reads again.
    pub keeper: Option<KeeperFacts>,
    /// What a library keeps of the document, under the configuration of
    /// the stored pairs (`None`: none stored). Written by
    /// [`super::Documents::upsert_document`]; reading documents leaves it `None`
    /// ([`super::Documents::document_entries`] reads them).
    pub entry: Option<DocEntry>,
    /// What the boilerplate learner read of the document and the
    /// boilerplate it was fingerprinted without (`None`: not learned
    /// from). Written by [`super::Documents::upsert_document`]; reading
    /// documents leaves it `None` ([`super::Boilerplate::boilerplate`] reads it).
    pub boilerplate: Option<StoredBoilerplate>,
    /// The decoded text it was fingerprinted from, kept when it carries
    /// boilerplate (`None`: none kept). Written by
    /// [`super::Documents::upsert_document`]; reading documents leaves it
    /// `None` ([`super::Boilerplate::kept_text`] reads it).
    pub text: Option<super::StoredText>,
}

impl DocRecord {
    /// The record of `path` as read now (its `identity`, `content_hash`),
    /// indexed with nothing more known yet: what reading fills in.
    pub fn read(path: DocPath, identity: FileIdentity, content_hash: u64) -> Self {
        Self {
            id: None,
            path,
            identity,
            content_hash,
            first_seen_ns: 0,
            status: DocStatus::Indexed,
            encoding: None,
            fingerprints: None,
            terms: Vec::new(),
            shingles: 0,
            keeper: None,
            entry: None,
            boilerplate: None,
            text: None,
        }
    }
}

/// A document's part in boilerplate learning, as stored.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredBoilerplate {
    /// Its sampled shingles (the learner's input).
    pub samples: DocSamples,
    /// The boilerplate it was fingerprinted without.
    pub found: DocBoilerplate,
}

impl StoredBoilerplate {
    /// What a document without boilerplate stores: its samples, and no
    /// span out of its words.
    pub fn without_boilerplate(samples: DocSamples) -> Self {
        Self {
            found: DocBoilerplate::none(samples.words),
            samples,
        }
    }

    /// Whether it was fingerprinted without some boilerplate (its findings
    /// say more than [`StoredBoilerplate::without_boilerplate`]'s).
    pub fn has_boilerplate(&self) -> bool {
        self.found != DocBoilerplate::none(self.samples.words)
    }
}

/// What a library keeps in memory of one document: its hot fingerprints
/// and its entries in the candidate tables. Stored beside the full
/// fingerprints so that reopening an index reads neither them nor derives
/// keys; valid while the stored pairs are (see
/// [`super::Meta::pairs_hash`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DocEntry {
    /// The fingerprints the cheap candidate checks read.
    pub hot: ResidentPrints,
    /// The document's slots in the candidate tables.
    pub keys: DocKeys,
}

/// The encoding of [`DocEntry`] (2: the hot MinHash sketch at 8 bits; 3:
/// each algorithm's keys in slots of their own, see
/// `doppel_pairing::candidates`).
/// Part of the key stored pairs and entries are kept under (see
/// [`super::Meta::pairs_hash`]): entries of another format are not read, the
/// library is verified again once and its entries written anew.
pub const ENTRY_FORMAT: u32 = 3;

/// The `status` and `reason` columns as a [`DocStatus`].
pub(super) fn status_from_sql(
    status: &str,
    reason: Option<String>,
) -> Result<DocStatus, super::codec::Undecodable> {
    match status {
        "indexed" => Ok(DocStatus::Indexed),
        "skipped" => Ok(DocStatus::Skipped {
            reason: reason.unwrap_or_default(),
        }),
        other => Err(super::codec::Undecodable::Status(other.to_owned())),
    }
}

/// One row of [`super::Documents::listing`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocSummary {
    /// The path relative to the root.
    pub path: DocPath,
    /// Length in bytes when it was read.
    pub size: u64,
    /// The detected text encoding, if decoded.
    pub encoding: Option<String>,
    /// Indexed, or skipped and why.
    pub status: DocStatus,
}

/// A candidate pair given to [`super::Documents::upsert_document`]: the other
/// document's path and `engine.compare(this, other)`.
pub type PairUpdate = (DocPath, PairScores);

/// One curator's current verdict on a pair; `a < b` bytewise. A pair has
/// one per curator who judged it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairVerdictRecord {
    /// The first document (in byte order).
    pub a: DocPath,
    /// The second document.
    pub b: DocPath,
    /// Who decided (`""`: unknown, a verdict from before curators were
    /// recorded).
    pub curator: String,
    /// What the curator decided.
    pub verdict: CuratorVerdict,
    /// When (unix ns).
    pub set_at_ns: i64,
}

/// One entry of a pair's verdict history: a curator set or cleared their
/// verdict.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct VerdictChange {
    /// Who (`""`: unknown).
    pub curator: String,
    /// The verdict set, or `None` for cleared.
    pub verdict: Option<CuratorVerdict>,
    /// When (unix ns).
    pub at_ns: i64,
}

/// A learned passage the curator ruled is not boilerplate: its shingles
/// (what the learner never counts as boilerplate again) and how it read
/// when it was overruled (what a list shows of it).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OverruledPassage {
    /// Its sampled shingles ([`doppel_pairing::boilerplate::Passage::hashes`]).
    pub hashes: Vec<u32>,
    /// Documents that held it.
    pub documents: usize,
    /// Its words in the representative document.
    pub words: u32,
    /// Its first words there.
    pub first_words: String,
    /// The document it was shown from (its display form).
    pub representative: String,
}
