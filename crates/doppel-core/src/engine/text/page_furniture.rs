//! Page furniture of scanned books: page breaks, running heads and feet,
//! page numbers, found in decoded text and returned as byte ranges.
//!
//! OCR output of a printed book carries the printer's page layout: a form
//! feed between pages, a running head at each page top (often the title on
//! even pages and the chapter on odd ones, with the page number at the
//! outer margin), a page number at the foot. None of it is the book's text:
//! left in, a head splits every sentence it interrupts (breaking the word
//! shingles around it, and a word hyphenated across the page break), and
//! two scans of different books from one scanner share it. [`find`] finds
//! it; [`strip`] removes it, so the engine fingerprints the text without it
//! (one place, before normalization: [`crate::engine::Engine::analyze`]),
//! and a review screen can grey out the same ranges.
//!
//! Pages come from form feeds or, without them, from a chain of page-number
//! lines (consecutive numbers at a regular interval of lines, with page
//! breaks that fall inside sentences, as a printer's do and a poem's or a
//! list's numbering do not). Within pages only the first and last two
//! non-blank lines are looked at, from the edge inwards, and one is
//! furniture when it is a page number (alone or at the margin of a head,
//! ≥ 2 spaces from its text) that fits the page sequence, or its text
//! recurs at that edge of several pages once digits and roman numerals are
//! masked (`CHAPTER IV` = `CHAPTER IX`), alternating heads included. So it
//! is conservative: a text without form feeds and without such a chain
//! (e-texts, poetry, verse lines, plays, tables of contents) has no
//! furniture, and finding that costs one pass over its line ends. A
//! scanning notice on the first page is not furniture (it is no page's
//! head or foot); it is boilerplate that recurs across documents, for
//! collection-level detection to handle.
//!
//! Each range covers whole lines with their line end, and the blank lines
//! between the furniture and the page's text, so removing the ranges
//! leaves the text before a page break and the text after it one line end
//! apart: a word hyphenated across the break (`digi-` / head / `tized`)
//! then joins as normalization joins any end-of-line hyphen.

use std::borrow::Cow;
use std::collections::{HashMap, TryReserveError};
use std::ops::Range;

use serde::Serialize;

/// What a range of page furniture is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FurnitureKind {
    /// A form feed between pages.
    PageBreak,
    /// A line at a page top: a running head, with or without its number.
    RunningHead,
    /// A line at a page foot other than a bare page number.
    RunningFoot,
    /// A line holding only a page number.
    PageNumber,
}

/// One range of page furniture in a decoded text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Furniture {
    /// Byte range in the text; whole lines with their line end (and the
    /// blank lines that separate them from the page's text), or one form
    /// feed.
    pub range: Range<usize>,
    /// What the range holds: a running head, a page number, a form feed.
    pub kind: FurnitureKind,
}

/// Fewest pages a chain of page numbers must number.
const MIN_CHAIN: usize = 3;
/// Fewest and most lines a page of an inferred chain may hold.
const PAGE_LINES: Range<usize> = 12..201;
/// Longest line (trimmed, in bytes) that may be furniture.
const MAX_LINE: usize = 100;
/// Non-blank lines looked at from each edge of a page ...
const ZONE_LINES: usize = 2;
/// ... among this many lines from the edge.
const ZONE_REACH: usize = 5;
/// How far (in pages) a page number may drift from the document's offset
/// (a form feed lost or added by the scanner shifts the rest by one).
const DRIFT: i64 = 2;

