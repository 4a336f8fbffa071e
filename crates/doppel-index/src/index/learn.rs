//! The folder index's boilerplate: the learner kept equal to the indexed
//! documents (built from their stored samples when a change first needs
//! it), the documents whose spans a change moved fingerprinted again over
//! their new body, and the report of what is learned, read from the store
//! alone.
//!
//! A document that carries boilerplate, or a passage the curator overruled,
//! keeps its decoded text in the store ([`FolderIndex::keeps_text`]): a
//! ruling moves only such documents' spans, so overruling a passage, or
//! restoring it, fingerprints them again from their kept text without
//! opening a file of the folder. A document without a kept text (its spans
//! moved because others arrived, or its text failed its checksum) is read
//! again from its file.

use std::collections::{BTreeSet, HashSet};

use rayon::prelude::*;

use super::sync::Ingested;
use super::{FolderIndex, Result};
use crate::boilerplate::{body_prints, BoilerplateReport, PassageSummary};
use crate::collection::{book_identity, entry_now, FileEntry, Skip};
use crate::reading::{print_text_sampled, ReadLimits};
use doppel_core::doc::{DocPath, FileIdentity};
use doppel_core::engine::fingerprinter::PrintOptions;
use doppel_core::engine::Engine;
use doppel_pairing::boilerplate::{DocSamples, Learner, Span};
use doppel_pairing::library::LibraryConfig;
use doppel_store::StoreError;
use doppel_store::{
    DocRecord, DocStatus, KeptText, OverruledPassage, StoredBoilerplate, StoredText,
};

/// Rounds of fingerprinting again documents whose spans moved; each
/// round's reads change no samples, so one round settles it, the rest is a
/// guard.
const RESPAN_ROUNDS: usize = 4;

/// Documents fingerprinted again at a time (their texts are held together).
const REPRINT_CHUNK: usize = 64;

impl FolderIndex {
    /// The learner, built from the stored samples of the documents the
    /// library holds the first time; `None` when learning is off.
    pub(super) fn learner(&mut self) -> Result<Option<&mut Learner<DocPath>>> {
        let (store, library) = (&self.store, &self.library);
        self.boilerplate.learner(|| {
            let stored: Vec<(DocPath, DocSamples)> = store
                .boilerplate()?
                .into_iter()
                .filter(|(doc, _)| library.id_of(doc).is_some())
                .map(|(doc, b)| (doc, b.samples))
                .collect();
            Ok((stored, overruled_hashes(&store.overruled_passages()?)))
        })
    }

    /// Tell the learner `docs` left; documents whose spans that moved are
    /// queued to be read again.
    pub(super) fn unlearn(&mut self, docs: Vec<DocPath>) -> Result<()> {
        for doc in &docs {
            self.boilerplate.note_report_touched(doc, false);
        }
        let Some(learner) = self.learner()? else {
            return Ok(());
        };
        let (_, moved) = learn_spans(learner, Vec::new(), docs);
        self.boilerplate.note_moved(moved);
        Ok(())
    }

    /// Fingerprint again, over its new body, every document whose spans
    /// moved: from its kept text when it has one (in parallel), else read
    /// from its file (through the same path as a changed file). A chunk at
    /// a time, committed by path as a reconcile commits its files.
    pub(super) fn settle_boilerplate(&mut self) -> Result<Vec<super::FileChange>> {
        let mut changes = Vec::new();
        for _ in 0..RESPAN_ROUNDS {
            let queued: Vec<FileEntry> = self
                .boilerplate
                .take_moved()
                .into_iter()
                .filter_map(|doc| {
                    let identity = self.files.identity(&doc)??;
                    self.library.id_of(&doc)?;
                    let mut entry = FileEntry::file(self.path_of(&doc), doc, identity);
                    if entry.path.is_dir() {
                        // A book folder: its pages as they are now.
                        let now = entry_now(&self.root, &entry.path, self.options.page_folders);
                        entry.book = now.and_then(|now| now.book);
                    }
                    Some(entry)
                })
                .collect();
            if queued.is_empty() {
                break;
            }
            // Marked stale first (a no-op where the commit that moved them
            // did it), so a crash while they are fingerprinted again leaves
            // them to the next run.
            let marked: Vec<DocPath> = queued.iter().map(|e| e.doc.clone()).collect();
            match self.reprint_moved(&marked, &queued) {
                Ok(reprinted) => changes.extend(reprinted),
                Err(e) => {
                    // Still to do (fingerprinting one again is harmless):
                    // the next reconcile settles them, also when the store
                    // could not mark them stale.
                    self.boilerplate.queue(marked);
                    return Err(e);
                }
            }
        }
        Ok(changes)
    }

