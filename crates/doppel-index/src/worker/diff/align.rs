//! Aligning the two word sequences: `similar`'s Patience diff over the
//! words' normalized hashes sets each word's kind, and inside every short
//! replaced stretch a character diff (Myers, on case-folded NFKC
//! characters) marks the characters that differ — an OCR `rn` read for `m`
//! is marked on both sides, the rest of the word is not. Stretches whose
//! characters are mostly different stay whole changes, long ones become a
//! deletion beside an insertion.

use std::time::Instant;

use similar::{capture_diff_slices, capture_diff_slices_deadline, Algorithm, DiffOp};

use super::words::Words;
use crate::worker::protocol::{shown_chars, DiffKind, DiffWord};
use doppel_core::engine::text::normalize;

/// Replaced stretches up to this many words a side get character marks.
const MARKED_WORDS: usize = 16;
/// ... and up to this many characters a side.
const MARKED_CHARS: usize = 240;
/// Below this share of equal characters a replaced stretch is not a
/// misreading of the other side but other words.
const MIN_CHAR_SIMILARITY: f64 = 0.5;
/// Dissimilar replaced stretches up to this many words a side still show
/// as changed (word for word) rather than deleted and inserted.
const CHANGED_WORDS: usize = 3;

pub(crate) struct Aligned {
    /// Character marks, left and right, sorted and disjoint.
    pub marks: [Vec<(u32, u32)>; 2],
    /// Words equal on both sides.
    pub equal: usize,
    pub truncated: bool,
}

/// Set the kind of every compared word of `l` and `r` (texts `tl`, `tr`).
pub(crate) fn align(
    l: &mut Words,
    r: &mut Words,
    tl: &str,
    tr: &str,
    deadline: Instant,
) -> Aligned {
    let (cl, cr) = (l.compared(), r.compared());
    let hashes =
        |w: &Words, c: &[u32]| -> Vec<u64> { c.iter().map(|&i| w.hashes[i as usize]).collect() };
    let ops = aligned_ops(&hashes(l, &cl), &hashes(r, &cr), deadline);
    let mut out = Aligned {
        marks: [Vec::new(), Vec::new()],
        equal: 0,
        truncated: Instant::now() >= deadline,
    };
    let set = |words: &mut [DiffWord], c: &[u32], from: usize, len: usize, kind| {
        for &i in &c[from..from + len] {
            words[i as usize].kind = kind;
        }
    };
    for op in ops {
        match op {
            DiffOp::Equal { len, .. } => out.equal += len,
            DiffOp::Delete {
                old_index, old_len, ..
            } => set(&mut l.words, &cl, old_index, old_len, DiffKind::Deleted),
            DiffOp::Insert {
                new_index, new_len, ..
            } => set(&mut r.words, &cr, new_index, new_len, DiffKind::Inserted),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                let old = &cl[old_index..old_index + old_len];
                let new = &cr[new_index..new_index + new_len];
                let short = old_len.max(new_len) <= MARKED_WORDS;
                let marked = short && Instant::now() < deadline;
                out.truncated |= short && !marked;
                let similar = marked
                    && char_marks(
                        ((tl, &l.words, &l.joins), old),
                        ((tr, &r.words, &r.joins), new),
                        &mut out.marks,
                    );
                let (kl, kr) = if similar || old_len.max(new_len) <= CHANGED_WORDS {
                    (DiffKind::Changed, DiffKind::Changed)
                } else {
                    (DiffKind::Deleted, DiffKind::Inserted)
                };
                set(&mut l.words, &cl, old_index, old_len, kl);
                set(&mut r.words, &cr, new_index, new_len, kr);
            }
        }
    }
    out
}