/// The page furniture of `text`, sorted and disjoint (empty when the text
/// shows no page structure); an error when memory for the text's lines
/// (12 bytes each) cannot be had (a reader skips the file with the reason).
pub fn find(text: &str) -> Result<Vec<Furniture>, TryReserveError> {
    let bytes = text.as_bytes();
    let form_feeds = memchr::memchr_iter(FORM_FEED, bytes).count();
    if (form_feeds == 0 && !may_hold_page_numbers(bytes)) || u32::try_from(bytes.len()).is_err() {
        return Ok(Vec::new());
    }
    let lines = lines_of(text)?;
    let layout = if form_feeds >= 2 {
        Some(form_feed_pages(&lines))
    } else {
        inferred_pages(text, &lines).or_else(|| (form_feeds == 1).then(|| form_feed_pages(&lines)))
    };
    let mut found = Vec::new();
    if let Some(layout) = layout {
        classify(text, &lines, &layout, &mut found);
    }
    for pos in memchr::memchr_iter(FORM_FEED, bytes) {
        // Only a form feed after whitespace: removing one between two
        // words would glue them.
        if pos == 0 || bytes[pos - 1].is_ascii_whitespace() {
            found.push(Furniture {
                range: pos..pos + 1,
                kind: FurnitureKind::PageBreak,
            });
        }
    }
    Ok(disjoint(found))
}

/// `text` without the `furniture` ranges (sorted, disjoint, as [`find`]
/// returns them); borrowed when there are none.
pub fn strip<'a>(text: &'a str, furniture: &[Furniture]) -> Cow<'a, str> {
    strip_ranges(text, furniture.iter().map(|f| f.range.clone()))
}

/// `text` without `ranges` (sorted, disjoint byte ranges at character
/// boundaries); borrowed when there are none.
pub fn strip_ranges(text: &str, ranges: impl IntoIterator<Item = Range<usize>>) -> Cow<'_, str> {
    let mut ranges = ranges.into_iter().peekable();
    if ranges.peek().is_none() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for range in ranges {
        out.push_str(&text[at..range.start]);
        at = range.end;
    }
    out.push_str(&text[at..]);
    Cow::Owned(out)
}

/// `text` without its page furniture ([`find`], then [`strip`]).
pub fn without_furniture(text: &str) -> Result<Cow<'_, str>, TryReserveError> {
    Ok(strip(text, &find(text)?))
}

const FORM_FEED: u8 = 0x0c;

/// Whether three lines start or end with a digit: without form feeds,
/// pages are inferred only from numbered lines, so a text with fewer is
/// done after this one pass over its line ends.
fn may_hold_page_numbers(bytes: &[u8]) -> bool {
    let blank = |b: &&u8| matches!(**b, b' ' | b'\t' | b'\r');
    let mut candidates = 0;
    let mut line_start = 0;
    for end in memchr::memchr_iter(b'\n', bytes) {
        let line = &bytes[line_start..end];
        line_start = end + 1;
        let first = line.iter().find(|b| !blank(b));
        let last = line.iter().rev().find(|b| !blank(b));
        if first.is_some_and(u8::is_ascii_digit) || last.is_some_and(u8::is_ascii_digit) {
            candidates += 1;
            if candidates >= MIN_CHAIN {
                return true;
            }
        }
    }
    false
}

/// A line: its content `start..end` (no line end; the next line starts
/// after it); `ends_page` when a form feed ends it. Offsets are 32-bit
/// (12 bytes a line: a book has one per 60 bytes or so); [`find`] leaves
/// texts of 4 GiB and more alone.
#[derive(Debug, Clone, Copy)]
struct Line {
    start: u32,
    end: u32,
    ends_page: bool,
}

impl Line {
    fn start(&self) -> usize {
        self.start as usize
    }

    fn end(&self) -> usize {
        self.end as usize
    }

    /// Where the next line starts, in a text of `len` bytes.
    fn next(&self, len: usize) -> usize {
        (self.end() + 1).min(len)
    }
}

/// Lines split at `\n` and at form feeds (a `\r` before `\n` stays in the
/// content, where trimming drops it). Fails only when memory for them
/// cannot be had.
fn lines_of(text: &str) -> Result<Vec<Line>, TryReserveError> {
    let bytes = text.as_bytes();
    let ends = memchr::memchr2_iter(b'\n', FORM_FEED, bytes).count();
    let mut lines = Vec::new();
    crate::engine::memory::try_reserve_exact(&mut lines, ends + 1)?;
    let mut start = 0;
    for i in memchr::memchr2_iter(b'\n', FORM_FEED, bytes) {
        lines.push(Line {
            start: start as u32,
            end: i as u32,
            ends_page: bytes[i] == FORM_FEED,
        });
        start = i + 1;
    }
    if start < bytes.len() {
        lines.push(Line {
            start: start as u32,
            end: bytes.len() as u32,
            ends_page: false,
        });
    }
    Ok(lines)
}

