//! The decision over a whole set of documents at once, fast: what a
//! one-shot scan of a fresh index learns after its last file, instead of
//! keeping a [`super::Learner`] up to date file by file (which costs
//! several times more per sample, ~0.2 s of CPU at 13k short texts, to
//! keep an answer nobody asks for until the end). It computes exactly
//! [`super::learn`] (a property test holds them equal).
//!
//! Every sample is sorted once by hash with its place among all samples;
//! a hash's run of places gives its documents (places are grouped by
//! document, so the run meets each document's places together), the
//! frequent samples are flagged in place, and only the documents with
//! candidate runs (few) take the group steps, whose lookups go to the
//! hashes held by two documents or more.
//!
//! Each step but the sort's passes and the groups' unions runs on the
//! rayon pool, over pieces whose results are put back in their order, so
//! the answer is the serial one whatever the number of threads.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use rayon::prelude::*;

use super::postings::SampleMap;
use super::runs::{anchors, candidate_runs_at, holds, run_hashes, spans, substantial_remainder};
use super::{BoilerplateConfig, DocSamples, Learned};
use crate::cluster::UnionFind;

/// [`super::learn`] of `docs` (their keys distinct): `pinned` shingles
/// always count, `overruled` ones never do.
pub fn learn_at_once<K: Ord + Clone + Send + Sync>(
    docs: &[(K, DocSamples)],
    pinned: &BTreeSet<u32>,
    overruled: &BTreeSet<u32>,
    config: &BoilerplateConfig,
) -> Learned<K> {
    let n = docs.len();
    // Document `i`'s samples are places `starts[i]..starts[i + 1]`.
    let mut starts: Vec<u64> = Vec::with_capacity(n + 1);
    starts.push(0);
    for (_, d) in docs {
        starts.push(starts[starts.len() - 1] + d.samples.len() as u64);
    }
    let total = starts[n];
    // Places must fit beside the hash (below 32 GB of samples), and the
    // lookups below hold only hashes two documents share.
    if total > u64::from(u32::MAX) || config.min_docs < 2 || config.min_groups == 0 {
        let by_key: BTreeMap<K, DocSamples> = docs.iter().cloned().collect();
        return super::learn(&by_key, pinned, overruled, config);
    }
    let mut keyed: Vec<u64> = Vec::with_capacity(total as usize);
    for ((_, d), &start) in docs.iter().zip(&starts) {
        keyed.extend(
            (start..)
                .zip(&d.samples)
                .map(|(place, s)| u64::from(s.hash) << 32 | place),
        );
    }
    let keyed = sorted_by_hash(keyed);
    // The document of a place: where a block of 64 places starts, then
    // on (a document has ~90 samples of a short text, so a step or two).
    let block_docs: Vec<u32> = (0..total.div_ceil(64))
        .map(|block| (starts.partition_point(|&s| s <= block * 64) - 1) as u32)
        .collect();
    let doc_of = |place: u64| {
        let mut doc = block_docs[(place / 64) as usize] as usize;
        while starts[doc + 1] <= place {
            doc += 1;
        }
        doc
    };

    // 1. Frequent samples, flagged in place; the hashes two documents or
    // more hold, with their documents. Pieces of the sorted keys, cut
    // where the hash changes, are read in parallel and joined in order.
    let pieces = hash_pieces(&keyed, rayon::current_num_threads() * 4);
    let read: Vec<HashRuns> = pieces
        .par_iter()
        .map(|piece| hash_runs(piece, &starts, &doc_of, config))
        .collect();
    let mut frequent = vec![false; total as usize];
    let mut shared: Vec<(u32, Range<u32>)> = Vec::new();
    let mut holders: Vec<u32> = Vec::new();
    for piece in read {
        for place in piece.frequent {
            frequent[place as usize] = true;
        }
        let offset = holders.len() as u32;
        shared.extend(
            piece
                .shared
                .into_iter()
                .map(|(h, r)| (h, r.start + offset..r.end + offset)),
        );
        holders.extend(piece.holders);
    }
    let mut by_hash: SampleMap<Range<u32>> = SampleMap::default();
    by_hash.reserve(shared.len());
    by_hash.extend(shared);
    let shared = by_hash;
    drop(keyed);
    let holding = |h: u32| {
        shared
            .get(&h)
            .map(|r| &holders[r.start as usize..r.end as usize])
    };

    // 2. Candidate runs, remainders, anchors.
    let found: Vec<Option<Candidate>> = docs
        .par_iter()
        .enumerate()
        .map(|(i, (_, d))| {
            let first = starts[i] as usize;
            let runs = candidate_runs_at(&d.samples, config, |j| frequent[first + j]);
            if runs.is_empty() {
                return None;
            }
            let rem = substantial_remainder(&d.samples, &runs, config);
            Some((
                run_hashes(&d.samples, &runs),
                rem.map(|r| anchors(&r, config.anchors)),
            ))
        })
        .collect();
    let mut cand: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut with_runs: Vec<(usize, Option<Vec<u32>>)> = Vec::new();
    for (i, found) in found.into_iter().enumerate() {
        if let Some((hashes, anchors)) = found {
            cand[i] = hashes;
            with_runs.push((i, anchors));
        }
    }

    // 3. Groups: node n stands for "no substantial remainder". Each
    // document's links are found in parallel, then joined in order.
    let links: Vec<Vec<usize>> = with_runs
        .par_iter()
        .map(|(i, anchors)| {
            let Some(anchors) = anchors else {
                return vec![n];
            };
            // Each document as often as it holds an anchor: a run apiece.
            let mut sharing: Vec<u32> = anchors
                .iter()
                .filter_map(|&a| holding(a))
                .flatten()
                .copied()
                .collect();
            sharing.sort_unstable();
            sharing
                .chunk_by(|a, b| a == b)
                .filter(|run| {
                    let j = run[0] as usize;
                    j != *i
                        && !cand[j].is_empty()
                        && holds(run.len(), anchors.len(), config.related)
                })
                .map(|run| run[0] as usize)
                .collect()
        })
        .collect();
    let mut groups = UnionFind::new(n + 1);
    for ((i, _), linked) in with_runs.iter().zip(links) {
        for j in linked {
            groups.union(*i, j);
        }
    }

    // 4. Boilerplate: candidate shingles beside at least `min_groups` groups.
    let root: Vec<usize> = (0..=n).map(|i| groups.find(i)).collect();
    let mut candidates: Vec<u32> = with_runs
        .iter()
        .flat_map(|(i, _)| cand[*i].iter().copied())
        .collect();
    candidates.sort_unstable();
    candidates.dedup();
    let learned: Vec<u32> = candidates
        .into_par_iter()
        .filter(|&h| {
            let Some(docs) = holding(h).filter(|docs| docs.len() >= config.min_docs) else {
                return false;
            };
            let mut seen: Vec<usize> = Vec::with_capacity(config.min_groups);
            for &j in docs {
                let label = root[j as usize];
                if !seen.contains(&label) && cand[j as usize].binary_search(&h).is_ok() {
                    seen.push(label);
                    if seen.len() >= config.min_groups {
                        return true;
                    }
                }
            }
            false
        })
        .collect();

    // 5. Spans, of the documents holding an effective shingle.
    let is_learned = |h: u32| learned.binary_search(&h).is_ok() && !overruled.contains(&h);
    let mut spanned: Vec<u32> = learned
        .iter()
        .filter(|h| !overruled.contains(h))
        .filter_map(|&h| holding(h))
        .flatten()
        .copied()
        .collect();
    if !pinned.is_empty() {
        // The user's passages, wherever they are (rare: every document).
        spanned = (0..n as u32).collect();
    }
    spanned.sort_unstable();
    spanned.dedup();
    let spans_by_key: Vec<_> = spanned
        .into_par_iter()
        .filter_map(|i| {
            let (key, d) = &docs[i as usize];
            let found = spans(d, config, is_learned, |h| pinned.contains(&h));
            (!found.is_empty()).then(|| (key.clone(), found))
        })
        .collect();
    Learned {
        learned,
        spans: spans_by_key.into_iter().collect(),
    }
}

