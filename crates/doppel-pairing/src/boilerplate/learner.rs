//! [`Learner`]: the decision kept up to date as documents arrive, change
//! and leave, recomputing only what a change can reach, and naming the
//! documents whose boilerplate spans moved (they need fingerprinting and
//! verifying again).
//!
//! What depends on what (module docs' steps): a document's candidate runs
//! on whether its shingles are frequent, so they are recomputed only for
//! the documents holding a shingle whose frequency crossed `min_docs`; a
//! document's holders (the documents holding its remainder) on its anchors
//! and on the documents sharing an anchor, found through the anchors'
//! postings; the groups are connected components, rebuilt (a union-find
//! pass over the documents with candidate runs) and labelled by their
//! smallest member, so a group that merged or split shows as changed
//! labels; a shingle's group count only where its holders or their labels
//! changed; spans only where a shingle's status flipped.
//!
//! Where there is little to learn (4 KB texts, most shingles in one
//! document) the cost is per sample, so a batch's shingles are posted in
//! one sorted merge per postings shard, the counts the merge gives settle
//! the candidate runs of arriving documents without a lookup (most hold no
//! frequent shingle), and a document that crossing shingles reach is
//! looked at once for all of them.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::hash::Hash;

use super::postings::{first_not_below, DocId, Postings, SampleMap, SampleSet};
use super::runs::{anchors, candidate_runs, holds, run_hashes, spans, substantial_remainder};
use super::{BoilerplateConfig, DocSamples, Learned, Span};
use crate::cluster::UnionFind;

/// The label of documents without candidate runs (in no group).
const NO_GROUP: u32 = u32::MAX;
/// The label of the group of documents without a substantial remainder.
const COPIES: u32 = u32::MAX - 1;

#[derive(Debug, Clone)]
struct Doc<K> {
    key: K,
    samples: DocSamples,
    /// Distinct hashes of the candidate runs, sorted (empty: no runs).
    cand: Vec<u32>,
    /// Whether the remainder is a body of its own.
    substantial: bool,
    /// The remainder's anchors (substantial remainders only).
    anchors: Vec<u32>,
    /// Documents holding the remainder (substantial remainders only).
    holders: Vec<DocId>,
    spans: Vec<Span>,
}

/// Documents waiting to be added as one batch ([`Learner::add_batched`]).
#[derive(Debug)]
pub struct Batches<K> {
    docs: Vec<(K, DocSamples)>,
    /// Their samples.
    samples: usize,
}

impl<K> Default for Batches<K> {
    fn default() -> Self {
        Batches {
            docs: Vec::new(),
            samples: 0,
        }
    }
}

/// The incremental learner (module docs). Documents are keyed by `K` (a
/// path); everything it reports is by key and independent of the order
/// documents came in.
#[derive(Debug, Clone)]
pub struct Learner<K> {
    config: BoilerplateConfig,
    ids: HashMap<K, DocId>,
    docs: Vec<Option<Doc<K>>>,
    free: Vec<DocId>,
    /// Sampled hash → documents holding it (its document frequency).
    postings: Postings,
    /// Anchor hash → documents with it among their remainder's anchors.
    anchor_postings: Postings,
    /// Group label per document ([`NO_GROUP`] without candidate runs).
    labels: Vec<u32>,
    /// Learned boilerplate shingles.
    learned: SampleSet,
    /// The user's boilerplate files by key, and how many hold each hash.
    pinned_docs: BTreeMap<K, Vec<u32>>,
    pinned: SampleMap<u32>,
    overruled: BTreeSet<u32>,
}

impl<K: Ord + Clone + Hash> Learner<K> {
    /// Documents [`Learner::add_in_batches`] takes at a time ...
    pub const BATCH_DOCUMENTS: usize = 512;
    /// ... and samples.
    pub const BATCH_SAMPLES: usize = 64 * 1024;

    /// A learner holding no document yet.
    pub fn new(config: BoilerplateConfig) -> Self {
        Self {
            config,
            ids: HashMap::new(),
            docs: Vec::new(),
            free: Vec::new(),
            postings: Postings::default(),
            anchor_postings: Postings::default(),
            labels: Vec::new(),
            learned: SampleSet::default(),
            pinned_docs: BTreeMap::new(),
            pinned: SampleMap::default(),
            overruled: BTreeSet::new(),
        }
    }

    /// The parameters it decides with.
    pub fn config(&self) -> &BoilerplateConfig {
        &self.config
    }