fn content<'a>(text: &'a str, line: &Line) -> &'a str {
    text[line.start()..line.end()].trim()
}

/// A page number: its value, and whether it is in roman numerals (front
/// matter, numbered apart).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct PageNo {
    value: u32,
    roman: bool,
}

/// What a line looks like to the furniture rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape<'a> {
    Blank,
    /// Only a page number (with dashes, brackets or `page` around it).
    Bare(PageNo),
    /// A page number at either margin, ≥ 2 spaces (or a tab) from text.
    Edge {
        number: PageNo,
        text: &'a str,
    },
    Text(&'a str),
}

fn shape(line: &str, roman: bool) -> Shape<'_> {
    if line.is_empty() {
        return Shape::Blank;
    }
    if line.len() > MAX_LINE {
        return Shape::Text(line);
    }
    let bare = line.trim_matches(|c: char| c.is_whitespace() || "-–—[]()|*.·".contains(c));
    if let Some(number) = page_number(without_page_prefix(bare), roman) {
        return Shape::Bare(number);
    }
    let has_letter = |s: &str| s.chars().any(char::is_alphabetic);
    let is_blank = |c: char| c == ' ' || c == '\t';
    // The first or the last token, set off by a margin gap.
    if let Some(end) = line.find(is_blank) {
        let rest = line[end..].trim_start_matches(is_blank);
        let gap = &line[end..line.len() - rest.len()];
        if margin_gap(gap) && has_letter(rest) {
            if let Some(number) = page_number(&line[..end], roman) {
                return Shape::Edge { number, text: rest };
            }
        }
    }
    if let Some(start) = line.rfind(is_blank) {
        let rest = line[..=start].trim_end_matches(is_blank);
        let gap = &line[rest.len()..=start];
        if margin_gap(gap) && has_letter(rest) {
            if let Some(number) = page_number(&line[start + 1..], roman) {
                return Shape::Edge { number, text: rest };
            }
        }
    }
    Shape::Text(line)
}

/// Whether a run of blanks sets a margin number off from text: two or more
/// characters, or a tab.
fn margin_gap(gap: &str) -> bool {
    gap.len() >= 2 || gap.contains('\t')
}

/// `page 12`, `p. 12` → `12`.
fn without_page_prefix(s: &str) -> &str {
    for prefix in ["page ", "p. ", "p "] {
        if s.len() > prefix.len()
            && s.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
        {
            return s[prefix.len()..].trim_start();
        }
    }
    s
}

/// A page number token: up to four digits, where OCR's `l`, `I`, `O` and
/// `o` read as digits in a token holding a real one; or, when `roman`, a
/// roman numeral in its canonical form (front matter), in one case.
fn page_number(token: &str, roman: bool) -> Option<PageNo> {
    if !token.bytes().any(|b| b.is_ascii_digit()) {
        let value = roman_value(token).filter(|_| roman)?;
        return Some(PageNo { value, roman: true });
    }
    if token.len() > 4 {
        return None;
    }
    let mut value = 0u32;
    for b in token.bytes() {
        let digit = match b {
            b'0'..=b'9' => b - b'0',
            b'l' | b'I' => 1,
            b'O' | b'o' => 0,
            _ => return None,
        };
        value = value * 10 + u32::from(digit);
    }
    (value > 0).then_some(PageNo {
        value,
        roman: false,
    })
}

