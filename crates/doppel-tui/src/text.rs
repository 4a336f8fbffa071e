//! Making untrusted text safe and sized for the screen: control characters
//! become visible symbols (never raw escapes), bidirectional overrides are
//! neutralised, and strings are cut to a display width (grapheme-safe,
//! wide-character aware) from either end.
//!
//! Every file name and every excerpt passes through [`sanitize`] before it
//! reaches a widget; ratatui drops control characters itself, but a cell
//! count that differs from the string's would misalign columns.

use std::borrow::Cow;

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use doppel_core::doc::DocPath;

/// A document's name as the screen shows it: its UTF-8 as is (control
/// characters become symbols when drawn, see [`sanitize`]) and any byte
/// that is not UTF-8 as `\xNN`, so names stay apart on screen.
pub fn doc_path(doc: &DocPath) -> String {
    let mut out = String::with_capacity(doc.as_bytes().len());
    for chunk in doc.as_bytes().utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

/// Whether `c` must not reach the terminal as is.
fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
        )
}

/// The visible stand-in for an unsafe character: C0 controls become their
/// Unicode control pictures (`␛`, `␊`, ...), everything else `�`.
fn stand_in(c: char) -> char {
    match c {
        '\u{0}'..='\u{1f}' => char::from_u32(0x2400 + c as u32).unwrap_or('\u{FFFD}'),
        '\u{7f}' => '\u{2421}',
        _ => '\u{FFFD}',
    }
}

/// `s` with every control character and bidi override replaced by a
/// visible symbol. Borrowed when nothing needed replacing.
pub fn sanitize(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_unsafe) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(
        s.chars()
            .map(|c| if is_unsafe(c) { stand_in(c) } else { c })
            .collect(),
    )
}

/// A line of document text for the diff: tabs expand to four spaces, other
/// unsafe characters become symbols, a trailing `\r` is dropped.
pub fn sanitize_line(s: &str) -> Cow<'_, str> {
    let s = s.strip_suffix('\r').unwrap_or(s);
    if !s.chars().any(is_unsafe) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\t' => out.push_str("    "),
            c if is_unsafe(c) => out.push(stand_in(c)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Display width in terminal cells.
pub fn width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

fn char_width(c: char) -> usize {
    UnicodeWidthChar::width(c).unwrap_or(0)
}

/// The sanitized `s` cut to at most `max` cells, keeping the start and
/// ending with `…` when cut.
pub fn fit_end(s: &str, max: usize) -> String {
    let s = sanitize(s);
    if width(&s) <= max {
        return s.into_owned();
    }
    if max == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = char_width(c);
        if used + w > max - 1 {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push('…');
    out
}

/// The sanitized `s` cut to at most `max` cells, keeping the end (a file
/// name matters more than its folders) and starting with `…` when cut.
pub fn fit_start(s: &str, max: usize) -> String {
    let s = sanitize(s);
    if width(&s) <= max {
        return s.into_owned();
    }
    if max == 0 {
        return String::new();
    }
    let mut tail: Vec<char> = Vec::new();
    let mut used = 0;
    for c in s.chars().rev() {
        let w = char_width(c);
        if used + w > max - 1 {
            break;
        }
        used += w;
        tail.push(c);
    }
    // Never start on a combining mark orphaned from its base.
    while tail.last().is_some_and(|&c| char_width(c) == 0) {
        tail.pop();
    }
    let mut out = String::from('…');
    out.extend(tail.into_iter().rev());
    out
}

/// The cells one character of document text takes on screen (see
/// [`push_doc_char`]).
pub fn doc_char_width(c: char) -> usize {
    match c {
        '\t' => 4,
        c if is_unsafe(c) => 1,
        c => char_width(c),
    }
}

/// Draw one character of document text: a tab as four spaces, an unsafe
/// character as its visible stand-in (as [`sanitize_line`] does).
pub fn push_doc_char(out: &mut String, c: char) {
    match c {
        '\t' => out.push_str("    "),
        c if is_unsafe(c) => out.push(stand_in(c)),
        c => out.push(c),
    }
}

/// The cells a run of document text takes.
pub fn doc_width(s: &str) -> usize {
    if s.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        s.len()
    } else {
        s.chars().map(doc_char_width).sum()
    }
}

/// The sanitized `s` word-wrapped to rows of at most `max` cells (a word
/// wider than a row is broken); each line of `s` starts a row. At least
/// one row, even for an empty `s`.
pub fn wrap(s: &str, max: usize) -> Vec<String> {
    let options = textwrap::Options::new(max.max(1)).break_words(true);
    let mut rows: Vec<String> = Vec::new();
    for line in s.lines() {
        let line = sanitize_line(line);
        rows.extend(
            textwrap::wrap(&line, &options)
                .into_iter()
                .map(|r| r.into_owned()),
        );
    }
    if rows.is_empty() {
        rows.push(String::new());
    }
    rows
}

/// `value` in [0, 1] as a whole percentage.
pub fn percent(value: f64) -> String {
    if value.is_finite() {
        format!("{:.0} %", (value * 100.0).clamp(0.0, 100.0))
    } else {
        "–".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_become_visible() {
        assert_eq!(sanitize("a\x1b[2Jb\n"), "a␛[2Jb␊");
        assert_eq!(sanitize("x\u{202E}y"), "x\u{FFFD}y");
        assert_eq!(sanitize("\u{85}"), "\u{FFFD}");
        assert!(matches!(sanitize("plain"), Cow::Borrowed(_)));
        assert_eq!(sanitize_line("a\tb\r"), "a    b");
    }

    #[test]
    fn fitting_respects_width() {
        assert_eq!(fit_end("abcdef", 4), "abc…");
        assert_eq!(fit_start("abcdef", 4), "…def");
        assert_eq!(fit_start("abc", 4), "abc");
        assert_eq!(fit_end("abc", 0), "");
        assert_eq!(width(&fit_start("日本語のファイル名", 7)), 7);
        assert!(width(&fit_end("日本語のファイル名", 6)) <= 6);
        let combining = "e\u{301}e\u{301}e\u{301}";
        assert_eq!(fit_start(combining, 3), combining);
        assert_eq!(fit_start(combining, 2), "…e\u{301}");
    }

    #[test]
    fn wrapping_keeps_every_word_within_the_width() {
        let text = "minhash → 0.2: below the floor, candidates are gathered again";
        let rows = wrap(text, 20);
        assert!(rows.iter().all(|r| width(r) <= 20), "{rows:?}");
        assert_eq!(rows.join(" "), text);
        assert_eq!(wrap("a/very/long/path/without/spaces", 10).len(), 4);
        assert_eq!(wrap("one\ntwo", 80), ["one", "two"]);
        assert_eq!(wrap("", 5), [""]);
        assert!(wrap("日本語のファイル名", 5).iter().all(|r| width(r) <= 5));
    }

    #[test]
    fn document_characters_are_drawn_as_wide_as_measured() {
        for s in ["plain", "a\tb", "日本 e\u{301}", "\x1b[2J\u{202E}"] {
            let mut out = String::new();
            s.chars().for_each(|c| push_doc_char(&mut out, c));
            assert_eq!(width(&out), doc_width(s), "{s:?}");
            assert!(!out.chars().any(is_unsafe), "{out:?}");
        }
        assert_eq!(doc_width("a\tb"), 6);
    }
}
