//! The words of one side of a diff: whitespace-separated, each with its
//! bytes in the original text, a word hyphenated across a line end taken as
//! one, and its normalized form (the engine's rules: NFKC, case folding,
//! quotes), which is what the two sides are matched on. Byte ranges the
//! caller names as ignored (page furniture, boilerplate) keep their words,
//! marked [`DiffKind::Ignored`], out of the comparison; a word hyphenated
//! across a page break joins over the furniture between its halves, as the
//! engine joins it once the furniture is stripped
//! ([`doppel_core::engine::text::page_furniture`]), and the furniture is
//! then hidden inside it ([`DiffSide::joins`](crate::worker::protocol::DiffSide::joins)).

use std::ops::Range;

use crate::worker::protocol::{shown_chars, DiffKind, DiffWord};
use doppel_core::engine::text::normalize;
use doppel_core::engine::text::normalize::line_end_hyphen_join;
use doppel_core::hash::token_hash;

/// One side's words, ready to align.
#[derive(Debug, Default)]
pub(crate) struct Words {
    pub words: Vec<DiffWord>,
    /// Every word's normalized form, joined by single spaces: what
    /// [`normalize`] makes of the whole text (for text without ignored
    /// ranges), or of the text less the furniture a word is hyphenated
    /// across.
    pub keys: String,
    /// Where each word's normalized form starts in [`Self::keys`].
    pub key_starts: Vec<u32>,
    /// The normalized form's hash, per word.
    pub hashes: Vec<u64>,
    /// As [`DiffSide::joins`](crate::worker::protocol::DiffSide::joins).
    pub joins: Vec<(u32, u32)>,
}

impl Words {
    /// The normalized form of word `i`.
    #[cfg(test)]
    pub fn key(&self, i: usize) -> &str {
        let start = self.key_starts[i] as usize;
        let end = self
            .key_starts
            .get(i + 1)
            .map_or(self.keys.len(), |&s| s as usize - 1);
        &self.keys[start..end]
    }

    /// Indexes of the words taking part in the comparison.
    pub fn compared(&self) -> Vec<u32> {
        (0..self.words.len() as u32)
            .filter(|&i| self.words[i as usize].kind != DiffKind::Ignored)
            .collect()
    }
}

/// Line ends in a run of whitespace (`\r\n` counts once).
fn line_ends(gap: &str) -> usize {
    let b = gap.as_bytes();
    (0..b.len())
        .filter(|&k| b[k] == b'\n' || (b[k] == b'\r' && b.get(k + 1) != Some(&b'\n')))
        .count()
}

/// Whitespace-separated tokens of `text` as byte ranges.
fn tokens(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::with_capacity(text.len() / 5);
    let mut start = None;
    for (k, c) in text.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                out.push((s, k));
                start = None;
            }
            (false, None) => start = Some(k),
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, text.len()));
    }
    out
}

/// The byte of the hyphen (or soft hyphen) a token ends in.
fn final_hyphen(text: &str, (start, end): (usize, usize)) -> Option<usize> {
    let token = &text[start..end];
    token
        .strip_suffix('-')
        .or_else(|| token.strip_suffix('\u{ad}'))
        .map(|stem| start + stem.len())
}

/// Whether `first` and `next` are one word hyphenated across a line end,
/// as [`normalize`] joins them ([`line_end_hyphen_join`]).
fn hyphen_joins(text: &str, first: (usize, usize), next: (usize, usize)) -> bool {
    final_hyphen(text, first).is_some_and(|h| line_end_hyphen_join(text, h) == Some(next.0))
}

/// The parts of `ignored` inside bytes `gap`, sorted and merged.
fn ignored_in(ignored: &[Range<usize>], gap: Range<usize>) -> Vec<Range<usize>> {
    let mut cut: Vec<Range<usize>> = ignored
        .iter()
        .map(|r| r.start.max(gap.start)..r.end.min(gap.end))
        .filter(|r| !r.is_empty())
        .collect();
    cut.sort_by_key(|r| r.start);
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(cut.len());
    for r in cut {
        match merged.last_mut() {
            Some(last) if last.end >= r.start => last.end = last.end.max(r.end),
            _ => merged.push(r),
        }
    }
    merged
}

/// Where the word of token `k` (compared) goes on: the index of the first
/// token after it outside `ignored` when the two are one word by
/// normalization's rule once the ignored bytes between them are left out
/// (as the engine reads the text with its page furniture stripped), and,
/// when there were such bytes (a page break's running head and folio),
/// the bytes the word hides (from its hyphen to where it resumes).
fn joins_over(
    text: &str,
    raw: &[(usize, usize)],
    k: usize,
    is_ignored: impl Fn((usize, usize)) -> bool,
    ignored: &[Range<usize>],
) -> Option<(usize, Option<(u32, u32)>)> {
    let first = raw[k];
    let hyphen = final_hyphen(text, first)?;
    let m = (k + 1..raw.len()).find(|&m| !is_ignored(raw[m]))?;
    let next = raw[m];
    let cut = ignored_in(ignored, first.1..next.0);
    if cut.is_empty() {
        return (line_end_hyphen_join(text, hyphen) == Some(next.0)).then_some((m, None));
    }
    // The two halves with what lies between them less the ignored bytes.
    let mut probe = String::with_capacity(next.1 - first.0);
    probe.push_str(&text[first.0..first.1]);
    let mut at = first.1;
    for r in &cut {
        probe.push_str(&text[at..r.start]);
        at = r.end;
    }
    probe.push_str(&text[at..next.0]);
    let resume = probe.len();
    probe.push_str(&text[next.0..next.1]);
    (line_end_hyphen_join(&probe, hyphen - first.0) == Some(resume))
        .then_some((m, Some((hyphen as u32, next.0 as u32))))
}