/// A document with candidate runs: their hashes, sorted, and the anchors
/// of its substantial remainder, if it has one.
type Candidate = (Vec<u32>, Option<Vec<u32>>);

/// What step 1 finds in a piece of the sorted keys.
#[derive(Default)]
struct HashRuns {
    /// Places of frequent samples.
    frequent: Vec<u32>,
    /// Hashes two documents or more hold, with their range in `holders`.
    shared: Vec<(u32, Range<u32>)>,
    /// The documents holding each shared hash, in order.
    holders: Vec<u32>,
}

/// `keyed` (sorted by hash) cut into about `pieces` pieces, never inside
/// a hash's run.
fn hash_pieces(keyed: &[u64], pieces: usize) -> Vec<&[u64]> {
    let step = keyed.len().div_ceil(pieces.max(1)).max(1);
    let mut out = Vec::with_capacity(pieces);
    let mut rest = keyed;
    while !rest.is_empty() {
        let mut cut = step.min(rest.len());
        while cut < rest.len() && rest[cut] >> 32 == rest[cut - 1] >> 32 {
            cut += 1;
        }
        let (piece, after) = rest.split_at(cut);
        out.push(piece);
        rest = after;
    }
    out
}

/// Step 1 over one piece of the sorted keys: each hash's run of places
/// gives its documents (`doc_of`, `starts`).
fn hash_runs(
    piece: &[u64],
    starts: &[u64],
    doc_of: &(impl Fn(u64) -> usize + Sync),
    config: &BoilerplateConfig,
) -> HashRuns {
    let mut out = HashRuns::default();
    for run in piece.chunk_by(|a, b| a >> 32 == b >> 32) {
        if run.len() < 2 {
            continue;
        }
        let from = out.holders.len();
        let mut end = 0;
        for &key in run {
            let place = key & u64::from(u32::MAX);
            if place >= end {
                let doc = doc_of(place);
                out.holders.push(doc as u32);
                end = starts[doc + 1];
            }
        }
        let df = out.holders.len() - from;
        if df < 2 {
            out.holders.truncate(from);
            continue;
        }
        if df >= config.min_docs {
            out.frequent
                .extend(run.iter().map(|&key| (key & u64::from(u32::MAX)) as u32));
        }
        out.shared
            .push(((run[0] >> 32) as u32, from as u32..out.holders.len() as u32));
    }
    out
}