    /// Documents held.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// It holds no document.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// A document's boilerplate spans (empty when it has none or is unknown).
    pub fn spans(&self, key: &K) -> &[Span] {
        self.ids
            .get(key)
            .and_then(|&id| self.docs[id as usize].as_ref())
            .map_or(&[], |d| &d.spans)
    }

    /// A document's samples, as it was given them.
    pub fn samples(&self, key: &K) -> Option<&DocSamples> {
        self.ids
            .get(key)
            .and_then(|&id| self.docs[id as usize].as_ref())
            .map(|d| &d.samples)
    }

    /// Documents holding `hash` among their samples.
    pub fn document_frequency(&self, hash: u32) -> usize {
        self.postings.len(hash)
    }

    /// Whether `hash` is boilerplate now (learned and not overruled, or pinned).
    pub fn is_boilerplate(&self, hash: u32) -> bool {
        self.effective(hash)
    }

    fn effective(&self, hash: u32) -> bool {
        (self.learned.contains(&hash) && !self.overruled.contains(&hash))
            || self.pinned.contains_key(&hash)
    }

    /// Every document with its samples and spans, by key.
    pub fn documents(&self) -> impl Iterator<Item = (&K, &DocSamples, &[Span])> {
        self.docs
            .iter()
            .flatten()
            .map(|d| (&d.key, &d.samples, d.spans.as_slice()))
    }

    /// Approximate heap bytes: (the samples and postings, which the
    /// library has in its store and candidate table, and the rest, which
    /// only this learner keeps).
    pub fn heap_bytes(&self) -> (usize, usize) {
        let shared = self.postings.heap_bytes()
            + self
                .docs
                .iter()
                .flatten()
                .map(|d| d.samples.samples.capacity() * 8)
                .sum::<usize>();
        let own = self.anchor_postings.heap_bytes()
            + self.docs.capacity() * std::mem::size_of::<Option<Doc<K>>>()
            + self.labels.capacity() * 4
            + self.learned.capacity() * 5
            + self
                .docs
                .iter()
                .flatten()
                .map(|d| {
                    (d.cand.capacity() + d.anchors.capacity() + d.holders.capacity()) * 4
                        + d.spans.capacity() * 8
                })
                .sum::<usize>();
        (shared, own)
    }

    /// The learned passages now ([`super::passages`]).
    pub fn passages(&self) -> Vec<super::Passage<K>> {
        super::passages(self.documents(), |h| self.effective(h))
    }

    /// The state by key, as [`super::learn`] gives it.
    pub fn snapshot(&self) -> Learned<K> {
        let mut learned: Vec<u32> = self.learned.iter().copied().collect();
        learned.sort_unstable();
        let spans = self
            .docs
            .iter()
            .flatten()
            .filter(|d| !d.spans.is_empty())
            .map(|d| (d.key.clone(), d.spans.clone()))
            .collect();
        Learned { learned, spans }
    }

    /// Add many documents (a scan's, or a stored index's when it is
    /// loaded) in batches of [`Learner::BATCH_DOCUMENTS`] documents or
    /// [`Learner::BATCH_SAMPLES`] samples: an update's bookkeeping grows
    /// with its samples (512 whole books are ~5 million), and batches learn
    /// exactly what one update would.
    pub fn add_in_batches(&mut self, docs: impl IntoIterator<Item = (K, DocSamples)>) {
        let mut batches = Batches::default();
        for (key, samples) in docs {
            self.add_batched(&mut batches, key, samples);
        }
        self.finish_batches(batches);
    }

    /// [`Learner::add_in_batches`] a document at a time, as documents come
    /// (a scan feeds its reading's in order): added to `batches`, which is
    /// applied once full; [`Learner::finish_batches`] applies the rest. The
    /// same documents in the same order make the same batches.
    pub fn add_batched(&mut self, batches: &mut Batches<K>, key: K, samples: DocSamples) {
        batches.samples += samples.samples.len();
        batches.docs.push((key, samples));
        if batches.docs.len() == Self::BATCH_DOCUMENTS || batches.samples >= Self::BATCH_SAMPLES {
            self.update(std::mem::take(&mut batches.docs), Vec::new());
            batches.samples = 0;
        }
    }

    /// Apply what `batches` still holds ([`Learner::add_batched`]).
    pub fn finish_batches(&mut self, batches: Batches<K>) {
        self.update(batches.docs, Vec::new());
    }

