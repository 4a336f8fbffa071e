//! One query's tally of proposals: each document its keys find, with why
//! ([`Proposal`]). A query visits a posting for every key it shares with
//! another document (tens of millions at 110k texts, most of them chance
//! shares of a common shingle), so the tally is kept where each visit costs
//! one read of a small array indexed by document id, reused by every query
//! on the thread, not a hash map probe.

use std::cell::RefCell;

use super::KeyCounts;
use doppel_core::doc::DocId;
use doppel_core::engine::algo::{AlgorithmId, AlgorithmSet};

const ALGORITHMS: usize = AlgorithmId::ALL.len();

/// Why a document was proposed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Proposal {
    /// Algorithms whose index proposed it.
    pub by: AlgorithmSet,
    /// Per algorithm (by `AlgorithmId as usize`), how many of the query's
    /// keys the candidate is filed under: shared sampled shingles or
    /// winnowed fingerprints, matching signatures or super-shingles.
    pub shared: [u16; ALGORITHMS],
    /// The candidate's own key counts.
    pub keys: KeyCounts,
}

impl Proposal {
    /// Keys shared in `algo`'s index.
    pub fn shared(&self, algo: AlgorithmId) -> u32 {
        u32::from(self.shared[algo as usize])
    }

    /// Estimated (resemblance, larger containment) from shared inverted-index
    /// keys, given the query's own key counts; `None` when the candidate
    /// came from no inverted index of that kind.
    pub fn estimate(&self, algo: AlgorithmId, query: KeyCounts) -> Option<(f64, f64)> {
        let (mine, theirs) = match algo {
            AlgorithmId::Shingle => (query.shingle, self.keys.shingle),
            AlgorithmId::Winnow => (query.winnow, self.keys.winnow),
            _ => return None,
        };
        let shared = self.shared(algo);
        if shared == 0 || mine == 0 || theirs == 0 {
            return None;
        }
        let (s, a, b) = (f64::from(shared), f64::from(mine), f64::from(theirs));
        Some((s / (a + b - s).max(s), (s / a).max(s / b).min(1.0)))
    }
}

/// Proposed candidates: each document once, with why, in the order they
/// were first found.
pub type Candidates = Vec<(DocId, Proposal)>;

/// Marks a document not in the tally.
const ABSENT: u32 = u32::MAX;

thread_local! {
    /// Per document id, its place in the tally being gathered on this
    /// thread, or [`ABSENT`]; all [`ABSENT`] between tallies.
    static PLACES: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
}

/// A tally being gathered. It borrows its thread's places while it lives
/// and leaves them all [`ABSENT`] when it ends, finished or unwound.
pub(super) struct Tally {
    places: Vec<u32>,
    found: Candidates,
}

impl Tally {
    pub fn new() -> Self {
        Self {
            places: PLACES.take(),
            found: Vec::new(),
        }
    }

    /// `id`'s proposal: the one already tallied, else a new one when
    /// `admit` says so, else `None`. Once `id` is admitted, `admit` is not
    /// asked again in this tally; until then, it is asked each time.
    pub fn entry_if(&mut self, id: DocId, admit: impl FnOnce() -> bool) -> Option<&mut Proposal> {
        let at = id as usize;
        match self.places.get(at) {
            Some(&place) if place != ABSENT => Some(&mut self.found[place as usize].1),
            _ if !admit() => None,
            _ => {
                if at >= self.places.len() {
                    self.places.resize(at + 1, ABSENT);
                }
                self.places[at] = u32::try_from(self.found.len()).expect("under 2^32 proposals");
                self.found.push((id, Proposal::default()));
                self.found.last_mut().map(|(_, proposal)| proposal)
            }
        }
    }

    /// The documents found, in the order they were first found.
    pub fn finish(mut self) -> Candidates {
        self.forget_places();
        std::mem::take(&mut self.found)
    }

    fn forget_places(&mut self) {
        for &(id, _) in &self.found {
            self.places[id as usize] = ABSENT;
        }
    }
}

impl Drop for Tally {
    fn drop(&mut self) {
        self.forget_places();
        PLACES.set(std::mem::take(&mut self.places));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tallies `ids` (each admitted when `admit` says so), counting how
    /// often `admit` was asked.
    fn tally(ids: &[DocId], admit: impl Fn(DocId) -> bool) -> (Vec<(DocId, u32)>, usize) {
        let mut asked = 0;
        let mut tally = Tally::new();
        for &id in ids {
            if let Some(proposal) = tally.entry_if(id, || {
                asked += 1;
                admit(id)
            }) {
                proposal.shared[0] += 1;
            }
        }
        let found = tally.finish();
        (
            found
                .into_iter()
                .map(|(id, p)| (id, p.shared(AlgorithmId::ALL[0])))
                .collect(),
            asked,
        )
    }

    #[test]
    fn each_document_is_tallied_once_in_the_order_first_found() {
        let (found, asked) = tally(&[7, 3, 7, 900, 3, 7, 4], |id| id != 4);
        assert_eq!(found, vec![(7, 3), (3, 2), (900, 1)]);
        // 4 is asked each time it comes (it was never admitted); the others
        // only when first found.
        assert_eq!(asked, 4);
    }

    #[test]
    fn a_tally_starts_empty_after_one_finished_or_unwound() {
        tally(&[1, 2, 3], |_| true);
        let (found, _) = tally(&[2, 5], |_| true);
        assert_eq!(
            found,
            vec![(2, 1), (5, 1)],
            "nothing of the last tally is kept"
        );
        let unwound = std::panic::catch_unwind(|| {
            let mut tally = Tally::new();
            tally.entry_if(6, || true);
            panic!("a query fails part way");
        });
        assert!(unwound.is_err());
        let (found, _) = tally(&[6, 6], |_| true);
        assert_eq!(
            found,
            vec![(6, 2)],
            "a tally unwound part way leaves no place behind"
        );
    }
}
