//! A side-by-side diff of two documents for review: a line diff (the
//! `similar` crate, Myers with a deadline), word-level changes inside
//! replaced lines, the share of equal lines, blocks moved elsewhere, and the
//! lines that hold a passage winnowing found in both documents.
//!
//! The deadline bounds the whole computation: `similar` stops refining the
//! line diff when it passes (a coarser, still correct diff), and the
//! word-level pass stops there, leaving later replaced lines marked whole.
//! Either sets `truncated`.
//!
//! Shared marks are approximate: winnowing's marks are byte ranges in the
//! *normalized* whole text, which do not map back to lines of the original.
//! Instead each original line is normalized on its own and its character
//! k-grams are hashed exactly as winnowing hashes them (the hash depends
//! only on the k alphanumeric characters); the line is shared when one of
//! them is a fingerprint selected in both documents. A passage split across
//! two lines, or a line shorter than k characters, is not marked.

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use similar::{Algorithm, ChangeTag, DiffOp, TextDiff};

use crate::engine::algo::winnow::Winnow;
use crate::engine::text::normalize;

use super::protocol::{DiffKind, DiffRow};

/// The diff of two texts, without the request's labels.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DiffParts {
    pub rows: Vec<DiffRow>,
    pub equal: f64,
    pub moved_blocks: usize,
    pub truncated: bool,
}

/// Winnowing fingerprints found in both documents, to mark shared lines.
pub(crate) struct Shared<'a> {
    pub winnow: &'a Winnow,
    /// As fingerprints keep them ([`crate::engine::algo::winnow::kept`]).
    pub hashes: &'a HashSet<u32>,
}

impl Shared<'_> {
    fn line(&self, line: &str) -> bool {
        if self.hashes.is_empty() {
            return false;
        }
        self.winnow.kgrams(&normalize(line)).iter().any(|m| {
            self.hashes
                .contains(&crate::engine::algo::winnow::kept(m.hash))
        })
    }
}