/// The value of a canonical roman numeral (`xiv`, `XIV`; not `IIII`, `Xiv`).
fn roman_value(token: &str) -> Option<u32> {
    if token.len() > 9 {
        return None;
    }
    let upper = token.bytes().all(|b| b.is_ascii_uppercase());
    let lower = token.bytes().all(|b| b.is_ascii_lowercase());
    if !upper && !lower {
        return None;
    }
    let digit = |b: u8| match b.to_ascii_uppercase() {
        b'I' => Some(1),
        b'V' => Some(5),
        b'X' => Some(10),
        b'L' => Some(50),
        b'C' => Some(100),
        b'D' => Some(500),
        b'M' => Some(1000),
        _ => None,
    };
    let values: Vec<u32> = token.bytes().map(digit).collect::<Option<_>>()?;
    let mut total = 0;
    for (i, &v) in values.iter().enumerate() {
        if values.get(i + 1).is_some_and(|&next| next > v) {
            total -= v as i64;
        } else {
            total += v as i64;
        }
    }
    let total = u32::try_from(total)
        .ok()
        .filter(|&t| (1..4000).contains(&t))?;
    (to_roman(total).eq_ignore_ascii_case(token)).then_some(total)
}

fn to_roman(mut n: u32) -> String {
    const TABLE: [(u32, &str); 13] = [
        (1000, "M"),
        (900, "CM"),
        (500, "D"),
        (400, "CD"),
        (100, "C"),
        (90, "XC"),
        (50, "L"),
        (40, "XL"),
        (10, "X"),
        (9, "IX"),
        (5, "V"),
        (4, "IV"),
        (1, "I"),
    ];
    let mut out = String::new();
    for (value, numeral) in TABLE {
        while n >= value {
            out.push_str(numeral);
            n -= value;
        }
    }
    out
}

/// A running head's text with digits and roman numerals masked, case and
/// spacing folded: what recurs from page to page.
fn masked_key(text: &str) -> String {
    let mut key = String::with_capacity(text.len());
    for token in text.split_whitespace() {
        if !key.is_empty() {
            key.push(' ');
        }
        let core = token.trim_matches(|c: char| !c.is_alphanumeric());
        if !core.is_empty() && roman_value(core).is_some() {
            let at = token.find(core).unwrap_or(0);
            key.push_str(&token[..at].to_lowercase());
            key.push('#');
            key.push_str(&token[at + core.len()..].to_lowercase());
            continue;
        }
        let mut in_digits = false;
        for c in token.chars() {
            if c.is_ascii_digit() {
                if !in_digits {
                    key.push('#');
                }
                in_digits = true;
            } else {
                in_digits = false;
                key.extend(c.to_lowercase());
            }
        }
    }
    key
}

/// Pages as ranges of line indices, and how they were found.
struct Layout {
    pages: Vec<Range<usize>>,
    /// From form feeds (else from a chain of page numbers).
    form_feeds: bool,
}

fn form_feed_pages(lines: &[Line]) -> Layout {
    let mut pages = Vec::new();
    let mut start = 0;
    for (i, line) in lines.iter().enumerate() {
        if line.ends_page {
            pages.push(start..i + 1);
            start = i + 1;
        }
    }
    if start < lines.len() {
        pages.push(start..lines.len());
    }
    Layout {
        pages,
        form_feeds: true,
    }
}