    /// [`FolderIndex::settle_boilerplate`]'s round over `queued` (their
    /// paths `marked`): marked stale, then fingerprinted again a chunk at
    /// a time.
    fn reprint_moved(
        &mut self,
        marked: &[DocPath],
        queued: &[FileEntry],
    ) -> Result<Vec<super::FileChange>> {
        let mut changes = Vec::new();
        self.store.commit_batch(marked, &[], &[])?;
        for chunk in queued.chunks(REPRINT_CHUNK) {
            let mut kept = Vec::new();
            let mut to_read = Vec::new();
            for entry in chunk {
                // A file now read a piece at a time takes no part in
                // learning: its file decides.
                let text = match self.options.read_limits.is_big(entry.bytes) {
                    true => None,
                    false => self.store.kept_text(&entry.doc)?,
                };
                match text {
                    // The kept text is the stored file's: its identity too.
                    Some(text) => kept.push((entry.clone(), text)),
                    None => to_read.push(as_it_is_now(entry)),
                }
            }
            tracing::debug!(
                from_kept_texts = kept.len(),
                read = to_read.len(),
                "boilerplate moved: fingerprinting again"
            );
            let (engine, library) = (&self.engine, self.library.config());
            let mut ingested: Vec<Ingested> = kept
                .into_par_iter()
                .map(|(entry, text)| {
                    reprint(engine, library, &self.options.read_limits, entry, text)
                })
                .collect();
            // A kept text is the one read before: so are its keeper facts.
            for item in &mut ingested {
                let held = self.library.id_of(&item.entry.doc);
                item.record.keeper = held.and_then(|id| self.library.doc(id)?.facts);
            }
            ingested.extend(self.ingest_all(to_read));
            ingested.sort_by(|a, b| a.entry.doc.cmp(&b.entry.doc));
            // Read from a file that is no longer what was indexed: a change
            // of the file after all, reported as one.
            let rewritten: std::collections::HashSet<DocPath> = ingested
                .iter()
                .filter(|i| !self.files.read_as(&i.entry.doc, &i.record.identity))
                .map(|i| i.entry.doc.clone())
                .collect();
            changes.extend(
                self.commit_all(ingested)?
                    .into_iter()
                    .map(|change| match change {
                        super::FileChange::Indexed { path } if !rewritten.contains(&path) => {
                            super::FileChange::Reprinted { path }
                        }
                        other => other,
                    }),
            );
        }
        Ok(changes)
    }

    /// [`FolderIndex::boilerplate_report`], kept until the learned
    /// boilerplate next changes.
    pub fn boilerplate_cached(
        &mut self,
    ) -> std::result::Result<std::sync::Arc<BoilerplateReport>, StoreError> {
        if let Some(report) = self.boilerplate.kept_report() {
            return Ok(report);
        }
        let report = std::sync::Arc::new(self.boilerplate_report()?);
        self.boilerplate.keep_report(report.clone());
        Ok(report)
    }

