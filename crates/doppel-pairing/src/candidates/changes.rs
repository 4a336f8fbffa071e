//! Which documents already filed a change moves: those in a posting list
//! it pushes across `max_postings` (they propose, or stop proposing, each
//! other), and those whose SI proposals it enters or leaves. A library
//! gathers their candidates again, so its pairs stay those of one built at
//! once from what it holds.

use std::collections::HashMap;

use super::{si_index, slot, CandidateTables};
use doppel_core::doc::DocId;
use doppel_core::engine::Fingerprints;

/// Documents already filed whose candidates a change moved.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Affected {
    /// SI's proposals only (the change entered or left their nearest).
    pub by_si: Vec<DocId>,
    /// A posting list they are in crossed the cap.
    pub by_cap: Vec<DocId>,
}

impl Affected {
    /// Both lists of `other` added to these.
    pub fn extend(&mut self, other: Affected) {
        self.by_si.extend(other.by_si);
        self.by_cap.extend(other.by_cap);
    }
}

impl CandidateTables {
    /// The documents of the posting lists among `slots` that `change`
    /// (documents filed or taken out there, by slot) moved across the
    /// posting cap: they propose or stop proposing each other, so their
    /// candidates must be gathered again.
    fn crossed_cap(&self, change: &HashMap<u32, isize>) -> Vec<DocId> {
        let limit = self.config.max_postings.saturating_add(1);
        let mut members = Vec::new();
        let (slots, deltas): (Vec<u32>, Vec<isize>) = change.iter().unzip();
        self.tables.postings_of_each(&slots, |i, postings| {
            let delta = deltas[i];
            if delta == 0 || postings.bound() + delta.unsigned_abs() <= limit {
                return;
            }
            // Counting past this, the list is over the cap before and after.
            let now = postings
                .iter()
                .take(limit + delta.unsigned_abs() + 1)
                .count();
            let before = (now as isize - delta).max(0) as usize;
            if (now > limit) != (before > limit) {
                members.extend(postings.iter());
            }
        });
        members
    }

    /// [`CandidateTables::insert_many`], also returning the documents
    /// already filed whose candidates the new ones changed by pushing a
    /// posting list across the cap (its documents) or SI neighbours aside
    /// (see [`CandidateTables::si_reverse`]).
    pub fn insert_many_affecting(&mut self, docs: &[(DocId, &Fingerprints)]) -> Affected {
        let mut change: HashMap<u32, isize> = HashMap::new();
        self.insert_many_noting(docs, |slots| {
            for &slot in slots {
                *change.entry(slot).or_default() += 1;
            }
        });
        let mut affected = Affected {
            by_cap: self.crossed_cap(&change),
            ..Affected::default()
        };
        for &(id, f) in docs {
            if let Some(si) = si_index(f) {
                affected.by_si.extend(self.si_reverse(id, si));
            }
        }
        affected
    }

    /// [`CandidateTables::remove`], also returning the documents whose
    /// candidates its going changes (see
    /// [`CandidateTables::insert_many_affecting`]).
    pub fn remove_affecting(&mut self, id: DocId, f: &Fingerprints) -> Affected {
        self.fill_restored();
        let by_si = match si_index(f) {
            Some(si) => self.si_reverse(id, si),
            None => Vec::new(),
        };
        let mut change: HashMap<u32, isize> = HashMap::new();
        for (algo, table, key) in self.keys(f) {
            *change.entry(slot(algo, table, key)).or_default() -= 1;
        }
        self.remove(id, f);
        Affected {
            by_si,
            by_cap: self.crossed_cap(&change),
        }
    }
}