/// Pages from the longest chain of page-number lines (each number one or
/// two more than the one before, at a steady interval of lines), when its
/// breaks fall inside sentences often enough to be a printer's.
fn inferred_pages(text: &str, lines: &[Line]) -> Option<Layout> {
    // (line index, number) of every line shaped like a page number.
    let candidates: Vec<(usize, u32)> = lines
        .iter()
        .enumerate()
        .filter_map(|(i, line)| {
            let c = content(text, line);
            let edge = |b: Option<u8>| b.is_some_and(|b| b.is_ascii_digit());
            if !edge(c.bytes().next()) && !edge(c.bytes().next_back()) {
                return None;
            }
            match shape(c, false) {
                Shape::Bare(n) | Shape::Edge { number: n, .. } => Some((i, n.value)),
                _ => None,
            }
        })
        .collect();
    if candidates.len() < MIN_CHAIN {
        return None;
    }
    // Longest chain ending at each candidate, through the latest
    // candidate holding the number before (or the one before that).
    let mut latest: HashMap<u32, usize> = HashMap::new();
    let mut length = vec![1usize; candidates.len()];
    let mut previous = vec![None; candidates.len()];
    for (j, &(line, number)) in candidates.iter().enumerate() {
        for step in 1..=2u32 {
            let Some(&i) = number.checked_sub(step).and_then(|n| latest.get(&n)) else {
                continue;
            };
            let per_page = (line - candidates[i].0) / step as usize;
            if PAGE_LINES.contains(&per_page) && length[i] + 1 > length[j] {
                length[j] = length[i] + 1;
                previous[j] = Some(i);
            }
        }
        latest.insert(number, j);
    }
    let (mut at, &best) = length
        .iter()
        .enumerate()
        .max_by_key(|&(j, &l)| (l, usize::MAX - j))?;
    if best < MIN_CHAIN {
        return None;
    }
    let mut chain = vec![candidates[at]];
    while let Some(i) = previous[at] {
        chain.push(candidates[i]);
        at = i;
    }
    chain.reverse();
    if !steady(&chain) || !breaks_inside_sentences(text, lines, &chain) {
        return None;
    }
    // Numbers at page tops leave little text before the first and up to a
    // page after the last; numbers at the foot the other way round.
    let heads = chain[0].0 <= lines.len() - chain[chain.len() - 1].0;
    let mut pages = Vec::with_capacity(chain.len() + 1);
    let mut start = 0;
    for &(line, _) in &chain {
        let end = if heads { line } else { line + 1 };
        if end > start {
            pages.push(start..end);
        }
        start = end;
    }
    if start < lines.len() {
        pages.push(start..lines.len());
    }
    Some(Layout {
        pages,
        form_feeds: false,
    })
}

/// Whether three quarters of a chain's pages hold within a quarter of
/// their median number of lines.
fn steady(chain: &[(usize, u32)]) -> bool {
    let mut per_page: Vec<usize> = chain
        .windows(2)
        .map(|w| (w[1].0 - w[0].0) / (w[1].1 - w[0].1) as usize)
        .collect();
    per_page.sort_unstable();
    let median = per_page[per_page.len() / 2];
    let near = per_page
        .iter()
        .filter(|&&n| n * 5 >= median * 4 && n * 4 <= median * 5)
        .count();
    near * 4 >= per_page.len() * 3
}

/// Whether at least a quarter of the chain's breaks fall inside a
/// sentence: the text before ends in a letter, a comma or a dash, or
/// (after a number alone on its line) the text after starts in lower case.
/// A printer breaks pages anywhere; a poem's, a verse's or a list's numbers
/// come after a full stop. (The line after a numbered line of text is that
/// line's own continuation, so it says nothing.)
fn breaks_inside_sentences(text: &str, lines: &[Line], chain: &[(usize, u32)]) -> bool {
    let numbered: std::collections::HashSet<usize> = chain.iter().map(|&(i, _)| i).collect();
    let is_text = |i: &usize| !numbered.contains(i) && !content(text, &lines[*i]).is_empty();
    let inside = chain
        .iter()
        .filter(|&&(at, _)| {
            let before = (0..at)
                .rev()
                .find(is_text)
                .map(|i| content(text, &lines[i]));
            let open = before
                .and_then(|b| b.chars().next_back())
                .is_some_and(|c| c.is_alphabetic() || matches!(c, ',' | ';' | '-' | '\u{2014}'));
            let bare = matches!(shape(content(text, &lines[at]), false), Shape::Bare(_));
            let continued = bare
                && (at + 1..lines.len())
                    .find(is_text)
                    .and_then(|i| {
                        content(text, &lines[i])
                            .chars()
                            .find(|c| c.is_alphanumeric())
                    })
                    .is_some_and(char::is_lowercase);
            open || continued
        })
        .count();
    inside * 4 >= chain.len()
}