    /// The byte ranges of `doc`'s decoded text it was fingerprinted
    /// without (a diff greys them out).
    pub fn boilerplate_ranges(
        &self,
        doc: &DocPath,
    ) -> std::result::Result<Vec<std::ops::Range<usize>>, StoreError> {
        Ok(self
            .store
            .boilerplate_of(doc)?
            .map(|b| {
                b.found
                    .ranges
                    .iter()
                    .map(|r| r.start as usize..r.end as usize)
                    .collect()
            })
            .unwrap_or_default())
    }

    /// What is learned: the passages and every document's boilerplate, as
    /// stored with the documents (no file is read, no learner built).
    pub fn boilerplate_report(&self) -> std::result::Result<BoilerplateReport, StoreError> {
        let Some(config) = self.boilerplate.config() else {
            return Ok(BoilerplateReport::default());
        };
        let stored = self.store.boilerplate_found()?;
        Ok(BoilerplateReport::new(
            stored
                .iter()
                .filter(|(doc, _)| self.library.id_of(doc).is_some())
                .map(|(doc, b)| (doc, &b.samples, &b.found)),
            config.shingle_words,
            &self.boilerplate.pinned(),
        )
        .with_overruled(self.store.overruled_passages()?.iter().map(listed)))
    }

    /// Apply the overruled passages as the store now records them
    /// (another process ruled on the team store): the documents whose spans
    /// move are fingerprinted again over their new body, from their kept
    /// texts. Returns what changed.
    pub fn reload_rulings(&mut self) -> Result<Vec<super::FileChange>> {
        self.boilerplate.forget_report();
        let overruled = self.store.overruled_passages()?;
        let Some(learner) = self.learner()? else {
            return Ok(Vec::new());
        };
        let moved = learner.set_overruled(overruled_hashes(&overruled));
        tracing::info!(moved = moved.len(), "another process's boilerplate rulings");
        self.boilerplate.queue(moved);
        self.settle_boilerplate()
    }

    /// The curator's "not boilerplate" on a learned `passage` (`overrule`
    /// true), or its undoing (false): recorded in the store and applied at
    /// once. The documents whose spans move (those holding the passage)
    /// are fingerprinted again over their new body from their kept texts,
    /// without opening their files. Returns what changed.
    pub fn overrule_passage(
        &mut self,
        passage: &PassageSummary,
        overrule: bool,
    ) -> Result<Vec<super::FileChange>> {
        if overrule && passage.source == "user" {
            return Err(super::IndexError::UserPassage {
                first_words: passage.first_words.clone(),
            });
        }
        // The learner first: built now, from the store, it would start
        // with the new ruling and see nothing move.
        if self.learner()?.is_none() {
            return Ok(Vec::new());
        }
        let mut overruled = self.store.overruled_passages()?;
        let before = overruled.len();
        overruled.retain(|o| o.hashes != passage.hashes);
        if overrule {
            overruled.push(kept(passage));
        }
        if !overrule && overruled.len() == before {
            return Ok(Vec::new());
        }
        self.store.set_overruled_passages(&overruled)?;
        self.boilerplate.forget_report();
        let Some(learner) = self.learner()? else {
            return Ok(Vec::new());
        };
        let moved = learner.set_overruled(overruled_hashes(&overruled));
        tracing::info!(overrule, moved = moved.len(), "boilerplate overruled");
        self.boilerplate.queue(moved);
        self.settle_boilerplate()
    }
}

/// `entry` (a stored document's) as its file is now, to be read again: the
/// stored identity may be another machine's (a team store), and a file is
/// read only while it is the one its entry names.
fn as_it_is_now(entry: &FileEntry) -> FileEntry {
    let meta = std::fs::symlink_metadata(&entry.path).ok();
    let identity = match (&entry.book, meta) {
        (Some(book), Some(meta)) if meta.is_dir() => {
            let pages: Vec<FileIdentity> = book.pages.iter().map(|p| p.identity).collect();
            book_identity(&meta, &pages)
        }
        (None, Some(meta)) if meta.is_file() => FileIdentity::from_metadata(&meta),
        _ => entry.identity,
    };
    FileEntry {
        bytes: identity.size,
        identity,
        ..entry.clone()
    }
}