/// The alignment of two word-hash sequences. When one is a quarter of the
/// other or less, it is first located in the larger ([`locate`]) and only
/// that stretch is diffed: `similar`'s heuristics find nothing of a few
/// hundred words set in a text eight times longer (measured with 3.2.1).
fn aligned_ops(old: &[u64], new: &[u64], deadline: Instant) -> Vec<DiffOp> {
    let diff = |a: &[u64], b: &[u64]| {
        capture_diff_slices_deadline(Algorithm::Patience, a, b, Some(deadline))
    };
    let shift = |op: DiffOp, old_at: usize, new_at: usize| match op {
        DiffOp::Equal {
            old_index,
            new_index,
            len,
        } => DiffOp::Equal {
            old_index: old_index + old_at,
            new_index: new_index + new_at,
            len,
        },
        DiffOp::Delete {
            old_index,
            old_len,
            new_index,
        } => DiffOp::Delete {
            old_index: old_index + old_at,
            old_len,
            new_index: new_index + new_at,
        },
        DiffOp::Insert {
            old_index,
            new_index,
            new_len,
        } => DiffOp::Insert {
            old_index: old_index + old_at,
            new_index: new_index + new_at,
            new_len,
        },
        DiffOp::Replace {
            old_index,
            old_len,
            new_index,
            new_len,
        } => DiffOp::Replace {
            old_index: old_index + old_at,
            old_len,
            new_index: new_index + new_at,
            new_len,
        },
    };
    // Diff `small` against the located stretch of `large`, whose words
    // outside it are one-sided.
    let within = |small: &[u64], large: &[u64], small_is_old: bool| -> Option<Vec<DiffOp>> {
        let at = locate(small, large)?;
        let inner = diff(small, &large[at.clone()]);
        let (n, m) = (small.len(), large.len());
        let mut ops = Vec::with_capacity(inner.len() + 2);
        let one_sided = |large_at: usize, len: usize, small_at: usize| {
            if small_is_old {
                DiffOp::Insert {
                    old_index: small_at,
                    new_index: large_at,
                    new_len: len,
                }
            } else {
                DiffOp::Delete {
                    old_index: large_at,
                    old_len: len,
                    new_index: small_at,
                }
            }
        };
        if at.start > 0 {
            ops.push(one_sided(0, at.start, 0));
        }
        ops.extend(inner.into_iter().map(|op| {
            if small_is_old {
                shift(op, 0, at.start)
            } else {
                // Swap back: the small side was diffed as the old one.
                swap(shift(op, 0, at.start))
            }
        }));
        if at.end < m {
            ops.push(one_sided(at.end, m - at.end, n));
        }
        Some(ops)
    };
    if old.len() * 4 <= new.len() {
        if let Some(ops) = within(old, new, true) {
            return ops;
        }
    } else if new.len() * 4 <= old.len() {
        if let Some(ops) = within(new, old, false) {
            return ops;
        }
    }
    diff(old, new)
}

/// `op` with its old and new sides exchanged.
fn swap(op: DiffOp) -> DiffOp {
    match op {
        DiffOp::Equal {
            old_index,
            new_index,
            len,
        } => DiffOp::Equal {
            old_index: new_index,
            new_index: old_index,
            len,
        },
        DiffOp::Delete {
            old_index,
            old_len,
            new_index,
        } => DiffOp::Insert {
            old_index: new_index,
            new_index: old_index,
            new_len: old_len,
        },
        DiffOp::Insert {
            old_index,
            new_index,
            new_len,
        } => DiffOp::Delete {
            old_index: new_index,
            old_len: new_len,
            new_index: old_index,
        },
        DiffOp::Replace {
            old_index,
            old_len,
            new_index,
            new_len,
        } => DiffOp::Replace {
            old_index: new_index,
            old_len: new_len,
            new_index: old_index,
            new_len: old_len,
        },
    }
}

