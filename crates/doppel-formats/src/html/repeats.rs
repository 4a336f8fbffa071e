//! Kept paragraphs that repeat the page's chrome: a site's licence page
//! whose article is the very paragraph its footer carries on every page
//! would otherwise keep the footer's text and pair with its siblings by
//! site furniture alone (issue 43).
//!
//! A paragraph of the kept text is dropped when its words, case folded,
//! equal those of a paragraph of the page's chrome and number at least
//! [`MIN_WORDS`]: a repeated short heading ("Licence", the site's name)
//! is a title, not a copy of the chrome. The chrome's paragraphs are
//! hashed once, so the check is linear in the page's text.

use std::collections::HashSet;

/// The fewest words a paragraph needs to count as a copy of the chrome.
/// Eight: past a heading or a site's name, under a licence or newsletter
/// sentence; a one-line quote a footer shares with the article is
/// rarely a paragraph of its own, and never one under eight words.
pub(super) const MIN_WORDS: usize = 8;

/// `text` without its paragraphs repeating one of `chrome`'s (both
/// paragraphs separated by a blank line), and how many were dropped.
/// Unchanged, byte for byte, when none is.
pub(super) fn drop_repeats(text: String, chrome: &str) -> (String, usize) {
    let seen: HashSet<String> = chrome.split("\n\n").filter_map(key).collect();
    if seen.is_empty() {
        return (text, 0);
    }
    let mut dropped = 0;
    let kept: Vec<&str> = text
        .split("\n\n")
        .filter(|block| {
            let repeat = key(block).is_some_and(|k| seen.contains(&k));
            dropped += usize::from(repeat);
            !repeat
        })
        .collect();
    if dropped == 0 {
        return (text, 0);
    }
    let joined = kept.join("\n\n");
    (joined.trim_matches('\n').to_string(), dropped)
}

/// A paragraph's words, whitespace collapsed and case folded, when it has
/// at least [`MIN_WORDS`] of them.
fn key(block: &str) -> Option<String> {
    let words: Vec<&str> = block.split_whitespace().collect();
    (words.len() >= MIN_WORDS).then(|| words.join(" ").to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_paragraph_repeating_the_chrome_goes_and_the_rest_stays_as_is() {
        let chrome = "Site\n\nAll   text here is FREE to reuse under the licence below.";
        let text =
            "Site\n\nAll text here is free to reuse under the licence below.\n\n  pre\n\n\nkept";
        assert_eq!(
            drop_repeats(text.to_string(), chrome),
            ("Site\n\n  pre\n\n\nkept".to_string(), 1)
        );
        let untouched = "Site\n\n  pre\n\n\n\nkept";
        assert_eq!(
            drop_repeats(untouched.to_string(), chrome),
            (untouched.to_string(), 0)
        );
    }

    #[test]
    fn a_short_paragraph_is_no_copy_whatever_it_equals() {
        let chrome = "Read the books we love.";
        let text = "Read the books we love.\n\nMore.";
        assert_eq!(
            drop_repeats(text.to_string(), chrome),
            (text.to_string(), 0)
        );
    }
}