fn strip_eol(line: &str) -> &str {
    line.strip_suffix('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .unwrap_or(line)
}

/// Pieces of one line: (text, changed).
type Segments = Vec<(String, bool)>;

/// Segments of two lines with word-level changes marked.
fn inline(old: &str, new: &str, deadline: Instant) -> (Segments, Segments) {
    fn push(side: &mut Segments, text: &str, changed: bool) {
        match side.last_mut() {
            Some((last, c)) if *c == changed => last.push_str(text),
            _ => side.push((text.to_owned(), changed)),
        }
    }
    let diff = TextDiff::configure()
        .algorithm(Algorithm::Myers)
        .deadline(deadline)
        .diff_words(old, new);
    let (mut left, mut right) = (Vec::new(), Vec::new());
    for change in diff.iter_all_changes() {
        let text = change.value();
        match change.tag() {
            ChangeTag::Equal => {
                push(&mut left, text, false);
                push(&mut right, text, false);
            }
            ChangeTag::Delete => push(&mut left, text, true),
            ChangeTag::Insert => push(&mut right, text, true),
        }
    }
    (left, right)
}

fn whole(line: &str, changed: bool) -> Segments {
    if line.is_empty() {
        Vec::new()
    } else {
        vec![(line.to_owned(), changed)]
    }
}

/// The key of a run of lines for move detection: its non-blank lines,
/// trimmed; `None` when too little to call a moved block.
fn block_key(lines: &[&str]) -> Option<String> {
    let kept: Vec<&str> = lines
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .collect();
    let key = kept.join("\n");
    (key.chars().filter(|c| c.is_alphanumeric()).count() >= 20).then_some(key)
}

/// Diff `old` (A, left) against `new` (B, right) within `deadline`.
pub(crate) fn diff_texts(
    old: &str,
    new: &str,
    deadline: Instant,
    shared: Option<&Shared<'_>>,
) -> DiffParts {
    let diff = TextDiff::configure()
        .algorithm(Algorithm::Myers)
        .deadline(deadline)
        .diff_lines(old, new);
    let mut truncated = Instant::now() >= deadline;
    let old_line = |i: usize| strip_eol(diff.old_slice(i).unwrap_or_default());
    let new_line = |i: usize| strip_eol(diff.new_slice(i).unwrap_or_default());
    let mut rows = Vec::with_capacity(diff.old_len().max(diff.new_len()));
    let mut equal_lines = 0usize;
    // Runs of removed and added lines, for move detection.
    let mut removed: Vec<Vec<&str>> = Vec::new();
    let mut added: Vec<Vec<&str>> = Vec::new();
    let row = |left_no: Option<usize>, right_no: Option<usize>, left, right, kind| DiffRow {
        left_no,
        right_no,
        left,
        right,
        kind,
        shared: false,
    };
    for op in diff.ops() {
        match *op {
            DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => {
                equal_lines += len;
                for k in 0..len {
                    let text = old_line(old_index + k);
                    rows.push(row(
                        Some(old_index + k + 1),
                        Some(new_index + k + 1),
                        whole(text, false),
                        whole(new_line(new_index + k), false),
                        DiffKind::Equal,
                    ));
                }
            }
            DiffOp::Delete {
                old_index, old_len, ..
            } => {
                removed.push((0..old_len).map(|k| old_line(old_index + k)).collect());
                for k in 0..old_len {
                    rows.push(row(
                        Some(old_index + k + 1),
                        None,
                        whole(old_line(old_index + k), true),
                        Vec::new(),
                        DiffKind::Deleted,
                    ));
                }
            }
            DiffOp::Insert {
                new_index, new_len, ..
            } => {
                added.push((0..new_len).map(|k| new_line(new_index + k)).collect());
                for k in 0..new_len {
                    rows.push(row(
                        None,
                        Some(new_index + k + 1),
                        Vec::new(),
                        whole(new_line(new_index + k), true),
                        DiffKind::Inserted,
                    ));
                }
            }
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                removed.push((0..old_len).map(|k| old_line(old_index + k)).collect());
                added.push((0..new_len).map(|k| new_line(new_index + k)).collect());
                for k in 0..old_len.max(new_len) {
                    let (l, r) = (k < old_len, k < new_len);
                    let (l_no, r_no) = (
                        l.then_some(old_index + k + 1),
                        r.then_some(new_index + k + 1),
                    );
                    if l && r {
                        let (lt, rt) = (old_line(old_index + k), new_line(new_index + k));
                        let (left, right) = if Instant::now() < deadline {
                            inline(lt, rt, deadline)
                        } else {
                            truncated = true;
                            (whole(lt, true), whole(rt, true))
                        };
                        rows.push(row(l_no, r_no, left, right, DiffKind::Changed));
                    } else if l {
                        let text = whole(old_line(old_index + k), true);
                        rows.push(row(l_no, None, text, Vec::new(), DiffKind::Deleted));
                    } else {
                        let text = whole(new_line(new_index + k), true);
                        rows.push(row(None, r_no, Vec::new(), text, DiffKind::Inserted));
                    }
                }
            }
        }
    }
    if let Some(shared) = shared {
        for r in &mut rows {
            let side = |segments: &[(String, bool)]| {
                let line: String = segments.iter().map(|(t, _)| t.as_str()).collect();
                shared.line(&line)
            };
            r.shared = side(&r.left) || side(&r.right);
        }
    }
    let total = diff.old_len() + diff.new_len();
    let equal = if total == 0 {
        1.0
    } else {
        (2 * equal_lines) as f64 / total as f64
    };
    let mut added_keys: HashMap<String, usize> = HashMap::new();
    for run in &added {
        if let Some(key) = block_key(run) {
            *added_keys.entry(key).or_default() += 1;
        }
    }
    let moved_blocks = removed
        .iter()
        .filter_map(|run| block_key(run))
        .filter(|key| match added_keys.get_mut(key) {
            Some(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        })
        .count();
    DiffParts {
        rows,
        equal,
        moved_blocks,
        truncated,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn far() -> Instant {
        Instant::now() + Duration::from_secs(60)
    }

    #[test]
    fn equal_texts_are_all_equal_rows() {
        let text = "one line\nanother line\n";
        let d = diff_texts(text, text, far(), None);
        assert_eq!(d.rows.len(), 2);
        assert!(d.rows.iter().all(|r| r.kind == DiffKind::Equal));
        assert_eq!(d.equal, 1.0);
        assert!(!d.truncated);
    }

    #[test]
    fn replaced_lines_get_word_changes() {
        let d = diff_texts(
            "the quick brown fox\nsame\n",
            "the quick red fox\nsame\n",
            far(),
            None,
        );
        let changed = d.rows.iter().find(|r| r.kind == DiffKind::Changed).unwrap();
        assert!(
            changed.left.contains(&("brown".into(), true)),
            "{changed:?}"
        );
        assert!(changed.right.contains(&("red".into(), true)), "{changed:?}");
        assert!(changed.left.iter().any(|(t, c)| !c && t.contains("quick")));
        assert_eq!(d.equal, 0.5);
    }

    #[test]
    fn a_moved_paragraph_is_one_moved_block() {
        let a = "First paragraph about whales and ships.\nIt goes on for a while.\n\
                 Middle text stays here.\nMore middle text.\nEven more middle.\n";
        let b = "Middle text stays here.\nMore middle text.\nEven more middle.\n\
                 First paragraph about whales and ships.\nIt goes on for a while.\n";
        let d = diff_texts(a, b, far(), None);
        assert_eq!(d.moved_blocks, 1, "{:?}", d.rows);
    }

    #[test]
    fn a_passed_deadline_still_gives_a_diff() {
        let a: String = (0..2000).map(|i| format!("line {i} of a\n")).collect();
        let b: String = (0..2000)
            .map(|i| format!("line {} of b\n", i * 7))
            .collect();
        let d = diff_texts(&a, &b, Instant::now(), None);
        assert!(d.truncated);
        assert!(!d.rows.is_empty());
        let lefts = d.rows.iter().filter(|r| r.left_no.is_some()).count();
        let rights = d.rows.iter().filter(|r| r.right_no.is_some()).count();
        assert_eq!((lefts, rights), (2000, 2000));
    }

    #[test]
    fn shared_lines_are_marked() {
        let winnow = Winnow::new(Default::default());
        let passage = "It is a truth universally acknowledged, that a single man in \
                       possession of a good fortune, must be in want of a wife.";
        let a = format!("Unrelated opening line here.\n{passage}\n");
        let b = format!("{passage}\nSomething else entirely different.\n");
        let grams = winnow.kgrams(&normalize(passage));
        let hashes: HashSet<u32> = crate::engine::algo::winnow::winnow(&grams, winnow.config.w)
            .iter()
            .map(|m| crate::engine::algo::winnow::kept(m.hash))
            .collect();
        let shared = Shared {
            winnow: &winnow,
            hashes: &hashes,
        };
        let d = diff_texts(&a, &b, far(), Some(&shared));
        let marked: Vec<bool> = d.rows.iter().map(|r| r.shared).collect();
        assert!(d.rows.iter().any(|r| r.shared && r.kind == DiffKind::Equal));
        assert!(
            d.rows
                .iter()
                .filter(|r| r.left.iter().any(|(t, _)| t.contains("Unrelated")))
                .all(|r| !r.shared),
            "{marked:?}"
        );
    }
}