/// Where `small` sits in `large`, by the words unique to both whose offset
/// (position in `large` less position in `small`) is within `small`'s
/// length of the most common offset: the stretch they put `small` at, with
/// a margin. `None` without three such anchors.
fn locate(small: &[u64], large: &[u64]) -> Option<std::ops::Range<usize>> {
    use std::collections::HashMap;
    fn once(words: &[u64]) -> HashMap<u64, Option<usize>> {
        let mut at: HashMap<u64, Option<usize>> = HashMap::with_capacity(words.len());
        for (i, &h) in words.iter().enumerate() {
            at.entry(h).and_modify(|p| *p = None).or_insert(Some(i));
        }
        at
    }
    let in_large = once(large);
    let anchors: Vec<(usize, usize)> = once(small)
        .into_iter()
        .filter_map(|(h, i)| Some((i?, (*in_large.get(&h)?)?)))
        .collect();
    if anchors.len() < 3 {
        return None;
    }
    let n = small.len();
    let bucket = (n / 4).max(1);
    let mut votes: HashMap<isize, usize> = HashMap::new();
    for &(i, j) in &anchors {
        *votes
            .entry((j as isize - i as isize).div_euclid(bucket as isize))
            .or_default() += 1;
    }
    let (&mode, _) = votes
        .iter()
        .max_by_key(|&(&b, &count)| (count, std::cmp::Reverse(b)))?;
    let centre = mode * bucket as isize + bucket as isize / 2;
    let near = anchors
        .iter()
        .filter(|&&(i, j)| (j as isize - i as isize - centre).unsigned_abs() <= n);
    // Where `small` would start and end in `large` by each anchor.
    let first = near.clone().map(|&(i, j)| j.saturating_sub(i)).min()?;
    let last = near.map(|&(i, j)| j + (n - i)).max()?;
    let margin = n / 4 + 32;
    Some(first.saturating_sub(margin)..(last + margin).min(large.len()))
}

/// A side's text, words and the bytes its words hide
/// ([`Words::joins`]).
type Side<'a> = (&'a str, &'a [DiffWord], &'a [(u32, u32)]);

/// One side of a replaced stretch: its folded characters (a space between
/// words) and the bytes each comes from (`None` for the spaces).
fn folded((text, words, joins): Side<'_>, run: &[u32]) -> (Vec<char>, Vec<Option<(u32, u32)>>) {
    let (mut chars, mut from) = (Vec::new(), Vec::new());
    for (n, &i) in run.iter().enumerate() {
        if n > 0 {
            chars.push(' ');
            from.push(None);
        }
        let w = words[i as usize];
        for (at, c) in shown_chars(text, w.start as usize..w.end as usize, joins) {
            let at = at as u32;
            let bytes = Some((at, at + c.len_utf8() as u32));
            if c.is_ascii() {
                chars.push(c.to_ascii_lowercase());
                from.push(bytes);
            } else {
                let mut buf = [0u8; 4];
                for f in normalize(c.encode_utf8(&mut buf)).chars() {
                    chars.push(f);
                    from.push(bytes);
                }
            }
        }
    }
    (chars, from)
}

/// Add the bytes in `from[range]` to `marks`, merging with the last mark.
fn mark(marks: &mut Vec<(u32, u32)>, from: &[Option<(u32, u32)>]) {
    for &(s, e) in from.iter().flatten() {
        match marks.last_mut() {
            Some(last) if last.1 >= s => last.1 = last.1.max(e),
            _ => marks.push((s, e)),
        }
    }
}

/// Mark the characters that differ between two replaced stretches, when
/// they are short and mostly alike; whether they were.
fn char_marks(
    (l, old): (Side<'_>, &[u32]),
    (r, new): (Side<'_>, &[u32]),
    marks: &mut [Vec<(u32, u32)>; 2],
) -> bool {
    let (ca, fa) = folded(l, old);
    let (cb, fb) = folded(r, new);
    if ca.len().max(cb.len()) > MARKED_CHARS {
        return false;
    }
    let ops = capture_diff_slices(Algorithm::Myers, &ca, &cb);
    let equal: usize = ops
        .iter()
        .map(|op| match *op {
            DiffOp::Equal { len, .. } => len,
            _ => 0,
        })
        .sum();
    if (2 * equal) as f64 / ((ca.len() + cb.len()).max(1) as f64) < MIN_CHAR_SIMILARITY {
        return false;
    }
    for op in ops {
        let (old, new) = (op.old_range(), op.new_range());
        if !matches!(op, DiffOp::Equal { .. }) {
            mark(&mut marks[0], &fa[old]);
            mark(&mut marks[1], &fb[new]);
        }
    }
    true
}
