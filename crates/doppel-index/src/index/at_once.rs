//! A one-shot scan of a fresh index learns its boilerplate at once, after
//! its last file ([`learn_at_once`]), instead of keeping a learner up to
//! date chunk by chunk that nothing uses afterwards: ~0.2 s of CPU at 13k
//! short texts became ~0.05 s. Each document goes to the store without
//! boilerplate; those the learning then gives spans (a handful, where
//! little is boilerplate) are marked stale and fingerprinted again over
//! their body from their files, with the spans learned here, before the
//! scan reports. The learning needs nothing of the index while it runs, so
//! it runs beside the pairing when its memory allows (`sync`'s
//! `pair_fresh`). A watcher, which keeps its learner, learns chunk by chunk.
//!
//! Until the stale marks are committed, the index keeps its "filed, not
//! paired" key (a fresh scan's, see `sync`): an index opened under that key
//! checks every stored document's spans against what its stored samples
//! teach ([`FolderIndex::queue_unsettled`]), so a scan killed before its
//! learning leaves nothing unsettled.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::learn::{keeps_text, overruled_hashes, print_bodies};
use super::sync::Ingested;
use super::{FolderIndex, Result};
use doppel_core::doc::DocPath;
use doppel_core::engine::Engine;
use doppel_pairing::boilerplate::{learn_at_once, BoilerplateConfig, DocSamples, Span};
use doppel_store::{DocStatus, StoredBoilerplate};

/// A committed document's samples, waiting to be learned at once, and its
/// content hash.
pub(super) type Unlearned = (DocPath, DocSamples, u64);

/// What the learning at once found, for fingerprinting the documents it
/// moved again.
#[derive(Debug)]
pub(super) struct LearnedAtOnce {
    /// The spans of the documents with boilerplate.
    spans: BTreeMap<DocPath, Vec<Span>>,
    /// The content hash each moved document was learned with: read again
    /// with another content, it needs the learner.
    content: HashMap<DocPath, u64>,
    overruled: BTreeSet<u32>,
}

/// Take the samples of a chunk's indexed documents for learning at once:
/// each goes to the store without boilerplate, its text dropped.
pub(super) fn take_samples(items: &mut [Ingested]) -> Vec<Unlearned> {
    let mut taken = Vec::new();
    for item in items.iter_mut() {
        let Some((_, samples)) = item.learned.take() else {
            continue;
        };
        if !item.changed && item.record.status == DocStatus::Indexed {
            taken.push((
                item.entry.doc.clone(),
                samples.clone(),
                item.record.content_hash,
            ));
        }
        item.record.boilerplate = Some(StoredBoilerplate::without_boilerplate(samples));
    }
    taken
}

/// What learning at once needs besides the samples: read from the index
/// before it starts, so that it needs nothing of the index while it runs.
#[derive(Debug)]
pub(super) struct AtOnceInputs {
    /// The learning's settings.
    pub(super) config: BoilerplateConfig,
    /// The user's boilerplate folder's shingles.
    pub(super) pinned: BTreeSet<u32>,
    /// The shingles the curator overruled.
    pub(super) overruled: BTreeSet<u32>,
}

/// Learn `docs` (what a fresh scan committed) at once: the documents with
/// boilerplate spans, or holding an overruled passage (whose text is then
/// kept), are those to fingerprint again. Pure: it may run beside the
/// pairing.
#[tracing::instrument(level = "debug", name = "index.learn_at_once", skip_all)]
pub(super) fn learn_unlearned(docs: Vec<Unlearned>, inputs: AtOnceInputs) -> LearnedAtOnce {
    let AtOnceInputs {
        config,
        pinned,
        overruled,
    } = inputs;
    let (listed, hashes): (Vec<(DocPath, DocSamples)>, Vec<u64>) = docs
        .into_iter()
        .map(|(doc, samples, hash)| ((doc, samples), hash))
        .unzip();
    let learned = learn_at_once(&listed, &pinned, &overruled, &config);
    let mut content = HashMap::new();
    for ((doc, samples), hash) in listed.into_iter().zip(hashes) {
        let spans = learned.spans.get(&doc).map_or(&[][..], Vec::as_slice);
        if keeps_text(&overruled, &samples, spans) {
            content.insert(doc, hash);
        }
    }
    tracing::debug!(
        documents = content.len(),
        learned = learned.learned.len(),
        "boilerplate learned at once"
    );
    LearnedAtOnce {
        spans: learned.spans,
        content,
        overruled,
    }
}

impl LearnedAtOnce {
    /// The documents it moved, to fingerprint again.
    pub(super) fn moved(&self) -> Vec<DocPath> {
        self.content.keys().cloned().collect()
    }

    /// Whether every one of `items` (documents read again) that was
    /// sampled was learned here with the content it has now.
    pub(super) fn covers(&self, items: &[Ingested]) -> bool {
        items.iter().all(|item| {
            item.changed
                || item.learned.is_none()
                || self.content.get(&item.entry.doc) == Some(&item.record.content_hash)
        })
    }

    /// Fingerprint `items` ([`LearnedAtOnce::covers`] them) over their body
    /// with the spans learned, keeping the texts a ruling needs.
    pub(super) fn print(&self, engine: &Engine, items: &mut [Ingested]) {
        let bodies: Vec<(usize, Vec<Span>)> = items
            .iter()
            .enumerate()
            .filter(|(_, item)| !item.changed && item.learned.is_some())
            .map(|(i, item)| {
                let spans = self.spans.get(&item.entry.doc).cloned();
                (i, spans.unwrap_or_default())
            })
            .filter(|(i, spans)| {
                let (_, samples) = items[*i].learned.as_ref().expect("filtered");
                keeps_text(&self.overruled, samples, spans)
            })
            .collect();
        print_bodies(engine, items, bodies);
    }
}

impl FolderIndex {
    /// What [`learn_unlearned`] needs of the index (`None`: not learning).
    pub(super) fn at_once_inputs(&self) -> Result<Option<AtOnceInputs>> {
        if !self.boilerplate.learning() {
            return Ok(None);
        }
        let overruled = overruled_hashes(&self.store.overruled_passages()?);
        Ok(self.boilerplate.at_once_inputs(overruled))
    }

    /// Keep what was learned at once: the documents it moved are marked
    /// stale in the store and queued to be fingerprinted again.
    pub(super) fn keep_learned_at_once(&mut self, learned: LearnedAtOnce) -> Result<()> {
        self.boilerplate.keep_learned_at_once(learned);
        self.mark_spans_stale()
    }

    /// After an open under the "filed, not paired" key (a fresh scan
    /// stopped before its pairs were stored, perhaps before its learning):
    /// the documents whose stored spans are not what the stored samples
    /// teach, marked stale and queued to be fingerprinted again.
    pub(super) fn queue_unsettled(&mut self) -> Result<()> {
        if !self.boilerplate.learning() {
            return Ok(());
        }
        let stored = self.store.boilerplate()?;
        let Some(learner) = self.learner()? else {
            return Ok(());
        };
        let unsettled: Vec<DocPath> = stored
            .into_iter()
            .filter(|(doc, b)| {
                learner.samples(doc).is_some() && learner.spans(doc) != b.found.spans
            })
            .map(|(doc, _)| doc)
            .collect();
        tracing::info!(documents = unsettled.len(), "boilerplate not yet settled");
        self.boilerplate.note_moved(unsettled);
        self.mark_spans_stale()
    }
}