    /// Add or replace one document; see [`Learner::update`].
    pub fn insert(&mut self, key: K, doc: DocSamples) -> Vec<K> {
        self.update(vec![(key, doc)], Vec::new())
    }

    /// Remove one document; see [`Learner::update`].
    pub fn remove(&mut self, key: &K) -> Vec<K> {
        self.update(Vec::new(), vec![key.clone()])
    }

    /// Apply a batch: `adds` (new documents, or new versions of known
    /// ones) and `removes`. Returns the keys of documents present before
    /// and after whose spans changed (sorted); the documents in `adds` are
    /// not listed (their spans are in [`Learner::spans`]).
    pub fn update(&mut self, adds: Vec<(K, DocSamples)>, removes: Vec<K>) -> Vec<K> {
        // Each touched shingle's document frequency before and after the
        // removes (u32: a batch of whole books touches millions).
        let mut removed: SampleMap<(u32, u32)> = SampleMap::default();
        let mut recount = SampleSet::default();
        // Whether the group graph (documents with runs, their remainders'
        // substance and holders) changed; regrouping is skipped otherwise.
        let mut regroup = false;
        let add_keys: HashSet<K> = adds.iter().map(|(k, _)| k.clone()).collect();
        for key in removes.iter().chain(adds.iter().map(|(k, _)| k)) {
            let Some(id) = self.ids.remove(key) else {
                continue;
            };
            let doc = self.docs[id as usize].take().expect("a known id");
            for h in doc.samples.distinct() {
                let now = self.postings.remove(h, id) as u32;
                removed.entry(h).or_insert((now + 1, 0)).1 = now;
            }
            for &a in &doc.anchors {
                self.anchor_postings.remove(a, id);
            }
            regroup |= !doc.cand.is_empty();
            recount.extend(&doc.cand);
            self.labels[id as usize] = NO_GROUP;
            self.free.push(id);
        }
        let mut dirty: BTreeSet<DocId> = BTreeSet::new();
        let mut added: Vec<DocId> = Vec::with_capacity(adds.len());
        // `hash << 32 | arrival` (the document's place in the batch).
        let mut keyed: Vec<u64> = Vec::new();
        for (key, samples) in adds {
            let id = self.free.pop().unwrap_or_else(|| {
                self.docs.push(None);
                self.labels.push(NO_GROUP);
                (self.docs.len() - 1) as DocId
            });
            let arrival = added.len() as u64;
            keyed.extend(
                samples
                    .samples
                    .iter()
                    .map(|s| u64::from(s.hash) << 32 | arrival),
            );
            self.ids.insert(key.clone(), id);
            self.docs[id as usize] = Some(Doc {
                key,
                samples,
                cand: Vec::new(),
                substantial: false,
                anchors: Vec::new(),
                holders: Vec::new(),
                spans: Vec::new(),
            });
            dirty.insert(id);
            added.push(id);
        }
        // Posted in one sorted batch: one sort orders it by hash and a
        // hash's documents in the order they came, as posting them one at
        // a time would, and brings a document's repeated hashes together.
        doppel_core::hash::sort_hashes(&mut keyed);
        keyed.dedup();
        let pairs: Vec<(u32, DocId)> = keyed
            .into_iter()
            .map(|v| ((v >> 32) as u32, added[v as u32 as usize]))
            .collect();
        let posted = self.postings.insert_sorted(&pairs);

        // Each touched shingle's document frequency before and after the
        // batch, and each added document's frequent hashes (sorted), from
        // the counts the batch gave: most documents have none, and their
        // candidate runs are settled without a lookup.
        let m = self.config.min_docs;
        let mut touched: Vec<(u32, u32, u32)> = Vec::with_capacity(posted.len() + removed.len());
        let mut frequent_in_added: Vec<(DocId, u32)> = Vec::new();
        let mut at = 0;
        for (hash, before_adds) in posted {
            let len = pairs[at..]
                .iter()
                .position(|p| p.0 != hash)
                .unwrap_or(pairs.len() - at);
            let after = before_adds + len as u32;
            if after as usize >= m {
                frequent_in_added.extend(pairs[at..at + len].iter().map(|&(h, id)| (id, h)));
            }
            // Most batches remove nothing: no probe then.
            let before = if removed.is_empty() {
                before_adds
            } else {
                removed.remove(&hash).map_or(before_adds, |(b, _)| b)
            };
            touched.push((hash, before, after));
            at += len;
        }
        // Sorted by hash up to here.
        let posted_len = touched.len();
        touched.extend(removed.into_iter().map(|(h, (b, a))| (h, b, a)));
        frequent_in_added.sort_unstable();

        // 1–2: documents whose runs a shingle crossing min_docs changes.
        let mut crossings: Vec<(DocId, u32, bool)> = Vec::new();
        for &(h, before, after) in &touched {
            let now = after as usize >= m;
            if (before as usize >= m) != now {
                crossings.extend(
                    self.postings
                        .get(h)
                        .iter()
                        .filter(|id| !dirty.contains(id))
                        .map(|&id| (id, h, now)),
                );
            }
        }
        crossings.sort_unstable();
        for of_one in crossings.chunk_by(|a, b| a.0 == b.0) {
            if self.runs_change(of_one) {
                dirty.insert(of_one[0].0);
            }
        }
        let mut reholders: BTreeSet<DocId> = BTreeSet::new();
        let added_set: HashSet<DocId> = added.iter().copied().collect();
        let mut frequent_of: HashMap<DocId, &[(DocId, u32)]> = frequent_in_added
            .chunk_by(|a, b| a.0 == b.0)
            .map(|of_one| (of_one[0].0, of_one))
            .collect();
        for &id in &dirty {
            let before = self.node_state(id);
            let found = match added_set.contains(&id) {
                true => {
                    let frequent = frequent_of.remove(&id).unwrap_or_default();
                    self.candidates_of(id, |h| frequent.binary_search_by_key(&h, |p| p.1).is_ok())
                }
                false => self.candidates_of(id, |h| self.postings.len(h) >= m),
            };
            let (old_cand, new_cand) = self.set_candidates(id, found);
            regroup |= self.node_state(id) != before;
            if old_cand != new_cand || added_set.contains(&id) {
                recount.extend(old_cand);
                recount.extend(new_cand);
            }
            reholders.insert(id);
        }
        // Documents with an anchor held by a document that came or went:
        // the anchors and the touched hashes met in hash order (a lookup
        // per touched hash, tens of thousands a batch, cost more).
        if !self.anchor_postings.is_empty() {
            let mut hashes: Vec<u32> = touched.iter().map(|t| t.0).collect();
            if touched.len() > posted_len {
                hashes.sort_unstable();
            }
            let mut at = 0;
            for (anchor, ids) in self.anchor_postings.iter() {
                at = first_not_below(&hashes, at, anchor);
                match hashes.get(at) {
                    None => break,
                    Some(&h) if h == anchor => reholders.extend(ids),
                    Some(_) => {}
                }
            }
        }
        for &id in &reholders {
            regroup |= self.recompute_holders(id);
        }

        // 3: groups, and the shingles whose holders' labels changed.
        if regroup {
            for id in self.relabel() {
                let doc = self.docs[id as usize]
                    .as_ref()
                    .expect("labelled docs exist");
                recount.extend(&doc.cand);
            }
        }

        // 4: group counts; 5: spans where a status flipped.
        let mut stale_spans: BTreeSet<DocId> = dirty;
        for h in recount {
            let now = self.is_learned_now(h);
            if now != self.learned.contains(&h) {
                if now {
                    self.learned.insert(h);
                } else {
                    self.learned.remove(&h);
                }
                stale_spans.extend(self.postings.get(h));
            }
        }
        let mut changed = self.recompute_spans(stale_spans);
        changed.retain(|k| !add_keys.contains(k));
        changed
    }

