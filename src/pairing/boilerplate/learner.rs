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

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::hash::Hash;

use super::runs::{anchors, candidate_runs, holds, remainder, run_hashes, spans};
use super::{BoilerplateConfig, DocSamples, Learned, Span};
use crate::hash::HashKeyed32;
use crate::pairing::cluster::UnionFind;

type DocId = u32;

/// The label of documents without candidate runs (in no group).
const NO_GROUP: u32 = u32::MAX;
/// The label of the group of documents without a substantial remainder.
const COPIES: u32 = u32::MAX - 1;

#[derive(Debug, Clone)]
struct Doc<K> {
    key: K,
    samples: DocSamples,
    /// Distinct sampled hashes, sorted.
    distinct: Vec<u32>,
    /// Distinct hashes of the candidate runs, sorted (empty: no runs).
    cand: Vec<u32>,
    /// Samples in the remainder.
    remainder: usize,
    /// The remainder's anchors (substantial remainders only).
    anchors: Vec<u32>,
    /// Documents holding the remainder (substantial remainders only).
    holders: Vec<DocId>,
    spans: Vec<Span>,
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
    postings: HashKeyed32<Vec<DocId>>,
    /// Anchor hash → documents with it among their remainder's anchors.
    anchor_postings: HashKeyed32<Vec<DocId>>,
    /// Group label per document ([`NO_GROUP`] without candidate runs).
    labels: Vec<u32>,
    /// Learned boilerplate shingles.
    learned: HashSet<u32>,
    /// The user's boilerplate files by key, and how many hold each hash.
    pinned_docs: BTreeMap<K, Vec<u32>>,
    pinned: HashKeyed32<u32>,
    overruled: BTreeSet<u32>,
}

fn remove_id(list: &mut Vec<DocId>, id: DocId) {
    if let Some(i) = list.iter().position(|&d| d == id) {
        list.swap_remove(i);
    }
}

impl<K: Ord + Clone + Hash> Learner<K> {
    pub fn new(config: BoilerplateConfig) -> Self {
        Self {
            config,
            ids: HashMap::new(),
            docs: Vec::new(),
            free: Vec::new(),
            postings: HashKeyed32::default(),
            anchor_postings: HashKeyed32::default(),
            labels: Vec::new(),
            learned: HashSet::new(),
            pinned_docs: BTreeMap::new(),
            pinned: HashKeyed32::default(),
            overruled: BTreeSet::new(),
        }
    }

    pub fn config(&self) -> &BoilerplateConfig {
        &self.config
    }

    /// Documents held.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

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

    /// Documents holding `hash` among their samples.
    pub fn document_frequency(&self, hash: u32) -> usize {
        self.postings.get(&hash).map_or(0, Vec::len)
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
        let mut touched: HashKeyed32<usize> = HashKeyed32::default();
        let mut recount: HashSet<u32> = HashSet::new();
        let add_keys: HashSet<K> = adds.iter().map(|(k, _)| k.clone()).collect();
        for key in removes.iter().chain(adds.iter().map(|(k, _)| k)) {
            let Some(id) = self.ids.remove(key) else {
                continue;
            };
            let doc = self.docs[id as usize].take().expect("a known id");
            for &h in &doc.distinct {
                let list = self.postings.get_mut(&h).expect("posted");
                touched.entry(h).or_insert(list.len());
                remove_id(list, id);
                if list.is_empty() {
                    self.postings.remove(&h);
                }
            }
            self.unpost_anchors(id, &doc.anchors);
            recount.extend(&doc.cand);
            self.labels[id as usize] = NO_GROUP;
            self.free.push(id);
        }
        let mut dirty: BTreeSet<DocId> = BTreeSet::new();
        let mut added: Vec<DocId> = Vec::new();
        for (key, samples) in adds {
            let id = self.free.pop().unwrap_or_else(|| {
                self.docs.push(None);
                self.labels.push(NO_GROUP);
                (self.docs.len() - 1) as DocId
            });
            let distinct = samples.distinct();
            for &h in &distinct {
                let list = self.postings.entry(h).or_default();
                touched.entry(h).or_insert(list.len());
                list.push(id);
            }
            self.ids.insert(key.clone(), id);
            self.docs[id as usize] = Some(Doc {
                key,
                samples,
                distinct,
                cand: Vec::new(),
                remainder: 0,
                anchors: Vec::new(),
                holders: Vec::new(),
                spans: Vec::new(),
            });
            dirty.insert(id);
            added.push(id);
        }

        // 1–2: documents holding a shingle whose frequency crossed min_docs.
        let m = self.config.min_docs;
        for (&h, &before) in &touched {
            let now = self.document_frequency(h);
            if (before >= m) != (now >= m) {
                dirty.extend(self.postings.get(&h).into_iter().flatten());
            }
        }
        let mut reholders: BTreeSet<DocId> = BTreeSet::new();
        for &id in &dirty {
            let (old_cand, new_cand) = self.recompute_candidates(id);
            if old_cand != new_cand || added.contains(&id) {
                recount.extend(old_cand);
                recount.extend(new_cand);
            }
            reholders.insert(id);
        }
        // Documents with an anchor held by a document that came or went.
        for h in touched.keys() {
            reholders.extend(self.anchor_postings.get(h).into_iter().flatten());
        }
        for &id in &reholders {
            self.recompute_holders(id);
        }

        // 3: groups, and the shingles whose holders' labels changed.
        for id in self.relabel() {
            let doc = self.docs[id as usize]
                .as_ref()
                .expect("labelled docs exist");
            recount.extend(&doc.cand);
        }

        // 4: group counts; 5: spans where a status flipped.
        let mut respan: BTreeSet<DocId> = dirty;
        for h in recount {
            let now = self.is_learned_now(h);
            if now != self.learned.contains(&h) {
                if now {
                    self.learned.insert(h);
                } else {
                    self.learned.remove(&h);
                }
                respan.extend(self.postings.get(&h).into_iter().flatten());
            }
        }
        let mut changed = self.respan(respan);
        changed.retain(|k| !add_keys.contains(k));
        changed
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
        self.respan_holders_of(flipped)
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
        self.respan_holders_of(flipped)
    }

