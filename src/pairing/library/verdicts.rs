//! The curator's decisions as the library applies them: verdicts on pairs
//! and keeper marks, kept by path (they outlive a document leaving and
//! coming back) and, for the documents held now, by id, which the library
//! keeps current as documents arrive and leave so that judging every pair
//! looks verdicts up by id, without touching a path.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::doc::{CuratorVerdict, DocId, DocPath};

/// Curator verdicts and keepers, by path and by id.
#[derive(Debug, Clone, Default)]
pub(super) struct Verdicts {
    /// Every pair verdict under both orders of its paths, so that a
    /// document's verdicts are one range.
    by_path: BTreeMap<(DocPath, DocPath), CuratorVerdict>,
    /// The verdicts between documents held now, by ordered ids.
    by_id: HashMap<(DocId, DocId), CuratorVerdict>,
    keepers: HashSet<DocPath>,
    keeper_ids: HashSet<DocId>,
}

fn ordered(a: DocId, b: DocId) -> (DocId, DocId) {
    (a.min(b), a.max(b))
}

impl Verdicts {
    /// The verdict on two documents, by path.
    pub fn pair(&self, a: &DocPath, b: &DocPath) -> Option<CuratorVerdict> {
        self.by_path.get(&(a.clone(), b.clone())).copied()
    }

    /// The verdicts between documents held now, by ordered ids.
    pub fn by_id(&self) -> &HashMap<(DocId, DocId), CuratorVerdict> {
        &self.by_id
    }

    pub fn is_keeper(&self, path: &DocPath) -> bool {
        self.keepers.contains(path)
    }

    /// Whether the document held as `id` is a keeper.
    pub fn is_keeper_id(&self, id: DocId) -> bool {
        self.keeper_ids.contains(&id)
    }

    /// The other documents `path` has a verdict with.
    fn partners<'a>(
        &'a self,
        path: &DocPath,
    ) -> impl Iterator<Item = (&'a DocPath, CuratorVerdict)> + 'a {
        let path = path.clone();
        self.by_path
            .range((path.clone(), DocPath::default())..)
            .take_while(move |((first, _), _)| *first == path)
            .map(|((_, other), &v)| (other, v))
    }

    /// Set (or, with `None`, clear) the verdict on `a` and `b`; `id_of`
    /// finds the documents held now.
    pub fn set_pair(
        &mut self,
        a: &DocPath,
        b: &DocPath,
        verdict: Option<CuratorVerdict>,
        id_of: impl Fn(&DocPath) -> Option<DocId>,
    ) {
        let ids = id_of(a).zip(id_of(b)).map(|(x, y)| ordered(x, y));
        match verdict {
            Some(v) => {
                self.by_path.insert((a.clone(), b.clone()), v);
                self.by_path.insert((b.clone(), a.clone()), v);
                if let Some(ids) = ids {
                    self.by_id.insert(ids, v);
                }
            }
            None => {
                self.by_path.remove(&(a.clone(), b.clone()));
                self.by_path.remove(&(b.clone(), a.clone()));
                if let Some(ids) = ids {
                    self.by_id.remove(&ids);
                }
            }
        }
    }

    /// Mark (or unmark) `path` as a keeper; `id` is its document if held.
    pub fn set_keeper(&mut self, path: &DocPath, id: Option<DocId>, keeper: bool) {
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

    /// The document `path` is now held as `id`: its verdicts with held
    /// documents and its keeper mark apply by id.
    pub fn attach(&mut self, id: DocId, path: &DocPath, id_of: impl Fn(&DocPath) -> Option<DocId>) {
        if self.keepers.contains(path) {
            self.keeper_ids.insert(id);
        }
        if self.by_path.is_empty() {
            return;
        }
        let found: Vec<((DocId, DocId), CuratorVerdict)> = self
            .partners(path)
            .filter_map(|(other, v)| Some((ordered(id, id_of(other)?), v)))
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
            .filter_map(|((a, b), &v)| Some((ordered(id_of(a)?, id_of(b)?), v)))
            .collect();
        self.keeper_ids = self.keepers.iter().filter_map(&id_of).collect();
    }
}
