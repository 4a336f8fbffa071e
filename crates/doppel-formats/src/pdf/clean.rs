//! A PDF page's text as the crate gives it, made into the book's text
//! conventions: typographic ligatures spelled out, soft hyphens and
//! control characters dropped, words separated by one space, lines by
//! `"\n"`, blocks by one blank line.

/// Append `raw`, one page's extracted text, to `out` cleaned.
pub(super) fn push_page(raw: &str, out: &mut String) {
    let mut blank_lines = 0usize;
    let mut wrote_any = false;
    for line in raw.lines() {
        let mut cleaned = String::with_capacity(line.len());
        let mut space = false;
        for c in line.chars() {
            match c {
                // Typographic ligatures (U+FB00–FB06) are spelled out: a
                // search for "first" must find "ﬁrst".
                '\u{FB00}' => push_word(&mut cleaned, "ff", &mut space),
                '\u{FB01}' => push_word(&mut cleaned, "fi", &mut space),
                '\u{FB02}' => push_word(&mut cleaned, "fl", &mut space),
                '\u{FB03}' => push_word(&mut cleaned, "ffi", &mut space),
                '\u{FB04}' => push_word(&mut cleaned, "ffl", &mut space),
                '\u{FB05}' | '\u{FB06}' => push_word(&mut cleaned, "st", &mut space),
                // A soft hyphen only says where a word may break.
                '\u{00AD}' => {}
                c if c.is_whitespace() => space = true,
                // NULs, form feeds (which would break the page), and the
                // other controls are garbage from unmapped glyphs.
                c if c.is_control() => {}
                c => {
                    let mut buf = [0u8; 4];
                    push_word(&mut cleaned, c.encode_utf8(&mut buf), &mut space);
                }
            }
        }
        if cleaned.is_empty() {
            blank_lines += 1;
            continue;
        }
        if wrote_any {
            out.push_str(if blank_lines > 0 { "\n\n" } else { "\n" });
        }
        out.push_str(&cleaned);
        wrote_any = true;
        blank_lines = 0;
    }
}

/// Push `s` to `line`, after one space if whitespace came before it.
fn push_word(line: &mut String, s: &str, space: &mut bool) {
    if *space && !line.is_empty() {
        line.push(' ');
    }
    *space = false;
    line.push_str(s);
}

/// How many letters and digits `text` has: whether a page has a text
/// layer worth the name (a scan may carry a stray stamp or page number).
pub(super) fn letters(text: &str) -> usize {
    text.chars().filter(|c| c.is_alphanumeric()).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clean(raw: &str) -> String {
        let mut out = String::new();
        push_page(raw, &mut out);
        out
    }

    #[test]
    fn ligatures_are_spelled_out_and_garbage_dropped() {
        assert_eq!(
            clean("the ﬁrst  oﬃce,\u{00AD} aﬄuent\u{0}\x0c ﬂock"),
            "the first office, affluent flock"
        );
    }

    #[test]
    fn lines_stay_lines_and_blank_runs_become_one_blank_line() {
        assert_eq!(
            clean("\n\n  Title  \n\n\n\nFirst line\nsecond line  \n \n\nNext"),
            "Title\n\nFirst line\nsecond line\n\nNext"
        );
        assert_eq!(clean(" \n\t\n"), "");
    }
}
