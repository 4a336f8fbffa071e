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
use crate::doc::DocPath;
use crate::pairing::boilerplate::{learn_at_once, BoilerplateConfig, DocSamples, Span};
use crate::runtime::boilerplate::config_of;
use crate::runtime::boilerplate::user::UserBoilerplate;
use crate::runtime::store::{DocStatus, StoredBoilerplate};

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
    config: BoilerplateConfig,
    pinned: BTreeSet<u32>,
    overruled: BTreeSet<u32>,
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

impl FolderIndex {
    /// Whether the next reconcile's reading learns at once: a one-shot
    /// scan filing into an empty library, while learning, with no learner
    /// built.
    pub(super) fn learns_at_once(&self) -> bool {
        self.one_shot && self.pair_later && self.learner.is_none() && self.learning()
    }

    /// What [`learn_unlearned`] needs of the index (`None`: not learning).
    pub(super) fn at_once_inputs(&self) -> Result<Option<AtOnceInputs>> {
        let Some(config) = config_of(&self.engine, self.library.config()) else {
            return Ok(None);
        };
        Ok(Some(AtOnceInputs {
            config,
            pinned: self
                .user
                .as_ref()
                .map(UserBoilerplate::hashes)
                .unwrap_or_default(),
            overruled: overruled_hashes(&self.store.overruled_passages()?),
        }))
    }

    /// Keep what was learned at once: the documents it moved are marked
    /// stale in the store and queued to be fingerprinted again.
    pub(super) fn keep_learned_at_once(&mut self, learned: LearnedAtOnce) -> Result<()> {
        self.note_moved(learned.content.keys().cloned().collect());
        self.at_once = Some(learned);
        self.mark_respan_stale()
    }

    /// Fingerprint `items` (documents read again because learning at once
    /// moved them) over their body with the spans learned. False, touching
    /// nothing, when one was not learned so (its content changed since):
    /// the learner decides then.
    pub(super) fn print_learned_at_once(&mut self, items: &mut [Ingested]) -> bool {
        let Some(at_once) = &self.at_once else {
            return false;
        };
        let covered = items.iter().all(|item| {
            item.changed
                || item.learned.is_none()
                || at_once.content.get(&item.entry.doc) == Some(&item.record.content_hash)
        });
        if !covered {
            self.at_once = None;
            return false;
        }
        let bodies: Vec<(usize, Vec<Span>)> = items
            .iter()
            .enumerate()
            .filter(|(_, item)| !item.changed && item.learned.is_some())
            .map(|(i, item)| {
                let spans = at_once.spans.get(&item.entry.doc).cloned();
                (i, spans.unwrap_or_default())
            })
            .filter(|(i, spans)| {
                let (_, samples) = items[*i].learned.as_ref().expect("filtered");
                keeps_text(&at_once.overruled, samples, spans)
            })
            .collect();
        print_bodies(&self.engine, items, bodies);
        true
    }

    /// After an open under the "filed, not paired" key (a fresh scan
    /// stopped before its pairs were stored, perhaps before its learning):
    /// the documents whose stored spans are not what the stored samples
    /// teach, marked stale and queued to be fingerprinted again.
    pub(super) fn queue_unsettled(&mut self) -> Result<()> {
        if !self.learning() {
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
        self.note_moved(unsettled);
        self.mark_respan_stale()
    }
}
