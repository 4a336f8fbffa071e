//! The curators' decisions as the library applies them: each curator's
//! verdict on a pair and the keeper marks, kept by path (they outlive a
//! document leaving and coming back) and, for the documents held now, by
//! id, which the library keeps current as documents arrive and leave so
//! that judging every pair looks verdicts up by id, without touching a
//! path.
//!
//! A pair's verdicts are one per curator. When they agree, that verdict
//! pins the pair; when they differ the pair is *disputed* and clustering
//! treats it as undecided (the algorithms decide) until a curator changes
//! or clears theirs: neither curator's decision silently wins.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;

use doppel_core::doc::{CuratorVerdict, DocId, DocPath};

/// One curator's current verdict on a pair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CuratorMark {
    /// Who (`""`: unknown, a verdict from before curators were recorded).
    pub curator: String,
    /// What they decided.
    pub verdict: CuratorVerdict,
    /// When (unix ns).
    pub at_ns: i64,
}

/// The verdict a pair's curators agree on; `None` when there is none or
/// they disagree.
pub fn agreed(marks: &[CuratorMark]) -> Option<CuratorVerdict> {
    let first = marks.first()?.verdict;
    marks.iter().all(|m| m.verdict == first).then_some(first)
}

/// Whether a pair's curators' verdicts differ.
pub fn disputed(marks: &[CuratorMark]) -> bool {
    marks
        .first()
        .is_some_and(|first| marks.iter().any(|m| m.verdict != first.verdict))
}

/// Curator verdicts and keepers, by path and by id.
#[derive(Debug, Clone, Default)]
pub(super) struct Verdicts {
    /// Every pair's curators' verdicts (oldest first) under both orders of
    /// its paths, so that a document's verdicts are one range.
    by_path: BTreeMap<(DocPath, DocPath), Vec<CuratorMark>>,
    /// The agreed verdicts between documents held now, by ordered ids.
    by_id: HashMap<(DocId, DocId), CuratorVerdict>,
    keepers: HashSet<DocPath>,
    keeper_ids: HashSet<DocId>,
    /// New ([`next_version`]) on every change to `by_path` or `keepers`.
    version: u64,
}

/// A version no verdicts have had: drawn from one count for every
/// library, so two libraries' verdicts never share one unless one is a
/// copy of the other.
fn next_version() -> u64 {
    static LAST: AtomicU64 = AtomicU64::new(0);
    LAST.fetch_add(1, Ordering::Relaxed) + 1
}

fn ordered(a: DocId, b: DocId) -> (DocId, DocId) {
    (a.min(b), a.max(b))
}

impl Verdicts {
    /// The verdict the curators agree on for two documents, by path.
    pub fn pair(&self, a: &DocPath, b: &DocPath) -> Option<CuratorVerdict> {
        agreed(self.marks(a, b))
    }

    /// Each curator's verdict on two documents, oldest first.
    pub fn marks(&self, a: &DocPath, b: &DocPath) -> &[CuratorMark] {
        // Asked for every cluster member of every snapshot; the key costs
        // two copies of the paths.
        if self.by_path.is_empty() {
            return &[];
        }
        self.by_path
            .get(&(a.clone(), b.clone()))
            .map_or(&[], Vec::as_slice)
    }

    /// Changes whenever the verdicts or keepers by path change.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The agreed verdicts between documents held now, by ordered ids.
    pub fn by_id(&self) -> &HashMap<(DocId, DocId), CuratorVerdict> {
        &self.by_id
    }

    pub fn is_keeper(&self, path: &DocPath) -> bool {
        !self.keepers.is_empty() && self.keepers.contains(path)
    }

    /// Whether the document held as `id` is a keeper.
    pub fn is_keeper_id(&self, id: DocId) -> bool {
        self.keeper_ids.contains(&id)
    }

    /// Every disputed pair, each once (`a < b`).
    pub fn disputed_pairs(&self) -> impl Iterator<Item = (&DocPath, &DocPath)> {
        self.by_path
            .iter()
            .filter(|((a, b), marks)| a < b && disputed(marks))
            .map(|((a, b), _)| (a, b))
    }

