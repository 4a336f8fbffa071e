use proptest::prelude::*;

use super::*;

const CHAPTER: &str = "It was a dark and stormy night; the rain fell in torrents, except at occasional intervals, when it was checked by a violent gust of wind which swept up the streets, rattling along the housetops, and fiercely agitating the scanty flame of the lamps that struggled against the darkness.";

fn filler(seed: u64, words: usize) -> String {
    let mut rng = crate::hash::SplitMix64::new(seed);
    (0..words)
        .map(|_| format!("w{}", rng.next_u64() % 100_000))
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn a_chapter_inside_a_book_is_found_where_it_sits() {
    let before = filler(1, 3_000);
    let after = filler(2, 3_000);
    let book = format!("{before}\n\n{CHAPTER}\n\n{after}");
    let (in_part, in_book) = matched_extent(CHAPTER, &[], &book, &[]).unwrap();
    assert_eq!(
        in_part,
        0..CHAPTER.len() - 1,
        "the whole part, but its last full stop"
    );
    let at = before.len() + 2;
    assert_eq!(
        in_book,
        at..at + CHAPTER.len() - 1,
        "where it sits in the book"
    );
}

#[test]
fn ocr_case_punctuation_and_line_breaks_do_not_move_the_match() {
    let scan = CHAPTER
        .to_uppercase()
        .replace(", ", ",\n")
        .replace(';', " ;");
    let (a, b) = matched_extent(&scan, &[], CHAPTER, &[]).unwrap();
    assert_eq!(a.start, 0);
    assert_eq!(b, 0..CHAPTER.len() - 1);
}

#[test]
fn left_out_text_never_matches_and_unshared_texts_have_no_extent() {
    let licence = "This eBook is for the use of anyone anywhere at no cost and with almost no restrictions whatsoever";
    let a = format!("{licence}\n{}", filler(3, 200));
    let b = format!("{}\n{licence}", filler(4, 200));
    assert!(
        matched_extent(&a, &[], &b, &[]).is_some(),
        "they share the licence"
    );
    let (in_a, in_b) = (0..licence.len(), b.len() - licence.len()..b.len());
    let skipped = matched_extent(
        &a,
        std::slice::from_ref(&in_a),
        &b,
        std::slice::from_ref(&in_b),
    );
    assert_eq!(skipped, None);
}

#[test]
fn a_stray_shared_phrase_far_away_does_not_stretch_the_extent() {
    let stray = "one two three four five six seven";
    let body = filler(5, 2_000);
    let book = format!("{stray} {}\n{body}\n{}", filler(6, 3_000), filler(7, 10));
    let copy = format!("{body}\n{stray}");
    let (in_book, _) = matched_extent(&book, &[], &copy, &[]).unwrap();
    let at = book.find(&body).unwrap();
    assert_eq!(
        in_book,
        at..at + body.len(),
        "the body, not the stray phrase"
    );
}

#[test]
fn a_place_is_named_by_its_pages_else_its_lines() {
    let text = "one\ntwo\nthree\n".repeat(500);
    assert_eq!(describe(&text, None, &(0..3)), "line 1");
    assert_eq!(describe(&text, None, &(4..text.len())), "lines 2–1,500");
    let mut book = doppel_formats::PagedText::new();
    for label in ["40", "41", "42"] {
        book.start_page(Some(label.into()), None);
        book.text_mut().push_str("some words on the page");
    }
    let (text, pages) = book.finish();
    assert_eq!(describe(&text, Some(&pages), &(30..40)), "p. 41");
    assert_eq!(
        describe(&text, Some(&pages), &(30..text.len())),
        "pp. 41–42"
    );
    let empty = doppel_formats::PageMap::default();
    assert_eq!(
        describe(&text, Some(&empty), &(0..5)),
        "line 1",
        "no pages: lines"
    );
}

proptest! {
    /// Each extent lies in its text, on word boundaries, and covers every
    /// shared run but the dropped tails.
    #[test]
    fn extents_lie_inside_their_texts(seed in 0u64..1_000, cut in 0usize..400, len in 50usize..400) {
        let a = filler(seed, 500);
        let words: Vec<&str> = a.split(' ').collect();
        let end = (cut + len).min(words.len());
        let b = words[cut.min(end)..end].join(" ");
        if let Some((ea, eb)) = matched_extent(&a, &[], &b, &[]) {
            prop_assert!(ea.end <= a.len() && eb.end <= b.len());
            prop_assert!(a.is_char_boundary(ea.start) && a.is_char_boundary(ea.end));
            prop_assert_eq!(&a[ea.clone()], &b[eb.clone()]);
        } else {
            prop_assert!(end - cut.min(end) < RUN_WORDS);
        }
    }
}