    /// Whether the shingles crossing `min_docs` in one document (`(id,
    /// hash, frequent now)`, sorted) change its candidate runs: one that is
    /// no longer frequent, if it was in one; one that now is, if the run of
    /// frequent samples around it is long enough (the common case, a
    /// frequent phrase among rare ones, is settled by looking at its
    /// neighbours only). Each sample is looked at once at most: a run
    /// checked for one crossing shingle is skipped for the next.
    fn runs_change(&self, crossings: &[(DocId, u32, bool)]) -> bool {
        let doc = self.docs[crossings[0].0 as usize]
            .as_ref()
            .expect("live doc");
        let mut up: Vec<u32> = Vec::with_capacity(crossings.len());
        for &(_, h, now) in crossings {
            if !now && doc.cand.binary_search(&h).is_ok() {
                return true;
            }
            if now {
                up.push(h);
            }
        }
        if up.is_empty() {
            return false;
        }
        let s = &doc.samples.samples;
        let frequent = |i: usize| self.postings.len(s[i].hash) >= self.config.min_docs;
        // A bit per crossing hash's low six bits: most samples are told
        // apart from the (few) crossing hashes without a search.
        let maybe_up: u64 = up.iter().fold(0, |bits, &h| bits | 1 << (h & 63));
        let mut i = 0;
        while i < s.len() {
            if maybe_up & 1 << (s[i].hash & 63) == 0 || up.binary_search(&s[i].hash).is_err() {
                i += 1;
                continue;
            }
            let mut from = i;
            while from > 0 && frequent(from - 1) {
                from -= 1;
            }
            let mut to = i + 1;
            while to < s.len() && frequent(to) {
                to += 1;
            }
            if s[to - 1].word + self.config.shingle_words - s[from].word >= self.config.min_words {
                return true;
            }
            // s[to] is not frequent (or past the end): the next run starts after it.
            i = to + 1;
        }
        false
    }

