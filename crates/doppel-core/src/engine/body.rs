//! A document's body: its analysis without some of its words (the
//! boilerplate the collection learned), and where those words sit in the
//! decoded text.
//!
//! Word positions are those of [`Engine::analyze`]'s words (page furniture
//! already left out). To find their bytes, the text without furniture is cut
//! into blocks of lines (a line ending in a hyphen joins the next, as
//! normalizing joins a word hyphenated across a line end) and each block's
//! words are counted by the analyzer itself; the block holding a boundary
//! is then counted token by token. Counting with the analyzer, rather than
//! re-implementing its rules, keeps the positions exact; when the blocks'
//! counts do not add up to the document's (a rule that joins across lines
//! that this module does not know of), no body is made and the caller keeps
//! the whole document.

use std::collections::TryReserveError;
use std::ops::Range;

use super::analysis::{Analysis, Needs};
use super::text::page_furniture;
use super::Engine;

/// A document without some of its words.
#[derive(Debug, Clone)]
pub struct Body {
    /// The analysis of the text left (what every algorithm fingerprints).
    pub analysis: Analysis,
    /// The byte ranges of the decoded text that were left out, one per
    /// word span, from the span's first word to the end of its last.
    pub ranges: Vec<Range<usize>>,
}

/// Only the words, for counting.
const WORDS_ONLY: Needs = Needs {
    text: false,
    alnum: false,
    terms: false,
};

impl Engine {
    /// Every word shingle hash of an analyzed document, one per word
    /// position (the `shingle` algorithm's `w` and seed): what the
    /// boilerplate learner samples.
    pub fn all_shingles<'a>(&self, doc: &'a Analysis) -> impl Iterator<Item = u64> + 'a {
        self.algorithms.shingle.all_shingles(doc)
    }

    /// `text`'s analysis without the words of `spans` (word positions of
    /// [`Engine::analyze`], sorted, disjoint), `words` being that analysis's
    /// word count; `None` when the words cannot be located exactly (see
    /// the module docs) or no span holds a word; an error when memory for
    /// the page furniture's lines cannot be had.
    pub fn analyze_without(
        &self,
        text: &str,
        words: usize,
        spans: &[Range<u32>],
    ) -> Result<Option<Body>, TryReserveError> {
        let found = if self.config.tokenizer.strip_furniture {
            page_furniture::find(text)?
        } else {
            Vec::new()
        };
        Ok(self.body_of(text, &found, words, spans))
    }

    /// [`Engine::analyze_without`] once the furniture is `found`.
    fn body_of(
        &self,
        text: &str,
        found: &[page_furniture::Furniture],
        words: usize,
        spans: &[Range<u32>],
    ) -> Option<Body> {
        let stripped = page_furniture::strip(text, found);
        let map = OffsetMap::new(found, text.len());
        let locator = Locator::new(self, &stripped, words)?;
        let mut cut: Vec<Range<usize>> = Vec::new();
        for span in spans {
            let start = locator.cut(span.start as usize);
            let mut end = locator.cut(span.end as usize);
            while end > start && stripped.as_bytes()[end - 1].is_ascii_whitespace() {
                end -= 1;
            }
            if start < end {
                cut.push(start..end);
            }
        }
        if cut.is_empty() {
            return None;
        }
        let mut body = String::with_capacity(stripped.len());
        let mut at = 0;
        for r in &cut {
            body.push_str(&stripped[at..r.start]);
            body.push('\n');
            at = r.end;
        }
        body.push_str(&stripped[at..]);
        let analysis = self.analyze_stripped(&body);
        let ranges = cut
            .iter()
            .map(|r| map.to_text(r.start)..map.to_text(r.end - 1) + 1)
            .collect();
        Some(Body { analysis, ranges })
    }
}

/// From offsets in the text without furniture back to the decoded text.
struct OffsetMap {
    /// Each kept piece: (offset in the stripped text, offset in the text).
    pieces: Vec<(usize, usize)>,
}

impl OffsetMap {
    fn new(found: &[page_furniture::Furniture], len: usize) -> Self {
        let mut pieces = vec![(0, 0)];
        let mut stripped = 0;
        let mut at = 0;
        for f in found {
            stripped += f.range.start - at;
            at = f.range.end;
            pieces.push((stripped, at));
        }
        debug_assert!(at <= len);
        Self { pieces }
    }

    fn to_text(&self, offset: usize) -> usize {
        let i = self.pieces.partition_point(|p| p.0 <= offset) - 1;
        let (s, t) = self.pieces[i];
        t + (offset - s)
    }
}

/// Finds the byte where a word position starts in a text.
struct Locator<'a> {
    engine: &'a Engine,
    text: &'a str,
    /// Blocks of whole lines.
    blocks: Vec<Range<usize>>,
    /// Words before each block, and the total last.
    before: Vec<usize>,
}

/// Whether a piece of text ends in a hyphen (or soft hyphen) that may join
/// it to what follows the line end.
fn ends_in_hyphen(piece: &str) -> bool {
    let t = piece.trim_end();
    t.ends_with('-') || t.ends_with('\u{ad}')
}

