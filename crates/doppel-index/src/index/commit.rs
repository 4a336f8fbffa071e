//! Applying what a reconcile or a watcher's paths read (or took from the
//! team store): the learner told and the bodies of documents with
//! boilerplate fingerprinted, the library extended (or, for a fresh index,
//! the documents filed to be paired later), and everything written in one
//! store transaction with the pairs the arrival changed.

use std::collections::{HashMap, HashSet};

use super::learn::learn_chunk;
use super::sync::Ingested;
use super::{FileChange, FolderIndex, Result};
use doppel_core::doc::{DocId, DocPath};
use doppel_core::engine::Fingerprints;
use doppel_pairing::candidates::DocKeys;
use doppel_store::{DocEntry, DocRecord, DocStatus, PairUpdate};

impl FolderIndex {
    /// Tell the learner about the ingested files ([`learn_chunk`]), the
    /// documents whose spans that moved queued to be read again.
    fn learn_ingested(&mut self, items: &mut [Ingested]) -> Result<()> {
        if self.boilerplate.print_learned_at_once(&self.engine, items) {
            return Ok(());
        }
        let engine = std::sync::Arc::clone(&self.engine);
        let Some(learner) = self.learner()? else {
            return Ok(());
        };
        let moved = learn_chunk(learner, &engine, items);
        // Read again before the reconcile or sync returns, marked stale
        // by the next commit.
        self.boilerplate.note_moved(moved);
        Ok(())
    }

    /// Apply ingested files, in order, to the library and the store. The
    /// indexed ones enter the library together (their candidates verified
    /// in parallel, see [`doppel_pairing::library::Library::extend`]); then
    /// all of them are written in one store transaction
    /// ([`doppel_store::Documents::commit_batch`]), each with its pairs
    /// to the files written before it, followed by the pairs their arrival
    /// changed: a crash leaves every file of the batch as it was. A file that
    /// changed while being read is not committed.
    pub(super) fn commit_all(&mut self, mut items: Vec<Ingested>) -> Result<Vec<FileChange>> {
        if self.boilerplate.learning() {
            self.learn_ingested(&mut items)?;
        }
        self.commit_learned(items)
    }

