//! The folder index's boilerplate state, apart from its store and library:
//! the learning's settings and the user's boilerplate folder, what stands
//! for the learner, the documents whose spans moved (to fingerprint again
//! over their new body) and the boilerplate report kept until a change
//! reaches it. The index reads the store and the library for it (`learn`
//! and `at_once` are the glue); nothing here does.
//!
//! What stands for the learner moves only by these transitions (learning
//! off, it stays unbuilt):
//!
//! ```text
//!            learner(build): from the stored samples, user pins, rulings
//!   Unbuilt ─────────────────────────────────────────────────────────▶ Built
//!      ▲  ◀── take_learner: freed, or lent to a reconcile's learning ────┘ ▲
//!      │      thread, which give_back returns once every chunk it learned  │
//!      │      is committed ────────────────────────────────────────────────┘
//!      │
//!      │ keep_learned_at_once (a fresh one-shot scan learned after its last file)
//!      ▼
//!   AtOnce ── print_learned_at_once of a document it did not learn, or
//!             end_at_once (the reconcile is over), or learner(build) ──▶ Unbuilt / Built
//! ```

use std::collections::BTreeSet;
use std::sync::Arc;

use super::at_once::{AtOnceInputs, LearnedAtOnce};
use super::sync::Ingested;
use crate::boilerplate::user::UserBoilerplate;
use crate::boilerplate::BoilerplateReport;
use doppel_core::doc::DocPath;
use doppel_core::engine::Engine;
use doppel_pairing::boilerplate::{BoilerplateConfig, DocSamples, Learner};

/// What stands for the boilerplate learner.
#[derive(Debug, Default)]
enum Stand {
    /// Not in memory: built from the stored samples when a change first
    /// needs it.
    #[default]
    Unbuilt,
    /// Kept equal to the indexed documents (~2 KB a document).
    Built(Box<Learner<DocPath>>),
    /// What a fresh one-shot scan learned at once, until the documents it
    /// moved are fingerprinted again.
    AtOnce(LearnedAtOnce),
}

/// A folder index's boilerplate state (see the module's text).
#[derive(Debug)]
pub(super) struct IndexBoilerplate {
    /// The learning's settings; `None` when learning is off.
    config: Option<BoilerplateConfig>,
    /// The user's boilerplate folder, read at open (its content is part of
    /// the fingerprints' configuration key).
    user: Option<UserBoilerplate>,
    learner: Stand,
    /// Indexed documents whose boilerplate spans moved since they were
    /// fingerprinted: read again and fingerprinted over their new body
    /// before a reconcile or sync returns.
    moved: BTreeSet<DocPath>,
    /// The boilerplate report, kept until a change reaches it (spans
    /// moved, or a document with spans arrived, changed or left).
    report: Option<Arc<BoilerplateReport>>,
}

impl IndexBoilerplate {
    /// Learning under `config` (`None`: off), pinning the `user`'s
    /// folder; nothing learned yet.
    pub(super) fn new(config: Option<BoilerplateConfig>, user: Option<UserBoilerplate>) -> Self {
        Self {
            config,
            user,
            learner: Stand::Unbuilt,
            moved: BTreeSet::new(),
            report: None,
        }
    }

    /// The learning's settings (`None`: learning is off).
    pub(super) fn config(&self) -> Option<&BoilerplateConfig> {
        self.config.as_ref()
    }

    /// Whether documents are fingerprinted without learned boilerplate.
    pub(super) fn learning(&self) -> bool {
        self.config.is_some()
    }

    /// Every shingle of the user's boilerplate folder.
    pub(super) fn pinned(&self) -> BTreeSet<u32> {
        self.user
            .as_ref()
            .map(UserBoilerplate::hashes)
            .unwrap_or_default()
    }

    /// Whether a learner is in memory.
    pub(super) fn holds_learner(&self) -> bool {
        matches!(self.learner, Stand::Built(_))
    }

    /// Whether a fresh pass may learn at once: learning, and no learner in
    /// memory that would have to be kept up to date.
    pub(super) fn learns_lazily(&self) -> bool {
        self.learning() && !self.holds_learner()
    }