/// `entry`'s document fingerprinted and sampled again from its kept
/// `text`, as reading its file gave them (its stored identity, content hash
/// and encoding stand: the text is what they describe); skipped with the
/// reason, as reading it would be, when memory for that cannot be had.
fn reprint(
    engine: &Engine,
    library: &LibraryConfig,
    limits: &ReadLimits,
    entry: FileEntry,
    kept: KeptText,
) -> Ingested {
    // The record's shingle count is every distinct word shingle's, where
    // anything reads it (0 otherwise).
    let options = PrintOptions {
        count_all_shingles: engine.reads_shingle_count(),
        ..PrintOptions::default()
    };
    let needed = limits.bound(kept.text.len() as u64);
    let printed = print_text_sampled(
        kept.text,
        engine,
        engine.reference_weights(),
        options,
        library,
    );
    let mut record = DocRecord::read(entry.doc.clone(), entry.identity, kept.content_hash);
    record.encoding = kept.encoding;
    let learned = match printed {
        Ok((printed, sampled)) => {
            record.fingerprints = Some(printed.fingerprints);
            record.shingles = printed.all_shingles.unwrap_or_default() as u32;
            Some((sampled.text, sampled.samples))
        }
        Err(_) => {
            record.encoding = None;
            record.status = DocStatus::Skipped {
                reason: Skip::OutOfMemory { needed }.to_string(),
            };
            None
        }
    };
    Ingested {
        entry,
        record,
        changed: false,
        learned,
        from_the_store: false,
    }
}

/// Every shingle of the overruled passages.
pub(super) fn overruled_hashes(passages: &[OverruledPassage]) -> BTreeSet<u32> {
    passages
        .iter()
        .flat_map(|p| p.hashes.iter().copied())
        .collect()
}

/// What the store keeps of a passage once overruled.
fn kept(p: &PassageSummary) -> OverruledPassage {
    OverruledPassage {
        hashes: p.hashes.clone(),
        documents: p.documents,
        words: p.words,
        first_words: p.first_words.clone(),
        representative: p.representative.to_string(),
    }
}

/// An overruled passage as the boilerplate list shows it.
fn listed(o: &OverruledPassage) -> PassageSummary {
    PassageSummary {
        documents: o.documents,
        words: o.words,
        first_words: o.first_words.clone(),
        representative: DocPath::from_bytes(o.representative.clone().into_bytes()),
        source: "learned",
        overruled: true,
        members: Vec::new(),
        hashes: o.hashes.clone(),
    }
}

