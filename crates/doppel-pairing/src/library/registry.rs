//! The library's documents: each one's [`DocInfo`] under a dense [`DocId`]
//! (freed ids are reused), found by path through [`PathLookup`], and the
//! order they first arrived in.

use doppel_core::doc::{DocId, DocPath};
use doppel_core::engine::ResidentPrints;

use crate::keeper::KeeperFacts;

/// One document of a library.
#[derive(Debug, Clone)]
pub struct DocInfo {
    /// Its path relative to the folder.
    pub path: DocPath,
    /// Order of first arrival (the earliest is the likely original).
    pub seen: u64,
    /// The fingerprints the cheap candidate checks read; the full ones are
    /// read from a [`super::PrintSource`] when needed.
    pub hot: ResidentPrints,
    /// Distinct word-shingle count (the containment rule's size guard).
    pub shingles: usize,
    /// What the keeper rule reads of it ([`crate::keeper`]), once the
    /// reader has told ([`super::Library::set_facts`]).
    pub facts: Option<KeeperFacts>,
}

/// Document ids by path. The table holds ids only and hashes each from the
/// path its document holds, so a path is stored once (in its [`DocInfo`]),
/// not again as a map key. Every id in it has a document.
#[derive(Debug, Clone, Default)]
struct PathLookup(hashbrown::HashTable<DocId>);

fn path_hash(path: &DocPath) -> u64 {
    doppel_core::hash::hash64(path.as_bytes(), 0x7061_7468)
}

impl PathLookup {
    fn path_of(docs: &[Option<DocInfo>], id: DocId) -> &DocPath {
        &docs[id as usize]
            .as_ref()
            .expect("an indexed id has a document")
            .path
    }

    fn get(&self, docs: &[Option<DocInfo>], path: &DocPath) -> Option<DocId> {
        self.0
            .find(path_hash(path), |&id| Self::path_of(docs, id) == path)
            .copied()
    }

    /// Index `id` by the path of its document (not indexed yet).
    fn insert(&mut self, docs: &[Option<DocInfo>], id: DocId) {
        let hash = path_hash(Self::path_of(docs, id));
        self.0
            .insert_unique(hash, id, |&other| path_hash(Self::path_of(docs, other)));
    }

    /// Take `id` out (its document still in `docs`).
    fn remove(&mut self, docs: &[Option<DocInfo>], id: DocId) {
        if let Ok(entry) = self
            .0
            .find_entry(path_hash(Self::path_of(docs, id)), |&x| x == id)
        {
            entry.remove();
        }
    }

    fn reserve(&mut self, additional: usize, docs: &[Option<DocInfo>]) {
        self.0
            .reserve(additional, |&id| path_hash(Self::path_of(docs, id)));
    }
}

/// The documents of a library by id and by path.
#[derive(Debug, Clone, Default)]
pub(super) struct Registry {
    docs: Vec<Option<DocInfo>>,
    free: Vec<DocId>,
    by_path: PathLookup,
    next_seen: u64,
}

impl Registry {
    /// Documents held.
    pub fn len(&self) -> usize {
        self.by_path.0.len()
    }

    /// One more than the largest id ever given (for dense per-id arrays).
    pub fn id_bound(&self) -> usize {
        self.docs.len()
    }

    pub fn doc(&self, id: DocId) -> Option<&DocInfo> {
        self.docs.get(id as usize)?.as_ref()
    }

    pub fn doc_mut(&mut self, id: DocId) -> Option<&mut DocInfo> {
        self.docs.get_mut(id as usize)?.as_mut()
    }

    /// Start loading `id`'s entry into the cache (a hint).
    pub fn prefetch(&self, id: DocId) {
        doppel_core::hash::prefetch_all_of(&self.docs, id as usize);
    }

    /// Start loading the resident prints `id`'s entry points to (the entry is
    /// read: it should be in the cache by now).
    pub fn prefetch_hot(&self, id: DocId) {
        if let Some(doc) = self.doc(id) {
            doc.hot.prefetch();
        }
    }

    pub fn id_of(&self, path: &DocPath) -> Option<DocId> {
        self.by_path.get(&self.docs, path)
    }

    /// Every document held, by id.
    pub fn iter(&self) -> impl Iterator<Item = (DocId, &DocInfo)> + '_ {
        self.docs
            .iter()
            .enumerate()
            .filter_map(|(id, d)| Some((id as DocId, d.as_ref()?)))
    }

    /// The arrival order a new document gets (and the next one after it).
    pub fn arrive(&mut self) -> u64 {
        self.next_seen += 1;
        self.next_seen - 1
    }

    /// Give a document an id (a freed one if any) and index its path.
    pub fn allocate(&mut self, info: DocInfo) -> DocId {
        self.next_seen = self.next_seen.max(info.seen + 1);
        let id = match self.free.pop() {
            Some(id) => {
                self.docs[id as usize] = Some(info);
                id
            }
            None => {
                self.docs.push(Some(info));
                (self.docs.len() - 1) as DocId
            }
        };
        self.by_path.insert(&self.docs, id);
        id
    }

    /// Take a document out; its id is given again only when `reuse` (an id
    /// whose candidate-table entries could not be removed stays dead).
    pub fn release(&mut self, id: DocId, reuse: bool) -> Option<DocInfo> {
        self.doc(id)?;
        // Out of the path lookup while its path is still there to hash.
        self.by_path.remove(&self.docs, id);
        let info = self.docs[id as usize].take();
        if reuse {
            self.free.push(id);
        }
        info
    }

    /// Room for `additional` more documents.
    pub fn reserve(&mut self, additional: usize) {
        self.docs.reserve_exact(additional);
        self.by_path.reserve(additional, &self.docs);
    }
}