    /// [`FolderIndex::commit_all`] of files the learner has been told
    /// about ([`learn_chunk`], when learning).
    #[tracing::instrument(level = "debug", name = "index.commit", skip_all, fields(files = items.len()))]
    pub(super) fn commit_learned(&mut self, items: Vec<Ingested>) -> Result<Vec<FileChange>> {
        for item in items.iter().filter(|i| !i.changed) {
            // A document taken from the team store comes with the spans
            // another process found: not looked at here.
            let has_spans = item.from_the_store
                || item
                    .record
                    .boilerplate
                    .as_ref()
                    .is_some_and(|b| !b.found.spans.is_empty());
            self.boilerplate
                .note_report_touched(&item.entry.doc, has_spans);
        }
        let arriving: Vec<(DocPath, Fingerprints, usize)> = items
            .iter()
            .filter(|i| !i.changed && i.record.status == DocStatus::Indexed)
            .filter_map(|i| {
                let fp = i.record.fingerprints.clone()?;
                Some((i.entry.doc.clone(), fp, i.record.shingles as usize))
            })
            .collect();
        // Documents in the library but not yet in the store: pairs with
        // them are written with their own document.
        let mut unwritten: HashSet<DocPath> = arriving.iter().map(|d| d.0.clone()).collect();
        // The keys the library filed, by path: stored with each document
        // instead of derived again (for the documents it extended with,
        // they are derived below).
        let mut filed_keys: HashMap<DocPath, DocKeys> = HashMap::new();
        if arriving.is_empty() {
        } else if self.state.files_unpaired() {
            let paths: Vec<DocPath> = arriving.iter().map(|d| d.0.clone()).collect();
            let keys = self
                .library
                .admit_unpaired(&self.engine, arriving, &*self.store)?;
            filed_keys.extend(paths.into_iter().zip(keys));
        } else {
            self.library.extend(&self.engine, arriving, &*self.store)?;
        }
        // What the keeper rule reads of each, now held.
        for item in items.iter().filter(|i| !i.changed) {
            if let (DocStatus::Indexed, Some(facts)) = (&item.record.status, item.record.keeper) {
                self.library.set_facts(&item.entry.doc, facts);
            }
        }
        let mut changes = Vec::new();
        let mut writes: Vec<(DocRecord, Vec<PairUpdate>)> = Vec::with_capacity(items.len());
        // Documents taken from the team store: their rows stand as written
        // there, their pairs are written as this library verified them.
        let mut taken_pairs: Vec<(DocPath, Vec<PairUpdate>)> = Vec::new();
        let mut taken_identities = Vec::new();
        // One first-seen time for the batch: the store keeps an existing
        // row's own, and files are written sorted by path, so "earliest
        // seen" stays deterministic on reopen.
        let now = doppel_store::now_ns();
        for item in items {
            let Ingested {
                entry,
                mut record,
                changed,
                from_the_store: item_from_the_store,
                ..
            } = item;
            if changed {
                changes.push(FileChange::Retry { path: entry.path });
                continue;
            }
            let doc = entry.doc;
            if item_from_the_store {
                if let Some(id) = self.library.id_of(&doc).filter(|_| unwritten.remove(&doc)) {
                    self.files.unskip(&doc);
                    changes.push(FileChange::Indexed { path: doc.clone() });
                    taken_pairs.push((doc.clone(), self.pairs_of(id)));
                    taken_identities.push((doc, record.identity));
                }
                continue;
            }
            record.first_seen_ns = self.state.arrival_ns().unwrap_or(now);
            let pairs = match (&record.status, self.library.id_of(&doc)) {
                (DocStatus::Indexed, Some(id)) if unwritten.remove(&doc) => {
                    record.entry = record.fingerprints.as_ref().map(|f| DocEntry {
                        hot: f.hot(),
                        keys: filed_keys
                            .remove(&doc)
                            .unwrap_or_else(|| self.library.doc_keys(f)),
                    });
                    self.files.unskip(&doc);
                    changes.push(FileChange::Indexed { path: doc.clone() });
                    self.pairs_of(id)
                        .into_iter()
                        .filter(|(other, _)| !unwritten.contains(other))
                        .collect()
                }
                (DocStatus::Skipped { reason }, _) => {
                    self.library.remove(&self.engine, &doc, &*self.store)?;
                    self.files.skip(&doc, reason);
                    changes.push(FileChange::Skipped {
                        path: doc.clone(),
                        reason: reason.clone(),
                    });
                    Vec::new()
                }
                _ => Vec::new(),
            };
            writes.push((record, pairs));
        }
        let mut touched = self.touched_pairs();
        let taken_docs: HashSet<DocPath> = taken_pairs.iter().map(|(doc, _)| doc.clone()).collect();
        touched.retain(|(doc, _)| !taken_docs.contains(doc));
        touched.extend(taken_pairs);
        // Held documents whose boilerplate moved are read again before this
        // returns; marked in the same transaction, a crash before then
        // leaves them to the next run instead of stale.
        let stale = self.boilerplate.moved();
        self.store.commit_batch(&stale, &writes, &touched)?;
        for (record, _) in writes {
            self.files.store(record.path, Some(record.identity));
        }
        for (doc, identity) in taken_identities {
            self.files.store(doc, Some(identity));
        }
        Ok(changes)
    }

    /// The pairs of the documents whose pairs changed because others
    /// changed (candidates gathered again, see
    /// [`doppel_pairing::library::Library::take_touched`]), to write again.
    fn touched_pairs(&mut self) -> Vec<(DocPath, Vec<PairUpdate>)> {
        self.library
            .take_touched()
            .into_iter()
            .filter_map(|doc| {
                let id = self.library.id_of(&doc)?;
                Some((doc, self.pairs_of(id)))
            })
            .collect()
    }

    /// Write again the pairs of the documents whose pairs changed because
    /// others changed ([`FolderIndex::touched_pairs`]), marking the held
    /// documents whose boilerplate moved to be read again (see
    /// [`FolderIndex::commit_all`]).
    pub(super) fn write_touched(&mut self) -> Result<()> {
        let touched = self.touched_pairs();
        let stale = self.boilerplate.moved();
        self.store.commit_batch(&stale, &[], &touched)?;
        Ok(())
    }

    /// Mark the held documents whose boilerplate moved stale in the store
    /// on their own (a crash before they are read again leaves them to the
    /// next run), when no commit is about to.
    pub(super) fn mark_spans_stale(&mut self) -> Result<()> {
        let stale = self.boilerplate.moved();
        if !stale.is_empty() {
            self.store.commit_batch(&stale, &[], &[])?;
        }
        Ok(())
    }

    /// The kept pairs of one document, oriented from it.
    fn pairs_of(&self, id: DocId) -> Vec<PairUpdate> {
        self.library
            .neighbours(id)
            .filter_map(|(other, scores)| Some((self.library.doc(other)?.path.clone(), scores)))
            .collect()
    }
}