/// Tell `learner` about ingested files, in order (their samples added, the
/// samples of indexed files that became skipped removed), and fingerprint
/// those with boilerplate over their body (in parallel); their text is
/// kept compressed in their record ([`keeps_text`]), the others' dropped
/// here. Returns the documents already indexed whose spans moved (to read
/// again). Needs nothing of the index but its learner, so a reconcile runs
/// it on a thread of its own, a chunk ahead of the commit.
pub(super) fn learn_chunk(
    learner: &mut Learner<DocPath>,
    engine: &Engine,
    items: &mut [Ingested],
) -> Vec<DocPath> {
    let mut adds = Vec::new();
    let mut removes = Vec::new();
    let mut at = Vec::new();
    // Documents taken from the team store with the spans they were
    // fingerprinted without.
    let mut taken = Vec::new();
    for (i, item) in items.iter_mut().enumerate() {
        if item.changed {
            continue;
        }
        match (&item.record.status, &item.learned, &item.record.boilerplate) {
            (DocStatus::Indexed, Some((_, samples)), _) => {
                adds.push((item.entry.doc.clone(), samples.clone()));
                at.push(i);
            }
            (DocStatus::Indexed, None, Some(stored)) if item.from_the_store => {
                taken.push((
                    (item.entry.doc.clone(), stored.samples.clone()),
                    stored.found.spans.clone(),
                ));
            }
            _ => removes.push(item.entry.doc.clone()),
        }
    }
    // The learner holds exactly the indexed documents.
    removes.retain(|doc| learner.samples(doc).is_some());
    let (taken_adds, taken_spans): (Vec<_>, Vec<_>) = taken.into_iter().unzip();
    let taken_docs: Vec<DocPath> = taken_adds.iter().map(|(doc, _)| doc.clone()).collect();
    adds.extend(taken_adds);
    let (mut spans, mut moved) = learn_spans(learner, adds, removes);
    // Learned here otherwise than where it was fingerprinted: made again
    // over its body here, as a document whose spans moved.
    let ours = spans.split_off(at.len().min(spans.len()));
    for ((doc, theirs), ours) in taken_docs.into_iter().zip(taken_spans).zip(ours) {
        if ours != theirs {
            moved.push(doc);
        }
    }
    let mut bodies: Vec<(usize, Vec<Span>)> = at.into_iter().zip(spans).collect();
    bodies.retain(|(i, spans)| {
        let (_, samples) = items[*i].learned.as_ref().expect("sampled above");
        keeps_text(learner.overruled(), samples, spans)
    });
    print_bodies(engine, items, bodies);
    moved
}

/// Every sampled item's samples put in its record (its text dropped), and
/// `bodies`, the items (by place) that keep their text, with their spans:
/// those with spans fingerprinted over their body (in parallel).
pub(super) fn print_bodies(
    engine: &Engine,
    items: &mut [Ingested],
    bodies: Vec<(usize, Vec<Span>)>,
) {
    let made: Vec<_> = bodies
        .into_par_iter()
        .map(|(i, spans)| {
            let (text, samples) = items[i].learned.as_ref().expect("sampled above");
            let body = (!spans.is_empty())
                .then(|| body_prints(engine, text, samples.words, &spans))
                .flatten();
            (i, body, StoredText::compress(text))
        })
        .collect();
    for item in items.iter_mut() {
        if let Some((_, samples)) = item.learned.take() {
            item.record.boilerplate = Some(StoredBoilerplate::without_boilerplate(samples));
        }
    }
    for (i, body, text) in made {
        items[i].record.text = text;
        if let Some((fingerprints, shingles, found)) = body {
            let record = &mut items[i].record;
            record.fingerprints = Some(fingerprints);
            record.shingles = shingles as u32;
            if let Some(b) = record.boilerplate.as_mut() {
                b.found = found;
            }
        }
    }
}

/// The learner told about `adds` and `removes`: every added document's
/// spans, in order, and the other documents whose spans moved.
#[tracing::instrument(level = "debug", name = "index.learn", skip_all, fields(adds = adds.len()))]
fn learn_spans(
    learner: &mut Learner<DocPath>,
    adds: Vec<(DocPath, DocSamples)>,
    removes: Vec<DocPath>,
) -> (Vec<Vec<Span>>, Vec<DocPath>) {
    if adds.is_empty() && removes.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let order: Vec<DocPath> = adds.iter().map(|(d, _)| d.clone()).collect();
    let moved = learner.update(adds, removes);
    let spans = order.iter().map(|k| learner.spans(k).to_vec()).collect();
    let added: HashSet<&DocPath> = order.iter().collect();
    let moved = moved.into_iter().filter(|d| !added.contains(d)).collect();
    (spans, moved)
}

/// Whether a document keeps its text in the store: it has boilerplate
/// `spans`, or holds a shingle the curator overruled (restoring the
/// passage gives it spans again). Rulings only move such documents.
pub(super) fn keeps_text(overruled: &BTreeSet<u32>, samples: &DocSamples, spans: &[Span]) -> bool {
    if !spans.is_empty() {
        return true;
    }
    !overruled.is_empty() && samples.samples.iter().any(|s| overruled.contains(&s.hash))
}