    /// The learner, built first when not in memory from what `stored`
    /// gives (the indexed documents' samples and the overruled shingles);
    /// `None`, asking nothing, when learning is off.
    pub(super) fn learner<E>(
        &mut self,
        stored: impl FnOnce() -> Result<(Vec<(DocPath, DocSamples)>, BTreeSet<u32>), E>,
    ) -> Result<Option<&mut Learner<DocPath>>, E> {
        let Some(config) = &self.config else {
            return Ok(None);
        };
        if !self.holds_learner() {
            let (samples, overruled) = stored()?;
            let mut learner = Learner::new(config.clone());
            if let Some(user) = &self.user {
                user.pin(&mut learner);
            }
            learner.set_overruled(overruled);
            // In batches, as a one-shot scan learns (every stored
            // document's samples at once were ~8 million at 100k documents).
            learner.add_in_batches(samples);
            self.learner = Stand::Built(Box::new(learner));
        }
        match &mut self.learner {
            Stand::Built(learner) => Ok(Some(learner)),
            _ => unreachable!("built above"),
        }
    }

    /// Take the learner out of memory (to free, or to lend to a thread of
    /// its own: [`IndexBoilerplate::give_back`]); it is built again from
    /// the store when next needed.
    pub(super) fn take_learner(&mut self) -> Option<Learner<DocPath>> {
        match std::mem::take(&mut self.learner) {
            Stand::Built(learner) => Some(*learner),
            other => {
                self.learner = other;
                None
            }
        }
    }

    /// Keep a learner lent out ([`IndexBoilerplate::take_learner`]) again:
    /// it is equal to the indexed documents.
    pub(super) fn give_back(&mut self, learner: Learner<DocPath>) {
        self.learner = Stand::Built(Box::new(learner));
    }

    /// Queue documents whose spans moved, to be fingerprinted again; the
    /// report goes when any did.
    pub(super) fn note_moved(&mut self, moved: Vec<DocPath>) {
        if !moved.is_empty() {
            self.report = None;
        }
        self.moved.extend(moved);
    }

    /// Queue documents to be fingerprinted again (the report is the
    /// caller's).
    pub(super) fn queue(&mut self, docs: impl IntoIterator<Item = DocPath>) {
        self.moved.extend(docs);
    }

    /// The documents queued to be fingerprinted again, in path order.
    pub(super) fn moved(&self) -> Vec<DocPath> {
        self.moved.iter().cloned().collect()
    }

    /// Whether none is queued.
    pub(super) fn none_moved(&self) -> bool {
        self.moved.is_empty()
    }

    /// Take the queue of documents to fingerprint again.
    pub(super) fn take_moved(&mut self) -> BTreeSet<DocPath> {
        std::mem::take(&mut self.moved)
    }

    /// Forget the kept report when `doc`, arriving, changing or leaving,
    /// can change it: it has boilerplate spans now (`has_spans`) or had
    /// them in the report. A document without spans before and after is
    /// in no passage and not listed, and rebuilding the report reads every
    /// stored document's samples (~0.6 s at 110k documents, on every
    /// watcher event).
    pub(super) fn note_report_touched(&mut self, doc: &DocPath, has_spans: bool) {
        let listed = |r: &Arc<BoilerplateReport>| r.documents.contains_key(doc);
        if has_spans || self.report.as_ref().is_some_and(listed) {
            self.report = None;
        }
    }

    /// Forget the kept report (the rulings changed).
    pub(super) fn forget_report(&mut self) {
        self.report = None;
    }

    /// The report kept, if no change reached it since.
    pub(super) fn kept_report(&self) -> Option<Arc<BoilerplateReport>> {
        self.report.clone()
    }

    /// Keep `report` until a change reaches it.
    pub(super) fn keep_report(&mut self, report: Arc<BoilerplateReport>) {
        self.report = Some(report);
    }

    /// What learning at once needs besides the samples, the curator
    /// having overruled `overruled` (`None`: not learning).
    pub(super) fn at_once_inputs(&self, overruled: BTreeSet<u32>) -> Option<AtOnceInputs> {
        Some(AtOnceInputs {
            config: self.config.clone()?,
            pinned: self.pinned(),
            overruled,
        })
    }