    /// The other documents `path` has an agreed verdict with.
    fn partners<'a>(
        &'a self,
        path: &DocPath,
    ) -> impl Iterator<Item = (&'a DocPath, Option<CuratorVerdict>)> + 'a {
        let path = path.clone();
        self.by_path
            .range((path.clone(), DocPath::default())..)
            .take_while(move |((first, _), _)| *first == path)
            .map(|((_, other), marks)| (other, agreed(marks)))
    }

    /// Set (with `Some((verdict, at_ns))`) or clear `curator`'s verdict on
    /// `a` and `b`, leaving the other curators'; `id_of` finds the
    /// documents held now.
    pub fn set_pair(
        &mut self,
        a: &DocPath,
        b: &DocPath,
        curator: &str,
        verdict: Option<(CuratorVerdict, i64)>,
        id_of: impl Fn(&DocPath) -> Option<DocId>,
    ) {
        self.version = next_version();
        let mut marks = self.marks(a, b).to_vec();
        // A verdict from before curators were recorded (`""`) is taken over
        // by the next curator who judges the pair (as the store does).
        marks.retain(|m| m.curator != curator && !m.curator.is_empty());
        if let Some((verdict, at_ns)) = verdict {
            marks.push(CuratorMark {
                curator: curator.to_owned(),
                verdict,
                at_ns,
            });
            marks.sort_by(|x, y| (x.at_ns, &x.curator).cmp(&(y.at_ns, &y.curator)));
        }
        let effective = agreed(&marks);
        if marks.is_empty() {
            self.by_path.remove(&(a.clone(), b.clone()));
            self.by_path.remove(&(b.clone(), a.clone()));
        } else {
            self.by_path.insert((a.clone(), b.clone()), marks.clone());
            self.by_path.insert((b.clone(), a.clone()), marks);
        }
        if let Some(ids) = id_of(a).zip(id_of(b)).map(|(x, y)| ordered(x, y)) {
            match effective {
                Some(v) => self.by_id.insert(ids, v),
                None => self.by_id.remove(&ids),
            };
        }
    }

    /// Forget every pair verdict (before they are read again).
    pub fn clear_pairs(&mut self) {
        self.version = next_version();
        self.by_path.clear();
        self.by_id.clear();
    }

    /// Forget every keeper mark (before they are read again).
    pub fn clear_keepers(&mut self) {
        self.version = next_version();
        self.keepers.clear();
        self.keeper_ids.clear();
    }

    /// Mark (or unmark) `path` as a keeper; `id` is its document if held.
    pub fn set_keeper(&mut self, path: &DocPath, id: Option<DocId>, keeper: bool) {
        self.version = next_version();
        if keeper {
            self.keepers.insert(path.clone());
            self.keeper_ids.extend(id);
        } else {
            self.keepers.remove(path);
            if let Some(id) = id {
                self.keeper_ids.remove(&id);
            }
        }
    }

    /// The document `path` is now held as `id`: its agreed verdicts with
    /// held documents and its keeper mark apply by id.
    pub fn attach(&mut self, id: DocId, path: &DocPath, id_of: impl Fn(&DocPath) -> Option<DocId>) {
        if self.keepers.contains(path) {
            self.keeper_ids.insert(id);
        }
        if self.by_path.is_empty() {
            return;
        }
        let found: Vec<((DocId, DocId), CuratorVerdict)> = self
            .partners(path)
            .filter_map(|(other, v)| Some((ordered(id, id_of(other)?), v?)))
            .collect();
        self.by_id.extend(found);
    }

    /// The document `path` held as `id` leaves (its verdicts stay by path).
    pub fn detach(&mut self, id: DocId, path: &DocPath, id_of: impl Fn(&DocPath) -> Option<DocId>) {
        self.keeper_ids.remove(&id);
        if self.by_path.is_empty() {
            return;
        }
        let gone: Vec<(DocId, DocId)> = self
            .partners(path)
            .filter_map(|(other, _)| Some(ordered(id, id_of(other)?)))
            .collect();
        for ids in gone {
            self.by_id.remove(&ids);
        }
    }

    /// Every document got a new id: work out the by-id views again.
    pub fn reindex(&mut self, id_of: impl Fn(&DocPath) -> Option<DocId>) {
        self.by_id = self
            .by_path
            .iter()
            .filter_map(|((a, b), marks)| Some((ordered(id_of(a)?, id_of(b)?), agreed(marks)?)))
            .collect();
        self.keeper_ids = self.keepers.iter().filter_map(&id_of).collect();
    }
}
