//! Where decoded text may be cut into pieces that analyze exactly as the
//! whole does.
//!
//! A large document is analyzed a piece at a time, so its words, stop-word
//! flags, Soundex codes, terms, letters and digits must be the whole's, in
//! order, and its normalized text the whole's with a space at each cut.
//! Text may be cut at byte `at` when the byte before is ASCII whitespace
//! (space, tab, line feed, carriage return, form feed) and the byte at `at`
//! is ASCII, unless that whitespace follows a hyphen or a soft hyphen:
//!
//! - normalization folds the whitespace to the one space that separates
//!   two normalized pieces, and an ASCII character starts a new
//!   normalization segment (NFKC composes nothing across it);
//! - words never span a space in normalized text
//!   ([`crate::engine::text::tokenize::for_each_word`]);
//! - the one rule that reads across whitespace, joining a word hyphenated
//!   at a line end, starts at a hyphen just before it.
//!
//! Text without such a place (no ASCII whitespace in a whole piece's
//! length) is analyzed in one longer piece.

/// Whitespace a cut may follow.
fn is_break(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0c)
}

/// Whether `text` may be cut at byte `at` (see the module documentation).
/// Never at either end.
pub fn is_cut(text: &str, at: usize) -> bool {
    let bytes = text.as_bytes();
    if at == 0 || at >= bytes.len() || !is_break(bytes[at - 1]) || !bytes[at].is_ascii() {
        return false;
    }
    let mut run = at - 1;
    while run > 0 && is_break(bytes[run - 1]) {
        run -= 1;
    }
    // `bytes[run..at]` is the whitespace; what stands before it?
    match run.checked_sub(1).map(|i| bytes[i]) {
        Some(b'-') => false,
        Some(0xad) => !(run >= 2 && bytes[run - 2] == 0xc2),
        _ => true,
    }
}

/// The last place at or after `from` where `text` may be cut.
pub fn last_cut(text: &str, from: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    (from.max(1)..bytes.len())
        .rev()
        .filter(|&at| is_break(bytes[at - 1]))
        .find(|&at| is_cut(text, at))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_follow_whitespace_that_no_hyphen_joins_across() {
        let text = "one two-\nthree four\u{ad}\n five\n\u{301}six -\nseven";
        let cuts: Vec<usize> = (0..=text.len()).filter(|&at| is_cut(text, at)).collect();
        let after: Vec<&str> = cuts.iter().map(|&at| &text[at..]).collect();
        assert_eq!(
            after,
            [
                "two-\nthree four\u{ad}\n five\n\u{301}six -\nseven",
                "four\u{ad}\n five\n\u{301}six -\nseven",
                "-\nseven"
            ]
        );
        assert_eq!(last_cut(text, 0), cuts.last().copied());
        assert_eq!(last_cut(text, text.len()), None);
        assert_eq!(last_cut("no-whitespace-at-all", 0), None);
    }
}
