//! What a library's pairing has done, counted: the documents whose
//! candidates were gathered, the candidates the tables proposed for them
//! (in all and by algorithm: what a query's tally found, before any
//! check) and the pairs compared in full. Issue 48 asks that the
//! candidates per document stay near constant as a collection grows; these
//! are the counts that show whether they do (each pairing logs them, and
//! the benches print them).

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

use super::Library;
use crate::candidates::Candidates;
use doppel_core::engine::algo::AlgorithmId;

const ALGORITHMS: usize = AlgorithmId::ALL.len();

impl Library {
    /// How many pairs this library has compared in full (every algorithm's
    /// real score) since it was made, kept or not: verification's work,
    /// which should follow the true pairs, not the documents' length.
    pub fn compared(&self) -> u64 {
        self.compared
    }

    /// How many times this library has gathered a document's candidates
    /// (looked its keys up in the candidate tables) since it was made: once
    /// per document a batch brings, plus once per held document whose
    /// candidates a change moved. The tables' share of the work.
    pub fn gathered(&self) -> u64 {
        self.gathered
    }

    /// The candidates the tables proposed since the library was made, each
    /// once per gather that found it, in all and by algorithm: the tables'
    /// output, before the cheap checks ([`Library::compared`] is what
    /// passed them).
    pub fn proposed(&self) -> &Proposed {
        &self.proposed
    }
}

/// Candidates proposed since a library was made.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Proposed {
    /// Documents proposed, each once per gather that found it.
    pub total: u64,
    /// Of those, how many each algorithm's index proposed (by
    /// `AlgorithmId as usize`; a candidate two propose counts for both).
    pub by: [u64; ALGORITHMS],
}

impl Proposed {
    /// How many `algo`'s index proposed.
    pub fn by(&self, algo: AlgorithmId) -> u64 {
        self.by[algo as usize]
    }

    pub(super) fn add(&mut self, other: &Proposed) {
        self.total += other.total;
        for (sum, count) in self.by.iter_mut().zip(other.by) {
            *sum += count;
        }
    }
}

/// The total, then each algorithm that proposed any: `1243598 (minhash
/// 5210, shingle 1108312, …)`.
impl fmt::Display for Proposed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.total)?;
        let mut by = AlgorithmId::ALL
            .into_iter()
            .filter(|&algo| self.by(algo) > 0)
            .peekable();
        if by.peek().is_some() {
            let named: Vec<String> = by.map(|algo| format!("{algo} {}", self.by(algo))).collect();
            write!(f, " ({})", named.join(", "))?;
        }
        Ok(())
    }
}

/// [`Proposed`] gathered by queries on the rayon pool.
#[derive(Debug, Default)]
pub(super) struct ProposedCounter {
    total: AtomicU64,
    by: [AtomicU64; ALGORITHMS],
}

impl ProposedCounter {
    /// Count one query's candidates.
    pub fn note(&self, candidates: &Candidates) {
        let mut by = [0u64; ALGORITHMS];
        for (_, proposal) in candidates {
            for algo in proposal.by.iter() {
                by[algo as usize] += 1;
            }
        }
        self.total
            .fetch_add(candidates.len() as u64, Ordering::Relaxed);
        for (count, n) in self.by.iter().zip(by) {
            if n > 0 {
                count.fetch_add(n, Ordering::Relaxed);
            }
        }
    }

    /// What was counted.
    pub fn into_proposed(self) -> Proposed {
        Proposed {
            total: self.total.into_inner(),
            by: self.by.map(AtomicU64::into_inner),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_names_each_index_that_proposed() {
        let mut proposed = Proposed::default();
        assert_eq!(proposed.to_string(), "0");
        proposed.total = 3;
        proposed.by[AlgorithmId::Minhash as usize] = 2;
        proposed.by[AlgorithmId::Shingle as usize] = 2;
        assert_eq!(proposed.to_string(), "3 (shingle 2, minhash 2)");
        let mut sum = proposed.clone();
        sum.add(&proposed);
        assert_eq!(sum.total, 6);
        assert_eq!(sum.by(AlgorithmId::Shingle), 4);
    }
}