    /// Keep what was learned at once in place of a learner: the documents
    /// it moved are queued to be fingerprinted again.
    pub(super) fn keep_learned_at_once(&mut self, learned: LearnedAtOnce) {
        self.note_moved(learned.moved());
        self.learner = Stand::AtOnce(learned);
    }

    /// Fingerprint `items` (documents read again because learning at once
    /// moved them) over their body with the spans learned. False, touching
    /// none of them and dropping what was learned, when one was not
    /// learned so (its content changed since): a learner decides then.
    pub(super) fn print_learned_at_once(
        &mut self,
        engine: &Engine,
        items: &mut [Ingested],
    ) -> bool {
        let Stand::AtOnce(learned) = &self.learner else {
            return false;
        };
        if !learned.covers(items) {
            self.learner = Stand::Unbuilt;
            return false;
        }
        learned.print(engine, items);
        true
    }

    /// What was learned at once has served (the reconcile is over).
    pub(super) fn end_at_once(&mut self) {
        if matches!(self.learner, Stand::AtOnce(_)) {
            self.learner = Stand::Unbuilt;
        }
    }

    /// Whether what was learned at once stands for the learner.
    #[cfg(test)]
    fn learned_at_once(&self) -> bool {
        matches!(self.learner, Stand::AtOnce(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collection::FileEntry;
    use crate::index::at_once::learn_unlearned;
    use doppel_core::doc::FileIdentity;
    use doppel_store::DocRecord;

    fn samples(hashes: &[u32]) -> DocSamples {
        DocSamples::from_sampled(
            hashes
                .iter()
                .enumerate()
                .map(|(i, &h)| (h, i as u32))
                .collect(),
            hashes.len() + 3,
        )
    }

    fn learning() -> IndexBoilerplate {
        IndexBoilerplate::new(Some(BoilerplateConfig::default()), None)
    }

    /// `doc` read again with `content_hash`, sampled as `hashes`.
    fn read_again(doc: &str, content_hash: u64, hashes: &[u32]) -> Ingested {
        Ingested {
            entry: FileEntry {
                bytes: 10,
                ..FileEntry::file(doc.into(), DocPath::from(doc), FileIdentity::default())
            },
            record: DocRecord::read(DocPath::from(doc), FileIdentity::default(), content_hash),
            changed: false,
            learned: Some(("a text of a few words".to_owned(), samples(hashes))),
            from_the_store: false,
        }
    }

    #[test]
    fn learning_off_builds_no_learner_and_reads_nothing() {
        let mut off = IndexBoilerplate::new(None, None);
        assert!(!off.learning());
        assert!(!off.learns_lazily());
        let built = off.learner(|| -> Result<_, ()> { panic!("read the store while off") });
        assert!(built.unwrap().is_none());
        assert!(!off.holds_learner());
        assert!(off.at_once_inputs(BTreeSet::new()).is_none());
    }

    #[test]
    fn the_learner_is_built_once_with_the_pins_and_rulings_then_dropped_and_built_again() {
        let user = UserBoilerplate {
            files: vec![(DocPath::from("notice.txt"), samples(&[5, 6]))],
        };
        let mut kept = IndexBoilerplate::new(Some(BoilerplateConfig::default()), Some(user));
        assert!(kept.learns_lazily());
        let mut reads = 0;
        let mut build = || {
            reads += 1;
            Ok::<_, ()>((
                vec![(DocPath::from("a.txt"), samples(&[1, 2]))],
                BTreeSet::from([9]),
            ))
        };
        let learner = kept.learner(&mut build).unwrap().unwrap();
        assert_eq!(learner.pinned(), BTreeSet::from([5, 6]));
        assert_eq!(*learner.overruled(), BTreeSet::from([9]));
        assert!(learner.samples(&DocPath::from("a.txt")).is_some());
        kept.learner(&mut build).unwrap();
        assert!(kept.holds_learner() && !kept.learns_lazily());
        let lent = kept.take_learner().expect("built");
        assert!(!kept.holds_learner(), "lent out, it is not held");
        kept.give_back(lent);
        assert!(kept.holds_learner());
        assert!(kept.take_learner().is_some());
        assert!(kept.take_learner().is_none());
        kept.learner(&mut build).unwrap();
        assert_eq!(reads, 2, "built once, and again once dropped");
    }

    #[test]
    fn the_report_goes_only_when_a_change_can_reach_it() {
        let mut b = learning();
        let listed = DocPath::from("listed.txt");
        let mut report = BoilerplateReport::default();
        report.documents.insert(listed.clone(), Default::default());
        let report = Arc::new(report);
        b.keep_report(report.clone());
        let kept = |b: &mut IndexBoilerplate| b.kept_report().is_some();
        b.note_report_touched(&DocPath::from("plain.txt"), false);
        b.note_moved(Vec::new());
        assert!(kept(&mut b), "no span before or after, nothing moved: kept");
        b.note_report_touched(&listed, false);
        assert!(!kept(&mut b), "a listed document changed: made again");
        b.keep_report(report.clone());
        b.note_report_touched(&DocPath::from("new.txt"), true);
        assert!(!kept(&mut b), "a document with spans arrived");
        b.keep_report(report.clone());
        b.note_moved(vec![DocPath::from("b.txt"), DocPath::from("a.txt")]);
        assert!(!kept(&mut b), "spans moved");
        b.queue([DocPath::from("c.txt")]);
        assert_eq!(
            b.moved(),
            [
                DocPath::from("a.txt"),
                DocPath::from("b.txt"),
                DocPath::from("c.txt")
            ]
        );
        assert_eq!(b.take_moved().len(), 3);
        assert!(b.none_moved());
    }

    /// Learned at once under a ruling on shingle 7: `a.txt`, holding it,
    /// keeps its text, so it is fingerprinted again.
    fn learned_at_once(b: &IndexBoilerplate) -> LearnedAtOnce {
        let inputs = b.at_once_inputs(BTreeSet::from([7])).expect("learning");
        learn_unlearned(
            vec![
                (DocPath::from("a.txt"), samples(&[7, 8]), 1),
                (DocPath::from("b.txt"), samples(&[3, 4]), 2),
            ],
            inputs,
        )
    }

    #[test]
    fn what_was_learned_at_once_prints_the_documents_it_learned_and_no_other() {
        let engine = Engine::default();
        let mut b = learning();
        let learned = learned_at_once(&b);
        b.keep_learned_at_once(learned);
        assert_eq!(b.moved(), [DocPath::from("a.txt")]);
        assert!(b.learned_at_once() && !b.holds_learner());
        let mut same = vec![read_again("a.txt", 1, &[7, 8])];
        assert!(b.print_learned_at_once(&engine, &mut same));
        assert!(same[0].learned.is_none(), "its samples went to its record");
        assert!(
            same[0].record.text.is_some(),
            "its text is kept for rulings"
        );
        assert!(b.learned_at_once(), "still stands for the learner");
        // Read again with another content: learned otherwise than here.
        let mut changed = vec![read_again("a.txt", 99, &[7, 8, 9])];
        assert!(!b.print_learned_at_once(&engine, &mut changed));
        assert!(changed[0].learned.is_some(), "left to a learner");
        assert!(!b.learned_at_once(), "a learner decides from now on");
        assert!(!b.print_learned_at_once(&engine, &mut same));
    }

    #[test]
    fn what_was_learned_at_once_serves_until_the_reconcile_is_over() {
        let mut b = learning();
        let learned = learned_at_once(&b);
        b.keep_learned_at_once(learned);
        b.end_at_once();
        assert!(!b.learned_at_once());
        assert!(b.learns_lazily());
        // Building a learner replaces it too.
        let learned = learned_at_once(&b);
        b.keep_learned_at_once(learned);
        b.learner(|| Ok::<_, ()>((Vec::new(), BTreeSet::new())))
            .unwrap();
        assert!(b.holds_learner() && !b.learned_at_once());
        b.end_at_once();
        assert!(b.holds_learner(), "a built learner outlives the reconcile");
    }
}
