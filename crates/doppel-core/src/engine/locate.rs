//! Where two matched documents match: the stretch of each text the other
//! shares, as byte ranges, for a pair's "scan pp. 41–57 ≈ e-text lines
//! 1,204–2,311".
//!
//! The scores say how much two texts share, not where. [`matched_extent`]
//! finds it from runs of [`RUN_WORDS`] words (lowercased, letters and
//! digits only, so OCR's punctuation and line breaks do not matter) that
//! occur in both texts. On each side the shared runs fall in stretches
//! (split where [`GAP_WORDS`] words pass without one); the extent runs from
//! the first to the last stretch with at least a tenth of the largest's
//! runs, so a phrase the texts share by chance far from the match, or a
//! licence they both carry, does not stretch a chapter's place to the whole
//! book. Text a caller leaves out (boilerplate spans) never counts.

use std::collections::HashSet;
use std::ops::Range;

use crate::hash::mix64;

/// How many words in a row two texts must share to count as matching
/// there: long enough that common phrases do not, short enough that OCR's
/// misread words leave most runs whole.
pub const RUN_WORDS: usize = 6;

/// How many words without a shared run split the shared runs into two
/// stretches: about two printed pages.
pub const GAP_WORDS: usize = 600;

/// Where `a` and `b` match: the byte range of each that holds the runs of
/// words they share (see the module's paragraph), leaving out the bytes in
/// `skip_a` and `skip_b`. `None` when they share no run.
pub fn matched_extent(
    a: &str,
    skip_a: &[Range<usize>],
    b: &str,
    skip_b: &[Range<usize>],
) -> Option<(Range<usize>, Range<usize>)> {
    let runs_a = runs(a, skip_a);
    let runs_b = runs(b, skip_b);
    let in_a: HashSet<u64> = runs_a.iter().map(|r| r.hash).collect();
    let in_b: HashSet<u64> = runs_b.iter().map(|r| r.hash).collect();
    let extent_a = extent(runs_a.iter().filter(|r| in_b.contains(&r.hash)))?;
    let extent_b = extent(runs_b.iter().filter(|r| in_a.contains(&r.hash)))?;
    Some((extent_a, extent_b))
}

/// Where `range` of `text` is, in words a curator reads: its pages by
/// `pages` (`"p. 41"`, `"pp. 41–57"`), else its lines (`"lines
/// 1,204–2,311"`, `"line 12"`).
pub fn describe(
    text: &str,
    pages: Option<&doppel_formats::PageMap>,
    range: &Range<usize>,
) -> String {
    if let Some(named) = pages.and_then(|p| p.range_name(range.clone())) {
        let plural = named.contains('–');
        return format!("{} {named}", if plural { "pp." } else { "p." });
    }
    let line_at =
        |at: usize| 1 + memchr::memchr_iter(b'\n', &text.as_bytes()[..at.min(text.len())]).count();
    let (first, last) = (
        line_at(range.start),
        line_at(range.end.saturating_sub(1).max(range.start)),
    );
    if first == last {
        format!("line {}", grouped(first))
    } else {
        format!("lines {}–{}", grouped(first), grouped(last))
    }
}

/// `n` with a comma between each group of three digits (`1,204`).
fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// One run of [`RUN_WORDS`] words: its hash and where it is.
struct Run {
    hash: u64,
    bytes: Range<usize>,
    /// The index of its first word.
    word: usize,
}

/// The runs of `text`, in order, none touching a `skip` range.
fn runs(text: &str, skip: &[Range<usize>]) -> Vec<Run> {
    let words = words(text, skip);
    words
        .windows(RUN_WORDS)
        .enumerate()
        .filter(|(_, w)| w[RUN_WORDS - 1].segment == w[0].segment)
        .map(|(word, w)| Run {
            word,
            hash: w.iter().fold(0, |h, word| mix64(h ^ word.hash)),
            bytes: w[0].bytes.start..w[RUN_WORDS - 1].bytes.end,
        })
        .collect()
}

/// A word: its hash, where it is, and which stretch between left-out
/// ranges it is in (a run never spans a left-out range).
struct Word {
    hash: u64,
    bytes: Range<usize>,
    segment: usize,
}

/// The words of `text` outside `skip`: maximal runs of alphanumeric
/// characters, lowercased.
fn words(text: &str, skip: &[Range<usize>]) -> Vec<Word> {
    let mut skip = skip.to_vec();
    skip.sort_by_key(|r| r.start);
    let mut skip = skip.into_iter().peekable();
    let mut out = Vec::new();
    let (mut segment, mut in_skip) = (0, false);
    let mut current: Option<(usize, u64)> = None;
    let mut flush = |current: &mut Option<(usize, u64)>, end: usize, segment: usize| {
        if let Some((start, hash)) = current.take() {
            out.push(Word {
                hash,
                bytes: start..end,
                segment,
            });
        }
    };
    for (at, c) in text.char_indices() {
        while skip.peek().is_some_and(|r| r.end <= at) {
            skip.next();
        }
        let skipped = skip.peek().is_some_and(|r| r.start <= at);
        if skipped != in_skip {
            flush(&mut current, at, segment);
            segment += usize::from(skipped);
            in_skip = skipped;
        }
        if c.is_alphanumeric() && !skipped {
            let (_, hash) = current.get_or_insert((at, 0x9e37_79b9_7f4a_7c15));
            for lower in c.to_lowercase() {
                *hash = mix64(*hash ^ u64::from(lower));
            }
        } else {
            flush(&mut current, at, segment);
        }
    }
    flush(&mut current, text.len(), segment);
    out
}

/// The extent of the shared `runs` (in text order): from the first to the
/// last stretch that holds at least a tenth of the largest's runs.
fn extent<'a>(runs: impl Iterator<Item = &'a Run>) -> Option<Range<usize>> {
    // Each stretch: its first run, its last run, and how many it holds.
    let mut stretches: Vec<(&Run, &Run, usize)> = Vec::new();
    for run in runs {
        match stretches.last_mut() {
            Some((_, last, count)) if run.word - last.word <= GAP_WORDS => {
                *last = run;
                *count += 1;
            }
            _ => stretches.push((run, run, 1)),
        }
    }
    let largest = stretches.iter().map(|s| s.2).max()?;
    let mut kept = stretches.iter().filter(|s| s.2 * 10 >= largest);
    let first = kept.next()?;
    let last = kept.next_back().unwrap_or(first);
    Some(first.0.bytes.start..last.1.bytes.end)
}

#[cfg(test)]
mod tests;