/// Which edge of a page a line sits at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Edge {
    Top,
    Bottom,
}

/// The first (top) or last (bottom) few non-blank lines of a page, from
/// the edge inwards.
fn zone(text: &str, lines: &[Line], page: &Range<usize>, edge: Edge) -> Vec<usize> {
    let reach: Vec<usize> = match edge {
        Edge::Top => page.clone().take(ZONE_REACH).collect(),
        Edge::Bottom => page.clone().rev().take(ZONE_REACH).collect(),
    };
    reach
        .into_iter()
        .filter(|&i| !content(text, &lines[i]).is_empty())
        .take(ZONE_LINES)
        .collect()
}

/// A line at a page's edge: its index, its shape and, for text, its
/// masked key.
struct Margin<'a> {
    line: usize,
    shape: Shape<'a>,
    key: Option<String>,
}

fn classify(text: &str, lines: &[Line], layout: &Layout, found: &mut Vec<Furniture>) {
    let pages = &layout.pages;
    let roman = layout.form_feeds;
    let margin = |i: usize| {
        let shape = shape(content(text, &lines[i]), roman);
        let key = match shape {
            Shape::Text(t) => Some(masked_key(t)),
            _ => None,
        };
        Margin {
            line: i,
            shape,
            key,
        }
    };
    let zones: Vec<[Vec<Margin>; 2]> = pages
        .iter()
        .map(|page| {
            let top = zone(text, lines, page, Edge::Top);
            let bottom = zone(text, lines, page, Edge::Bottom)
                .into_iter()
                .filter(|i| !top.contains(i));
            [
                top.iter().map(|&i| margin(i)).collect(),
                bottom.map(margin).collect(),
            ]
        })
        .collect();

    // The page sequences (arabic, and roman for front matter): the
    // commonest offset of a page's number from its index, when at least
    // three pages carry it (and, for arabic numbers, a third of them).
    let mut offsets: HashMap<(bool, i64), usize> = HashMap::new();
    for (p, [top, bottom]) in zones.iter().enumerate() {
        let number = top.iter().chain(bottom).find_map(|m| match m.shape {
            Shape::Bare(n) | Shape::Edge { number: n, .. } => Some(n),
            _ => None,
        });
        if let Some(n) = number {
            *offsets
                .entry((n.roman, i64::from(n.value) - p as i64))
                .or_default() += 1;
        }
    }
    let sequence = |roman: bool| {
        offsets
            .iter()
            .filter(|&(&(r, _), _)| r == roman)
            .max_by_key(|&(&(_, o), &count)| (count, -o))
            .filter(|&(_, &count)| count >= MIN_CHAIN && (roman || count * 3 >= pages.len()))
            .map(|(&(_, o), _)| o)
    };
    let (arabic, front) = (sequence(false), sequence(true));
    let fits = |p: usize, n: PageNo| {
        let offset = if n.roman { front } else { arabic };
        offset.is_some_and(|o| (i64::from(n.value) - p as i64 - o).abs() <= DRIFT)
    };
    let numbered = arabic.is_some();

    // The pages on which each text recurs at one place of one edge (the
    // first or second line from the top or bottom).
    let mut recurring: HashMap<(Edge, usize, &str), Vec<usize>> = HashMap::new();
    for (p, [top, bottom]) in zones.iter().enumerate() {
        for (edge, zone) in [(Edge::Top, top), (Edge::Bottom, bottom)] {
            for (k, m) in zone.iter().enumerate() {
                if let Some(key) = &m.key {
                    recurring.entry((edge, k, key)).or_default().push(p);
                }
            }
        }
    }
    let paged = numbered || front.is_some() || regular(pages);

    for (p, (page, [top, bottom])) in pages.iter().zip(&zones).enumerate() {
        for (edge, zone) in [(Edge::Top, top), (Edge::Bottom, bottom)] {
            for (k, m) in zone.iter().enumerate() {
                // A form feed right at this edge vouches for a margin line.
                let at_form_feed = layout.form_feeds
                    && k == 0
                    && match edge {
                        Edge::Top => page.start > 0 && lines[page.start - 1].ends_page,
                        Edge::Bottom => lines[page.end - 1].ends_page || page.end == lines.len(),
                    };
                let kind = match m.shape {
                    Shape::Bare(n) if fits(p, n) || !numbered && at_form_feed => {
                        FurnitureKind::PageNumber
                    }
                    Shape::Edge { number, text: t }
                        if fits(p, number) || !numbered && at_form_feed && no_lower(t) =>
                    {
                        margin_kind(edge)
                    }
                    Shape::Text(t)
                        if paged
                            && recurring
                                .get(&(edge, k, m.key.as_deref().unwrap_or_default()))
                                .is_some_and(|on| recurs(on, t, pages.len())) =>
                    {
                        margin_kind(edge)
                    }
                    _ => break,
                };
                found.push(Furniture {
                    range: line_range(text, lines, m.line),
                    kind,
                });
            }
        }
    }
}