/// `keys` (`hash << 32 | place`, in order of place) sorted by hash, each
/// hash's places staying in order: a stable radix sort on the top 32 bits,
/// in three passes of 11 bits (a comparison sort took four times longer).
fn sorted_by_hash(keys: Vec<u64>) -> Vec<u64> {
    const DIGIT: u32 = 11;
    let mut from = keys;
    let mut to = vec![0u64; from.len()];
    let mut counts = vec![0usize; 1 << DIGIT];
    for shift in [32, 32 + DIGIT, 32 + 2 * DIGIT] {
        let digit = |k: u64| ((k >> shift) & ((1 << DIGIT) - 1)) as usize;
        counts.fill(0);
        for &k in &from {
            counts[digit(k)] += 1;
        }
        let mut sum = 0;
        for count in counts.iter_mut() {
            (*count, sum) = (sum, sum + *count);
        }
        for &k in &from {
            let slot = &mut counts[digit(k)];
            to[*slot] = k;
            *slot += 1;
        }
        std::mem::swap(&mut from, &mut to);
    }
    from
}

#[cfg(test)]
mod tests {
    use super::hash_pieces;

    #[test]
    fn pieces_cover_the_keys_in_order_and_never_cut_a_hash_s_run() {
        // Hashes 0..40, hash h held h % 7 + 1 times.
        let keys: Vec<u64> = (0..40u64)
            .flat_map(|h| (0..h % 7 + 1).map(move |place| h << 32 | place))
            .collect();
        for wanted in [1, 2, 3, 8, 1_000] {
            let pieces = hash_pieces(&keys, wanted);
            assert_eq!(pieces.concat(), keys, "{wanted} pieces");
            for pair in pieces.windows(2) {
                let (last, first) = (pair[0][pair[0].len() - 1], pair[1][0]);
                assert_ne!(last >> 32, first >> 32, "a run cut in {wanted} pieces");
            }
            assert!(pieces.len() <= wanted.max(1) * 2);
        }
        assert!(hash_pieces(&[], 4).is_empty());
    }
}
