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

use super::{FolderIndex, Result};
use crate::doc::DocPath;
use crate::engine::fingerprinter::PrintOptions;
use crate::pairing::boilerplate::{DocSamples, Learner, Span};
use crate::runtime::boilerplate::user::UserBoilerplate;
use crate::runtime::boilerplate::{config_of, BoilerplateReport, PassageSummary};
use crate::runtime::collection::FileEntry;
use crate::runtime::reading::print_text_sampled;
use crate::runtime::store::OverruledPassage;
use crate::runtime::store::StoreError;

/// Rounds of re-reading documents whose spans moved; each round's reads
/// change no samples, so one round settles it, the rest is a guard.
const RESPAN_ROUNDS: usize = 4;

impl FolderIndex {
    /// Whether documents are fingerprinted without learned boilerplate.
    pub(super) fn learning(&self) -> bool {
        config_of(&self.engine, self.library.config()).is_some()
    }

    /// The learner, built from the stored samples the first time; `None`
    /// when learning is off.
    fn learner(&mut self) -> Result<Option<&mut Learner<DocPath>>> {
        let Some(config) = config_of(&self.engine, self.library.config()) else {
            return Ok(None);
        };
        if self.learner.is_none() {
            let mut learner = Learner::new(config);
            let stored: Vec<(DocPath, DocSamples)> = self
                .store
                .boilerplate()?
                .into_iter()
                .filter(|(doc, _)| self.library.id_of(doc).is_some())
                .map(|(doc, b)| (doc, b.samples))
                .collect();
            if let Some(user) = &self.user {
                user.pin(&mut learner);
            }
            learner.set_overruled(overruled_hashes(&self.store.overruled_passages()?));
            learner.update(stored, Vec::new());
            self.learner = Some(learner);
        }
        Ok(self.learner.as_mut())
    }

    /// Tell the learner about arriving (or changed) and leaving documents;
    /// every arriving document's spans, in order (empty when learning is
    /// off). Documents already indexed whose spans moved are queued to be
    /// read again.
    pub(super) fn learn(
        &mut self,
        adds: Vec<(DocPath, DocSamples)>,
        removes: Vec<DocPath>,
    ) -> Result<Vec<Vec<Span>>> {
        let keys: Vec<DocPath> = adds.iter().map(|(d, _)| d.clone()).collect();
        let Some(learner) = self.learner()? else {
            return Ok(vec![Vec::new(); keys.len()]);
        };
        if adds.is_empty() && removes.is_empty() {
            return Ok(Vec::new());
        }
        let moved = learner.update(adds, removes);
        let spans = keys.iter().map(|k| learner.spans(k).to_vec()).collect();
        self.report = None;
        self.respan
            .extend(moved.into_iter().filter(|d| !keys.contains(d)));
        Ok(spans)
    }

    /// Fingerprint again, over its new body, every document whose spans
    /// moved: from its kept text when it has one, else read from its file
    /// (through the same path as a changed file).
    pub(super) fn settle_boilerplate(&mut self) -> Result<Vec<super::FileChange>> {
        let mut changes = Vec::new();
        for _ in 0..RESPAN_ROUNDS {
            let queued = std::mem::take(&mut self.respan);
            let mut kept = Vec::new();
            let mut entries = Vec::new();
            for doc in queued {
                let Some(Some(identity)) = self.stored.get(&doc).copied() else {
                    continue;
                };
                if self.library.id_of(&doc).is_none() {
                    continue;
                }
                let entry = FileEntry {
                    path: self.path_of(&doc),
                    doc,
                    bytes: identity.size,
                    identity,
                };
                match self.reprint_kept_text(&entry)? {
                    Some(ingested) => kept.push(ingested),
                    None => entries.push(entry),
                }
            }
            if kept.is_empty() && entries.is_empty() {
                break;
            }
            tracing::debug!(
                reprint_kept_text = kept.len(),
                read = entries.len(),
                "boilerplate moved: fingerprinting again"
            );
            let mut ingested = self.ingest_all(entries);
            ingested.extend(kept);
            // Committed by path, as a reconcile commits its files.
            ingested.sort_by(|a, b| a.entry.doc.cmp(&b.entry.doc));
            changes.extend(self.commit_all(ingested)?);
        }
        Ok(changes)
    }

    /// Whether a document keeps its text in the store: it has boilerplate
    /// `spans`, or holds a shingle the curator overruled (restoring the
    /// passage gives it spans again). Rulings only move such documents.
    pub(super) fn keeps_text(&self, samples: &DocSamples, spans: &[Span]) -> bool {
        if !spans.is_empty() {
            return true;
        }
        let Some(learner) = &self.learner else {
            return false;
        };
        let overruled = learner.overruled();
        !overruled.is_empty() && samples.samples.iter().any(|s| overruled.contains(&s.hash))
    }

    /// `entry`'s document fingerprinted and sampled again from its kept
    /// text, as reading its file gave them (its stored identity, content
    /// hash and encoding stand: the text is what they describe); `None`
    /// when no usable text is kept (or the file would now be read a piece
    /// at a time) and the file must be read.
    fn reprint_kept_text(&self, entry: &FileEntry) -> Result<Option<super::sync::Ingested>> {
        if self.read_limits.is_big(entry.bytes) {
            return Ok(None);
        }
        let Some(text) = self.store.text_of(&entry.doc)? else {
            return Ok(None);
        };
        let Some(mut record) = self.store.document(&entry.doc)? else {
            return Ok(None);
        };
        let options = PrintOptions {
            count_all_shingles: true,
        };
        let library = self.library.config();
        let weights = self.engine.reference_weights();
        let (printed, sampled) = print_text_sampled(text, &self.engine, weights, options, library);
        record.identity = entry.identity;
        record.fingerprints = Some(printed.fingerprints);
        record.shingles = printed.all_shingles.unwrap_or_default() as u32;
        record.entry = None;
        record.boilerplate = None;
        record.text = None;
        Ok(Some(super::sync::Ingested {
            entry: entry.clone(),
            record,
            changed: false,
            learned: Some((sampled.text, sampled.samples)),
        }))
    }

    /// [`FolderIndex::boilerplate_report`], kept until the learned
    /// boilerplate next changes.
    pub fn boilerplate_cached(
        &mut self,
    ) -> std::result::Result<std::sync::Arc<BoilerplateReport>, StoreError> {
        if let Some(report) = &self.report {
            return Ok(report.clone());
        }
        let report = std::sync::Arc::new(self.boilerplate_report()?);
        self.report = Some(report.clone());
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
        let Some(config) = config_of(&self.engine, self.library.config()) else {
            return Ok(BoilerplateReport::default());
        };
        let stored = self.store.boilerplate()?;
        Ok(BoilerplateReport::new(
            stored
                .iter()
                .filter(|(doc, _)| self.library.id_of(doc).is_some())
                .map(|(doc, b)| (doc, &b.samples, &b.found)),
            config.shingle_words,
            &self
                .user
                .as_ref()
                .map(UserBoilerplate::hashes)
                .unwrap_or_default(),
        )
        .with_overruled(self.store.overruled_passages()?.iter().map(listed)))
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
        self.report = None;
        let Some(learner) = self.learner()? else {
            return Ok(Vec::new());
        };
        let moved = learner.set_overruled(overruled_hashes(&overruled));
        tracing::info!(overrule, moved = moved.len(), "boilerplate overruled");
        self.respan.extend(moved);
        self.settle_boilerplate()
    }
}

/// Every shingle of the overruled passages.
fn overruled_hashes(passages: &[OverruledPassage]) -> std::collections::BTreeSet<u32> {
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