/// The words of `text`, those inside an `ignored` range left out of the
/// comparison. Offsets must fit in `u32` (the worker's size cap does).
pub(crate) fn words(text: &str, ignored: &[Range<usize>]) -> Words {
    let raw = tokens(text);
    let mut out = Words {
        words: Vec::with_capacity(raw.len()),
        keys: String::with_capacity(text.len()),
        key_starts: Vec::with_capacity(raw.len()),
        hashes: Vec::with_capacity(raw.len()),
        joins: Vec::new(),
    };
    let is_ignored =
        |(start, end): (usize, usize)| ignored.iter().any(|r| r.start <= start && end <= r.end);
    let mut k = 0;
    let mut prev_end = 0;
    let mut display = String::new();
    while k < raw.len() {
        let (start, mut end) = raw[k];
        let joins_before = out.joins.len();
        while k + 1 < raw.len() {
            // A compared word goes on past ignored words, as the engine
            // reads it without them; an ignored one (a running head) only
            // across a line end.
            let next = if ignored.is_empty() || is_ignored(raw[k]) {
                hyphen_joins(text, raw[k], raw[k + 1]).then_some((k + 1, None))
            } else {
                joins_over(text, &raw, k, is_ignored, ignored)
            };
            let Some((m, hidden)) = next else {
                break;
            };
            out.joins.extend(hidden);
            k = m;
            end = raw[k].1;
        }
        k += 1;
        let paragraph = !out.words.is_empty() && line_ends(&text[prev_end..start]) >= 2;
        prev_end = end;
        out.words.push(DiffWord {
            start: start as u32,
            end: end as u32,
            kind: if is_ignored((start, end)) {
                DiffKind::Ignored
            } else {
                DiffKind::Equal
            },
            paragraph,
            shared: false,
        });
        if !out.keys.is_empty() {
            out.keys.push(' ');
        }
        let key_start = out.keys.len();
        out.key_starts.push(key_start as u32);
        display.clear();
        display.extend(shown_chars(text, start..end, &out.joins[joins_before..]).map(|(_, c)| c));
        if display.is_ascii() {
            out.keys
                .extend(display.chars().map(|c| c.to_ascii_lowercase()));
        } else {
            out.keys.push_str(&normalize(&display));
        }
        out.hashes.push(token_hash(&out.keys[key_start..]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worker::protocol::DiffSide;

    fn shown(text: &str) -> Vec<String> {
        let w = words(text, &[]);
        let side = DiffSide {
            text: text.to_owned(),
            words: w.words,
            ..Default::default()
        };
        (0..side.words.len()).map(|i| side.word_text(i)).collect()
    }

    #[test]
    fn words_keep_their_bytes_and_join_line_end_hyphens() {
        let text = "It is a truth uni-\r\n  versally known,\n\nthat ﬁrst";
        assert_eq!(
            shown(text),
            [
                "It",
                "is",
                "a",
                "truth",
                "universally",
                "known,",
                "that",
                "ﬁrst"
            ]
        );
        let w = words(text, &[]);
        assert_eq!(
            &text[w.words[4].start as usize..w.words[4].end as usize],
            "uni-\r\n  versally"
        );
        assert_eq!(w.key(4), "universally");
        assert_eq!(w.key(0), "it");
        assert_eq!(w.key(7), "first", "ligatures fold as the engine folds them");
        let paragraphs: Vec<bool> = w.words.iter().map(|w| w.paragraph).collect();
        assert_eq!(
            paragraphs,
            [false, false, false, false, false, false, true, false]
        );
    }

    #[test]
    fn keys_joined_are_the_engines_normal_form() {
        let text = "The ﬁrst  ﬂight\u{a0}OF\tDon’t digi-\ntized\r\n\r\nEnd -\nstart well-\n known";
        assert_eq!(words(text, &[]).keys, normalize(text));
    }

    proptest::proptest! {
        /// The words' normalized forms joined are the engine's normal form
        /// of the whole text, so winnowing's k-grams over them are the ones
        /// its fingerprints were taken from.
        #[test]
        fn keys_joined_are_always_the_engines_normal_form(
            text in "[aZß ﬁ’\\-\t\r\n]{0,60}"
        ) {
            proptest::prop_assert_eq!(words(&text, &[]).keys, normalize(&text));
        }
    }

    #[test]
    fn a_hyphen_not_at_a_line_end_or_before_a_blank_line_stays() {
        assert_eq!(shown("well- known"), ["well-", "known"]);
        assert_eq!(shown("end-\n\nstart"), ["end-", "start"]);
        assert_eq!(shown("pages 12-\n13"), ["pages", "12-", "13"]);
    }

    #[test]
    fn ignored_ranges_keep_their_words_out_of_the_comparison() {
        let text = "PRIDE AND PREJUDICE  2\n\nfive thousand";
        let head = 0..22;
        let w = words(text, std::slice::from_ref(&head));
        let kinds: Vec<DiffKind> = w.words.iter().map(|w| w.kind).collect();
        assert_eq!(kinds[..4], [DiffKind::Ignored; 4]);
        assert_eq!(kinds[4..], [DiffKind::Equal; 2]);
        assert_eq!(w.compared(), [4, 5]);
    }
}