impl<'a> Locator<'a> {
    fn new(engine: &'a Engine, text: &'a str, words: usize) -> Option<Self> {
        let mut blocks = Vec::new();
        let mut start = 0;
        let mut at = 0;
        for line in text.split_inclusive('\n') {
            at += line.len();
            if !ends_in_hyphen(line) {
                blocks.push(start..at);
                start = at;
            }
        }
        if start < text.len() {
            blocks.push(start..text.len());
        }
        let mut before = Vec::with_capacity(blocks.len() + 1);
        let mut total = 0;
        for b in &blocks {
            before.push(total);
            total += engine.count_words(&text[b.clone()]);
        }
        before.push(total);
        (total == words).then_some(Self {
            engine,
            text,
            blocks,
            before,
        })
    }

    /// The byte where word `w` starts (the text's end past the last word).
    /// A word inside a token of several words (`don't` may be two) is cut
    /// at the token's start.
    fn cut(&self, w: usize) -> usize {
        let total = *self.before.last().unwrap_or(&0);
        if w >= total {
            return self.text.len();
        }
        // The block holding word w: the first whose end count passes w.
        let k = self.before[1..].partition_point(|&c| c <= w);
        let block = self.blocks[k].clone();
        let mut count = self.before[k];
        if count == w {
            return block.start;
        }
        let tokens = tokens(&self.text[block.clone()]);
        let mut found = None;
        for t in tokens {
            let n = self
                .engine
                .count_words(&self.text[block.start + t.start..block.start + t.end]);
            if found.is_none() && count + n > w {
                found = Some(block.start + t.start);
            }
            count += n;
        }
        if count != self.before[k + 1] {
            return block.start;
        }
        found.unwrap_or(block.start)
    }
}

/// Whitespace-separated tokens of a block, a token ending in a hyphen
/// joined to the next across a line end.
fn tokens(text: &str) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::new();
    let mut start = None;
    let mut join = false;
    for (k, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                let token = s..k;
                let hyphen = ends_in_hyphen(&text[token.clone()]);
                match out.last_mut() {
                    Some(last) if join => last.end = k,
                    _ => out.push(token),
                }
                join = hyphen;
                start = None;
            }
            (false, None) => start = Some(k),
            _ => {}
        }
    }
    out
}

impl Engine {
    /// Words the analyzer finds in `text` (page furniture not looked for).
    fn count_words(&self, text: &str) -> usize {
        self.analyzer.analyze_with(text, WORDS_ONLY).words.len()
    }
}

#[cfg(test)]
#[allow(clippy::single_range_in_vec_init)] // one word span is a slice of one range
mod tests {
    use super::*;

    fn words(engine: &Engine, text: &str) -> usize {
        engine.analyze(text).words.len()
    }

    #[test]
    fn the_body_is_the_text_without_the_spans_words() {
        let engine = Engine::default();
        let text = "Licence words one two three.\nStill licence here.\n\nThe body \
                    of the work starts here and don't stop.\nEnd licence again now.\n";
        let n = words(&engine, text);
        // "Licence words one two three Still licence here" = 8 words.
        let body = engine
            .analyze_without(text, n, &[0..8, (n as u32 - 4)..n as u32])
            .unwrap()
            .unwrap();
        let expected = engine.analyze("The body of the work starts here and don't stop.");
        assert_eq!(body.analysis.words, expected.words);
        assert_eq!(body.analysis.terms, expected.terms);
        assert_eq!(
            &text[body.ranges[0].clone()],
            "Licence words one two three.\nStill licence here."
        );
        assert_eq!(&text[body.ranges[1].clone()], "End licence again now.");
    }

    #[test]
    fn a_cut_inside_a_line_and_across_a_hyphenated_line_end_is_exact() {
        let engine = Engine::default();
        let text = "alpha beta gam-\nma delta epsilon zeta\neta theta";
        let n = words(&engine, text);
        let all = engine.analyze(text).words;
        for start in 0..n as u32 {
            for end in start + 1..=n as u32 {
                let body = engine
                    .analyze_without(text, n, &[start..end])
                    .unwrap()
                    .unwrap();
                let mut expected = all[..start as usize].to_vec();
                expected.extend_from_slice(&all[end as usize..]);
                assert_eq!(body.analysis.words, expected, "{start}..{end}");
            }
        }
    }

    #[test]
    fn ranges_point_into_the_text_with_its_furniture() {
        let engine = Engine::default();
        let mut text = String::new();
        for page in 1..=4 {
            text.push_str("THE BOOK TITLE\n\n");
            for line in 0..14 {
                text.push_str(&format!("page {page} line {line} words of the text\n"));
            }
            text.push_str(&format!("\n{page}\n\u{c}"));
        }
        let found = page_furniture::find(&text).unwrap();
        assert!(!found.is_empty(), "the test text has page furniture");
        let all = engine.analyze(&text).words;
        let span = 0..20u32;
        let body = engine
            .analyze_without(&text, all.len(), &[span])
            .unwrap()
            .unwrap();
        assert_eq!(body.analysis.words, all[20..]);
        let range = body.ranges[0].clone();
        assert!(found.iter().all(|f| !f.range.contains(&range.start)));
        let inside = page_furniture::strip(&text[range.clone()], &[]).into_owned();
        let cut = engine.analyze(&inside).words;
        assert_eq!(cut, all[..20], "{inside:?}");
    }

    #[test]
    fn no_body_when_the_word_count_is_not_the_analysis() {
        let engine = Engine::default();
        assert!(engine
            .analyze_without("a b c", 4, &[0..1])
            .unwrap()
            .is_none());
        assert!(engine.analyze_without("a b c", 3, &[]).unwrap().is_none());
    }
}
