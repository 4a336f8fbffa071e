//! Finding a query in a side of the diff the way the diff compares words:
//! the query and the text are matched on their normalized characters (the
//! engine's NFKC and case folding, so `netherfield` finds `Netherﬁeld`), a
//! space in the query matches any run of whitespace (line breaks included),
//! and a word hyphenated across a line end, or across a page break and its
//! furniture ([`DiffSide::joins`](doppel_index::worker::protocol::DiffSide::joins)),
//! matches whole.

use doppel_core::engine::text::normalize;

/// How many bytes of a line-end hyphen and its line break start at `at`
/// (the hyphen, spaces, one line end, spaces), or 0.
fn line_end_break(text: &[u8], at: usize) -> usize {
    if text.get(at) != Some(&b'-') {
        return 0;
    }
    let mut k = at + 1;
    while matches!(text.get(k), Some(b' ' | b'\t')) {
        k += 1;
    }
    match (text.get(k), text.get(k + 1)) {
        (Some(b'\r'), Some(b'\n')) => k += 2,
        (Some(b'\n' | b'\r'), _) => k += 1,
        _ => return 0,
    }
    while matches!(text.get(k), Some(b' ' | b'\t')) {
        k += 1;
    }
    k - at
}

/// Call `f` with each character `c` normalizes to (usually just one).
fn folded(c: char, mut f: impl FnMut(char) -> bool) -> bool {
    if c.is_ascii() {
        return f(c.to_ascii_lowercase());
    }
    let mut buf = [0u8; 4];
    normalize(c.encode_utf8(&mut buf)).chars().all(f)
}

/// The end of a match of `query` (normalized characters) at byte `at`.
fn match_at(text: &str, joins: &[(u32, u32)], at: usize, query: &[char]) -> Option<usize> {
    let bytes = text.as_bytes();
    let (mut k, mut q) = (at, 0);
    while q < query.len() {
        if query[q] == ' ' {
            let rest = &text[k..];
            let ws: usize = rest
                .chars()
                .take_while(|c| c.is_whitespace())
                .map(char::len_utf8)
                .sum();
            if ws == 0 {
                return None;
            }
            k += ws;
            q += 1;
            continue;
        }
        let c = text[k..].chars().next()?;
        if q > 0 && query[q] != '-' {
            if let Some(&(_, end)) = joins.iter().find(|&&(start, _)| start as usize == k) {
                k = end as usize;
                continue;
            }
            let skip = line_end_break(bytes, k);
            if skip > 0 {
                k += skip;
                continue;
            }
        }
        // Every character `c` folds to matches the query's next ones; a
        // query ending inside an expansion (`f` of `ﬁ`) matches it whole.
        let ok = folded(c, |f| {
            if q == query.len() {
                return true;
            }
            let hit = query[q] == f;
            q += 1;
            hit
        });
        if !ok {
            return None;
        }
        k += c.len_utf8();
    }
    Some(k)
}

/// Byte ranges of `text` where `query` occurs, in order, not overlapping;
/// `joins` as [`DiffSide::joins`](doppel_index::worker::protocol::DiffSide::joins).
/// A query with nothing but whitespace finds nothing.
pub fn find(text: &str, joins: &[(u32, u32)], query: &str) -> Vec<(u32, u32)> {
    let query: Vec<char> = normalize(query).chars().collect();
    let Some(&first) = query.first() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(c) = text[at..].chars().next() {
        let starts = if c.is_ascii() {
            c.to_ascii_lowercase() == first
        } else {
            let mut buf = [0u8; 4];
            normalize(c.encode_utf8(&mut buf)).starts_with(first)
        };
        if starts {
            if let Some(end) = match_at(text, joins, at, &query) {
                out.push((at as u32, end as u32));
                at = end.max(at + c.len_utf8());
                continue;
            }
        }
        at += c.len_utf8();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found<'a>(text: &'a str, q: &str) -> Vec<&'a str> {
        find(text, &[], q)
            .into_iter()
            .map(|(s, e)| &text[s as usize..e as usize])
            .collect()
    }

    #[test]
    fn finds_across_case_line_breaks_and_hyphens() {
        let text = "a good fortune, must be\r\nin want of a Wife. Posses-\r\n  sion";
        assert_eq!(found(text, "must be in"), ["must be\r\nin"]);
        assert_eq!(found(text, "WIFE"), ["Wife"]);
        assert_eq!(found(text, "possession"), ["Posses-\r\n  sion"]);
        assert_eq!(found(text, "a"), ["a", "a", "a"]);
        assert!(found(text, "").is_empty() && found(text, "   ").is_empty());
        assert!(found(text, "fortunes").is_empty());
        assert_eq!(found(text, "-"), ["-"]);
    }

    #[test]
    fn finds_a_word_hyphenated_across_a_page_break_whole() {
        let text = "were det-\n\u{c}THE ART OF READING\n\nected by";
        let joins = [(8, 31)];
        assert_eq!(&text[31..], "ected by");
        let hits = find(text, &joins, "detected by");
        assert_eq!(hits, [(5, text.len() as u32)]);
        assert!(find(text, &[], "detected").is_empty());
        assert_eq!(find(text, &joins, "reading").len(), 1, "the head itself");
    }

    #[test]
    fn matches_as_the_diff_compares_words() {
        let text = "the ﬁrst Café, CAFÉ at Netherﬁeld’s";
        assert_eq!(found(text, "café"), ["Café", "CAFÉ"]);
        assert_eq!(found(text, "first"), ["ﬁrst"]);
        assert_eq!(found(text, "ﬁrst"), ["ﬁrst"]);
        assert_eq!(found(text, "netherfield's"), ["Netherﬁeld’s"]);
        assert!(found(text, "cafe").is_empty(), "accents stay");
    }
}