    /// What the group graph sees of a document: whether it has runs, and
    /// whether its remainder is substantial.
    fn node_state(&self, id: DocId) -> (bool, bool) {
        let doc = self.docs[id as usize].as_ref().expect("live doc");
        (!doc.cand.is_empty(), doc.substantial)
    }

    /// Pin a user-named boilerplate file (`Some`) or unpin it (`None`): its
    /// shingles are boilerplate whatever the counts. Returns the documents
    /// whose spans changed.
    pub fn set_pinned(&mut self, key: K, doc: Option<DocSamples>) -> Vec<K> {
        let mut flipped: Vec<u32> = Vec::new();
        if let Some(old) = self.pinned_docs.remove(&key) {
            for h in old {
                let count = self.pinned.get_mut(&h).expect("pinned");
                *count -= 1;
                if *count == 0 {
                    self.pinned.remove(&h);
                    flipped.push(h);
                }
            }
        }
        if let Some(doc) = doc {
            let distinct = doc.distinct();
            for &h in &distinct {
                let count = self.pinned.entry(h).or_insert(0);
                *count += 1;
                if *count == 1 {
                    flipped.push(h);
                }
            }
            self.pinned_docs.insert(key, distinct);
        }
        self.recompute_spans_of_holders(flipped)
    }

    /// The curator's "not boilerplate": these shingles (a passage's, see
    /// [`super::Passage::hashes`]) are never learned boilerplate. Replaces
    /// the previous set; returns the documents whose spans changed.
    pub fn set_overruled(&mut self, overruled: BTreeSet<u32>) -> Vec<K> {
        let flipped: Vec<u32> = self
            .overruled
            .symmetric_difference(&overruled)
            .copied()
            .collect();
        self.overruled = overruled;
        self.recompute_spans_of_holders(flipped)
    }

    /// Hashes the user ruled are not boilerplate, whatever their counts.
    pub fn overruled(&self) -> &BTreeSet<u32> {
        &self.overruled
    }

    /// The pinned hashes, sorted.
    pub fn pinned(&self) -> BTreeSet<u32> {
        self.pinned.keys().copied().collect()
    }

    fn recompute_spans_of_holders(&mut self, hashes: Vec<u32>) -> Vec<K> {
        let mut ids = BTreeSet::new();
        for h in hashes {
            ids.extend(self.postings.get(h));
        }
        self.recompute_spans(ids)
    }

    /// Recompute the spans of `ids`; the keys of those that changed, sorted.
    fn recompute_spans(&mut self, ids: BTreeSet<DocId>) -> Vec<K> {
        let mut changed = Vec::new();
        for id in ids {
            let doc = self.docs[id as usize].as_ref().expect("live doc");
            let new = spans(
                &doc.samples,
                &self.config,
                |h| self.learned.contains(&h) && !self.overruled.contains(&h),
                |h| self.pinned.contains_key(&h),
            );
            let doc = self.docs[id as usize].as_mut().expect("live doc");
            if new != doc.spans {
                doc.spans = new;
                changed.push(doc.key.clone());
            }
        }
        changed.sort();
        changed
    }

    /// Steps 1–2 for one document, whose `frequent` shingles are those in
    /// at least `min_docs` documents now: its candidate hashes, and its
    /// remainder's anchors when the remainder is substantial.
    fn candidates_of(
        &self,
        id: DocId,
        frequent: impl Fn(u32) -> bool,
    ) -> (Vec<u32>, Option<Vec<u32>>) {
        let config = &self.config;
        let doc = self.docs[id as usize].as_ref().expect("live doc");
        let runs = candidate_runs(&doc.samples.samples, config, frequent);
        if runs.is_empty() {
            return (Vec::new(), None);
        }
        let cand = run_hashes(&doc.samples.samples, &runs);
        let rem = substantial_remainder(&doc.samples.samples, &runs, config);
        (cand, rem.map(|r| anchors(&r, config.anchors)))
    }