    pub fn overruled(&self) -> &BTreeSet<u32> {
        &self.overruled
    }

    /// The pinned hashes, sorted.
    pub fn pinned(&self) -> BTreeSet<u32> {
        self.pinned.keys().copied().collect()
    }

    fn respan_holders_of(&mut self, hashes: Vec<u32>) -> Vec<K> {
        let mut ids = BTreeSet::new();
        for h in hashes {
            ids.extend(self.postings.get(&h).into_iter().flatten());
        }
        self.respan(ids)
    }

    /// Recompute the spans of `ids`; the keys of those that changed, sorted.
    fn respan(&mut self, ids: BTreeSet<DocId>) -> Vec<K> {
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

    /// Steps 1–2 for one document: its candidate runs, remainder and
    /// anchors. Returns its candidate hashes before and after.
    fn recompute_candidates(&mut self, id: DocId) -> (Vec<u32>, Vec<u32>) {
        let config = &self.config;
        let postings = &self.postings;
        let doc = self.docs[id as usize].as_ref().expect("live doc");
        let df = |h: u32| postings.get(&h).map_or(0, Vec::len);
        let runs = candidate_runs(&doc.samples.samples, config, |h| df(h) >= config.min_docs);
        let cand = run_hashes(&doc.samples.samples, &runs);
        let rem = if runs.is_empty() {
            Vec::new()
        } else {
            remainder(&doc.samples.samples, &runs, config.min_stretch)
        };
        let new_anchors = if rem.len() >= config.min_remainder {
            anchors(&rem, config.anchors)
        } else {
            Vec::new()
        };
        let old_anchors =
            std::mem::take(&mut self.docs[id as usize].as_mut().expect("live").anchors);
        self.unpost_anchors(id, &old_anchors);
        for &a in &new_anchors {
            self.anchor_postings.entry(a).or_default().push(id);
        }
        let doc = self.docs[id as usize].as_mut().expect("live doc");
        doc.anchors = new_anchors;
        doc.remainder = rem.len();
        let old = std::mem::replace(&mut doc.cand, cand.clone());
        (old, cand)
    }

    fn unpost_anchors(&mut self, id: DocId, anchors: &[u32]) {
        for a in anchors {
            if let Some(list) = self.anchor_postings.get_mut(a) {
                remove_id(list, id);
                if list.is_empty() {
                    self.anchor_postings.remove(a);
                }
            }
        }
    }

    /// The documents (any, with or without runs) holding `id`'s remainder.
    fn recompute_holders(&mut self, id: DocId) {
        let Some(doc) = self.docs[id as usize].as_ref() else {
            return;
        };
        let mut shared: HashMap<DocId, usize> = HashMap::new();
        for a in &doc.anchors {
            for &j in self.postings.get(a).into_iter().flatten() {
                *shared.entry(j).or_default() += 1;
            }
        }
        let k = doc.anchors.len();
        let mut holders: Vec<DocId> = shared
            .into_iter()
            .filter(|&(j, count)| j != id && holds(count, k, self.config.related))
            .map(|(j, _)| j)
            .collect();
        holders.sort_unstable();
        self.docs[id as usize].as_mut().expect("live").holders = holders;
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
            if doc.remainder < self.config.min_remainder {
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
        let Some(list) = self.postings.get(&h) else {
            return false;
        };
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
