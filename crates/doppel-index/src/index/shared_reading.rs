//! Documents another process already fingerprinted, taken from the team
//! store instead of read again: how several review screens and `watch`
//! processes following one collection (on one machine or many) read each
//! new or changed file once.
//!
//! Before it reads files (`ingest_locked`, which `sync`'s `ingest_shared`
//! calls on a team store), a process takes their document
//! locks (`doppel_store::pg`'s `doc_locks`) without waiting; it reads the ones it
//! got (or takes them from the store, below), commits them, and gives the
//! locks back. A file whose lock another process holds is being read
//! there: this one then waits for each such lock in path order (every
//! process takes them in that order, so two never wait on each other), and
//! by the time it has it the document is in the store. A process killed
//! while reading loses its locks with its connection, and the waiting one
//! reads the file itself.
//!
//! A document is taken from the store when the stored row was made under
//! this process's configuration, is indexed, has the file's size and
//! modification time, and the hash of the file's bytes (read, not
//! fingerprinted) is the stored one: the stored fingerprints are then
//! exactly what reading would make (with learned boilerplate, the stored
//! samples are given to the learner, and a document whose spans here
//! differ from those it was fingerprinted without is fingerprinted again,
//! as any document whose boilerplate moved). Its row is left as the other
//! process wrote it; only its pairs are written again, as this library
//! verified them.

use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::sync::{Commit, Ingested};
use super::{FileChange, FolderIndex, Result};
use crate::collection::FileEntry;
use doppel_core::doc::{DocPath, FileIdentity};
use doppel_store::{DocRecord, DocStatus};

/// How long a process waits for the files other processes are reading
/// before it reads them itself (a very big file on a slow drive).
const WAIT_FOR_OTHERS: Duration = Duration::from_secs(30);

impl FolderIndex {
    /// Read `entries` (or take them from the team store) and `commit`
    /// them, each file read by one process of those following the
    /// collection (see the module documentation). Only on a team store.
    pub(super) fn ingest_locked(
        &mut self,
        entries: Vec<FileEntry>,
        commit: &mut Commit<'_>,
    ) -> Result<Vec<FileChange>> {
        let docs: Vec<&DocPath> = entries.iter().map(|e| &e.doc).collect();
        let taken = self.team_store().try_lock_documents(&docs)?;
        let (mine, theirs): (Vec<_>, Vec<_>) = entries
            .into_iter()
            .zip(taken)
            .partition(|(_, taken)| *taken);
        let mine: Vec<FileEntry> = mine.into_iter().map(|(e, _)| e).collect();
        let mut theirs: Vec<FileEntry> = theirs.into_iter().map(|(e, _)| e).collect();
        let mut changes = self.take_or_read_locked(mine, commit)?;
        if theirs.is_empty() {
            return Ok(changes);
        }
        // In path order, as every process waits: no two wait on each other.
        theirs.sort_by(|a, b| a.doc.cmp(&b.doc));
        let deadline = Instant::now() + WAIT_FOR_OTHERS;
        let mut locked = Vec::with_capacity(theirs.len());
        let mut late = Vec::new();
        for entry in theirs {
            let wait = deadline.saturating_duration_since(Instant::now());
            if self.team_store().lock_document_within(&entry.doc, wait)? {
                locked.push(entry);
            } else {
                tracing::warn!(doc = %entry.doc, "another process has been reading it too long: reading it here");
                late.push(entry);
            }
        }
        changes.extend(self.take_or_read_locked(locked, commit)?);
        let ingested = self.ingest_all(late);
        changes.extend(commit(self, ingested)?);
        Ok(changes)
    }

    /// Lock `entries` are held for: take them from the store or read
    /// them, commit, and give the locks back whatever happened.
    fn take_or_read_locked(
        &mut self,
        entries: Vec<FileEntry>,
        commit: &mut Commit<'_>,
    ) -> Result<Vec<FileChange>> {
        let docs: Vec<DocPath> = entries.iter().map(|e| e.doc.clone()).collect();
        let result = self.take_or_read(entries, commit);
        let docs: Vec<&DocPath> = docs.iter().collect();
        self.team_store().unlock_documents(&docs)?;
        result
    }