    /// Keep what [`Learner::candidates_of`] found of `id`. Returns its
    /// candidate hashes before and after.
    fn set_candidates(
        &mut self,
        id: DocId,
        (cand, new_anchors): (Vec<u32>, Option<Vec<u32>>),
    ) -> (Vec<u32>, Vec<u32>) {
        let doc = self.docs[id as usize].as_mut().expect("live doc");
        for &a in &doc.anchors {
            self.anchor_postings.remove(a, id);
        }
        doc.substantial = new_anchors.is_some();
        let new_anchors = new_anchors.unwrap_or_default();
        for &a in &new_anchors {
            self.anchor_postings.insert(a, id);
        }
        doc.anchors = new_anchors;
        let old = std::mem::replace(&mut doc.cand, cand.clone());
        (old, cand)
    }

    /// The documents (any, with or without runs) holding `id`'s remainder;
    /// whether they changed.
    fn recompute_holders(&mut self, id: DocId) -> bool {
        let Some(doc) = self.docs[id as usize].as_ref() else {
            return false;
        };
        // Each document as often as it holds an anchor: sorted, a run per
        // document is its count (a table per document cost more).
        let mut sharing: Vec<DocId> = Vec::new();
        for &a in &doc.anchors {
            sharing.extend_from_slice(self.postings.get(a));
        }
        sharing.sort_unstable();
        let k = doc.anchors.len();
        let holders: Vec<DocId> = sharing
            .chunk_by(|a, b| a == b)
            .filter(|run| run[0] != id && holds(run.len(), k, self.config.related))
            .map(|run| run[0])
            .collect();
        let doc = self.docs[id as usize].as_mut().expect("live");
        let changed = doc.holders != holders;
        doc.holders = holders;
        changed
    }

    /// Step 3: rebuild the groups over the documents with candidate runs
    /// and label each by its smallest member ([`COPIES`] for the group of
    /// copies). Returns the documents whose label changed.
    fn relabel(&mut self) -> Vec<DocId> {
        let n = self.docs.len();
        let copies = n;
        let mut groups = UnionFind::new(n + 1);
        let with_runs = |d: &Option<Doc<K>>| d.as_ref().is_some_and(|d| !d.cand.is_empty());
        for (i, doc) in self.docs.iter().enumerate() {
            let Some(doc) = doc.as_ref().filter(|d| !d.cand.is_empty()) else {
                continue;
            };
            if !doc.substantial {
                groups.union(i, copies);
                continue;
            }
            for &j in &doc.holders {
                if with_runs(&self.docs[j as usize]) {
                    groups.union(i, j as usize);
                }
            }
        }
        let copies_root = groups.find(copies);
        let mut smallest: HashMap<usize, u32> = HashMap::new();
        let mut roots = vec![usize::MAX; n];
        for (i, doc) in self.docs.iter().enumerate() {
            if with_runs(doc) {
                let r = groups.find(i);
                roots[i] = r;
                smallest.entry(r).or_insert(i as u32);
            }
        }
        let mut changed = Vec::new();
        for (i, &r) in roots.iter().enumerate() {
            let label = match r {
                usize::MAX => NO_GROUP,
                r if r == copies_root => COPIES,
                r => smallest[&r],
            };
            if self.labels[i] != label {
                self.labels[i] = label;
                if label != NO_GROUP {
                    changed.push(i as DocId);
                }
            }
        }
        changed
    }

    /// Step 4 for one shingle: whether the documents holding it in a
    /// candidate run fall into at least `min_groups` groups.
    fn is_learned_now(&self, h: u32) -> bool {
        let list = self.postings.get(h);
        if list.len() < self.config.min_docs {
            return false;
        }
        let mut seen: Vec<u32> = Vec::with_capacity(self.config.min_groups);
        for &j in list {
            let label = self.labels[j as usize];
            if label == NO_GROUP || seen.contains(&label) {
                continue;
            }
            let doc = self.docs[j as usize].as_ref().expect("posted docs live");
            if doc.cand.binary_search(&h).is_ok() {
                seen.push(label);
                if seen.len() >= self.config.min_groups {
                    return true;
                }
            }
        }
        false
    }
}
