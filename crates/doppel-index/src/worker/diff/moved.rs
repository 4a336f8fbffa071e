//! Moved blocks: a deleted stretch of words and an inserted one elsewhere
//! that hold mostly the same text (a reordered chapter, a paragraph moved
//! up). Candidates pair up by shared 4-word shingles; a pair is diffed
//! again on its own and its equal words become [`DiffKind::Moved`] on both
//! sides, so a moved block with a few misread words still shows as moved.

use std::collections::HashMap;
use std::time::Instant;

use similar::{capture_diff_slices_deadline, Algorithm, DiffOp};

use super::words::Words;
use crate::worker::protocol::{DiffKind, MovedBlock};
use doppel_core::hash::combine;

/// Fewest words a moved block has.
const MIN_MOVED: usize = 8;
/// Words per shingle.
const SHINGLE: usize = 4;
/// Share of the smaller stretch's shingles the two must have in common.
const MIN_SHARED: f64 = 0.5;

/// Maximal stretches of words of `kind` (ignored words inside do not
/// break one), as the compared words' indexes, at least [`MIN_MOVED`] long.
fn stretches(w: &Words, kind: DiffKind) -> Vec<Vec<u32>> {
    let mut out = Vec::new();
    let mut cur: Vec<u32> = Vec::new();
    for (i, word) in w.words.iter().enumerate() {
        if word.kind == kind {
            cur.push(i as u32);
        } else if word.kind != DiffKind::Ignored {
            if cur.len() >= MIN_MOVED {
                out.push(std::mem::take(&mut cur));
            }
            cur.clear();
        }
    }
    if cur.len() >= MIN_MOVED {
        out.push(cur);
    }
    out
}

fn shingles<'a>(w: &'a Words, run: &'a [u32]) -> impl Iterator<Item = u64> + 'a {
    run.windows(SHINGLE).map(|g| {
        let h: [u64; SHINGLE] = std::array::from_fn(|k| w.hashes[g[k] as usize]);
        combine(&h, 0x6d6f_7665)
    })
}

/// Pair deleted stretches of `l` with inserted ones of `r` that hold the
/// same text, mark their common words moved, and list the blocks.
pub(crate) fn moved_blocks(l: &mut Words, r: &mut Words, deadline: Instant) -> Vec<MovedBlock> {
    let deleted = stretches(l, DiffKind::Deleted);
    let inserted = stretches(r, DiffKind::Inserted);
    if deleted.is_empty() || inserted.is_empty() {
        return Vec::new();
    }
    let mut owner: HashMap<u64, usize> = HashMap::new();
    for (n, run) in inserted.iter().enumerate() {
        for s in shingles(r, run) {
            owner.entry(s).or_insert(n);
        }
    }
    let mut used = vec![false; inserted.len()];
    let mut out = Vec::new();
    for run in &deleted {
        if Instant::now() >= deadline {
            break;
        }
        let mut hits: HashMap<usize, usize> = HashMap::new();
        for s in shingles(l, run) {
            if let Some(&n) = owner.get(&s) {
                *hits.entry(n).or_default() += 1;
            }
        }
        let best = hits
            .into_iter()
            .filter(|&(n, _)| !used[n])
            .max_by_key(|&(n, count)| (count, std::cmp::Reverse(n)));
        let Some((n, count)) = best else { continue };
        let smaller = run.len().min(inserted[n].len()) + 1 - SHINGLE;
        if (count as f64) < MIN_SHARED * smaller as f64 {
            continue;
        }
        let other = &inserted[n];
        let key = |w: &Words, run: &[u32]| -> Vec<u64> {
            run.iter().map(|&i| w.hashes[i as usize]).collect()
        };
        let ops = capture_diff_slices_deadline(
            Algorithm::Patience,
            &key(l, run),
            &key(r, other),
            Some(deadline),
        );
        let mut moved = 0;
        let (mut lo, mut hi) = ((u32::MAX, 0), (u32::MAX, 0));
        for op in ops {
            if let DiffOp::Equal {
                old_index,
                new_index,
                len,
            } = op
            {
                moved += len;
                for k in 0..len {
                    let (i, j) = (run[old_index + k], other[new_index + k]);
                    l.words[i as usize].kind = DiffKind::Moved;
                    r.words[j as usize].kind = DiffKind::Moved;
                    lo = (lo.0.min(i), lo.1.max(i + 1));
                    hi = (hi.0.min(j), hi.1.max(j + 1));
                }
            }
        }
        if moved > 0 {
            used[n] = true;
            out.push(MovedBlock {
                left: lo,
                right: hi,
            });
        }
    }
    out
}