    /// Take from the store the `entries` it holds as they are on disk,
    /// read the others, and commit them all in their order.
    fn take_or_read(
        &mut self,
        entries: Vec<FileEntry>,
        commit: &mut Commit<'_>,
    ) -> Result<Vec<FileChange>> {
        let order: Vec<DocPath> = entries.iter().map(|e| e.doc.clone()).collect();
        let (taken, to_read) = self.stored_as_on_disk(entries)?;
        tracing::debug!(
            taken = taken.len(),
            read = to_read.len(),
            "documents taken from the team store"
        );
        let mut ingested = taken;
        ingested.extend(self.ingest_all(to_read));
        let place: std::collections::HashMap<&DocPath, usize> =
            order.iter().enumerate().map(|(i, d)| (d, i)).collect();
        ingested.sort_by_key(|i| place.get(&i.entry.doc).copied());
        commit(self, ingested)
    }

    /// Split `entries` into the documents the store holds as they are on
    /// disk (as [`Ingested`] items taken from it) and the files to read.
    fn stored_as_on_disk(
        &self,
        entries: Vec<FileEntry>,
    ) -> Result<(Vec<Ingested>, Vec<FileEntry>)> {
        // Fingerprints made under another configuration are not ours.
        if self.state.is_stale()
            || self.store.config_hash()?.as_deref() != Some(self.config_hash.as_str())
        {
            return Ok((Vec::new(), entries));
        }
        let learning = self.boilerplate.learning();
        let mut candidates = Vec::new();
        let mut to_read = Vec::new();
        for entry in entries {
            match self.stored_record(&entry, learning)? {
                Some(record) => candidates.push((entry, record)),
                None => to_read.push(entry),
            }
        }
        // Hashing reads each file once more, never fingerprints it.
        let checked: Vec<(FileEntry, DocRecord, bool)> = candidates
            .into_par_iter()
            .map(|(entry, record)| {
                let same = hash_unchanged(&entry, record.content_hash);
                (entry, record, same)
            })
            .collect();
        let mut taken = Vec::new();
        for (entry, mut record, same) in checked {
            if !same {
                to_read.push(entry);
                continue;
            }
            // This machine's identity, which its next look compares with.
            record.identity = entry.identity;
            taken.push(Ingested {
                entry,
                record,
                changed: false,
                learned: None,
                from_the_store: true,
            });
        }
        Ok((taken, to_read))
    }

    /// The stored record of `entry`'s document (with its samples when
    /// `learning`), when it is indexed with fingerprints and has the
    /// file's size and modification time.
    fn stored_record(&self, entry: &FileEntry, learning: bool) -> Result<Option<DocRecord>> {
        let Some(mut record) = self.store.document(&entry.doc)? else {
            return Ok(None);
        };
        // Another machine's inode, device and ctime differ: not compared.
        let same_file = record.identity.size == entry.identity.size
            && record.identity.mtime_ns == entry.identity.mtime_ns;
        if !same_file || record.status != DocStatus::Indexed || record.fingerprints.is_none() {
            return Ok(None);
        }
        if learning {
            match self.store.boilerplate_of(&entry.doc)? {
                Some(stored) => record.boilerplate = Some(stored),
                // Not learned from (a big file): its file decides.
                None => return Ok(None),
            }
        }
        Ok(Some(record))
    }

    /// The team store, where [`doppel_store::Store::shared`] is
    /// known to be one.
    fn team_store(&self) -> &doppel_store::PgStore {
        self.store.shared().expect("a team store")
    }
}

/// Whether the file of `entry` still has its listed identity and its bytes
/// hash to `content_hash` ([`doppel_store::file_content_hash`]).
fn hash_unchanged(entry: &FileEntry, content_hash: u64) -> bool {
    let hashed = doppel_store::file_content_hash(&entry.path);
    let after = std::fs::symlink_metadata(&entry.path).map(|m| FileIdentity::from_metadata(&m));
    hashed.is_ok_and(|(hash, _)| hash == content_hash)
        && after.is_ok_and(|after| after == entry.identity)
}