fn no_lower(text: &str) -> bool {
    !text.chars().any(char::is_lowercase)
}

/// Whether a text standing at one place of one edge on pages `on` is a
/// running head or foot: it does so on at least three pages (two in a
/// text of six pages or fewer), on at least a third of the pages from its
/// first to its last (a chapter's head runs on every other page of the
/// chapter; a chapter heading that happens to open a page now and then
/// does not), and it is in capitals or on a tenth of all pages.
fn recurs(on: &[usize], text: &str, pages: usize) -> bool {
    let min = if pages <= 6 { 2 } else { MIN_CHAIN };
    let span = on[on.len() - 1] - on[0] + 1;
    on.len() >= min && on.len() * 3 >= span && (no_lower(text) || on.len() * 10 >= pages)
}

fn margin_kind(edge: Edge) -> FurnitureKind {
    match edge {
        Edge::Top => FurnitureKind::RunningHead,
        Edge::Bottom => FurnitureKind::RunningFoot,
    }
}

/// Whether most pages hold about as many lines (from the first quartile to
/// the third within half as many again): printed pages do, chapters cut by
/// form feeds do not.
fn regular(pages: &[Range<usize>]) -> bool {
    if pages.len() < MIN_CHAIN {
        return false;
    }
    let mut sizes: Vec<usize> = pages.iter().map(ExactSizeIterator::len).collect();
    sizes.sort_unstable();
    let (q1, q3) = (sizes[sizes.len() / 4], sizes[sizes.len() * 3 / 4]);
    q3 * 2 <= q1 * 3
}

/// Line `i`'s bytes with its line end, and the blank lines around it (a
/// page's text then meets the next page's one line end apart). A form
/// feed ending a line is left to its own range, and no range reaches past
/// one.
fn line_range(text: &str, lines: &[Line], i: usize) -> Range<usize> {
    let end_of = |line: &Line| {
        if line.ends_page {
            line.end()
        } else {
            line.next(text.len())
        }
    };
    let blank = |j: usize| content(text, &lines[j]).is_empty() && !lines[j].ends_page;
    let (mut first, mut last) = (i, i);
    while first > 0 && blank(first - 1) {
        first -= 1;
    }
    while !lines[last].ends_page && last + 1 < lines.len() && blank(last + 1) {
        last += 1;
    }
    lines[first].start()..end_of(&lines[last])
}

/// Sorted by start, with overlaps cut from the later range (a head's and a
/// foot's blank lines meet on a short page).
fn disjoint(mut found: Vec<Furniture>) -> Vec<Furniture> {
    found.sort_by_key(|f| (f.range.start, f.range.end));
    let mut out: Vec<Furniture> = Vec::with_capacity(found.len());
    for mut f in found {
        if let Some(last) = out.last() {
            f.range.start = f.range.start.max(last.range.end);
        }
        if !f.range.is_empty() {
            out.push(f);
        }
    }
    out
}

#[cfg(test)]
mod tests;
