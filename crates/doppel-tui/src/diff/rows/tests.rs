use std::time::{Duration, Instant};

use super::*;
use doppel_index::worker::diff::{diff_texts, DiffOptions};

fn view(a: &str, b: &str) -> DiffView {
    let deadline = Instant::now() + Duration::from_secs(60);
    diff_texts(a.into(), b.into(), &DiffOptions::new(deadline)).into_view(1, "a".into(), "b".into())
}

fn sample() -> DiffView {
    let root =
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("sample-corpus");
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    view(
        &read("austen/pride-prejudice-ch1-3.txt"),
        &read("scans/pride-prejudice-ch1-3-ocr.txt"),
    )
}

/// The ranks (how-manieth equal word of its side) of the equal words on
/// each side of `row`.
fn equal_ranks(v: &DiffView, rows: &[Row]) -> Vec<(Vec<usize>, Vec<usize>)> {
    let ranks = |side: &DiffSide| -> Vec<Option<usize>> {
        let mut n = 0;
        side.words
            .iter()
            .map(|w| {
                (w.kind == DiffKind::Equal).then(|| {
                    n += 1;
                    n - 1
                })
            })
            .collect()
    };
    let (rl, rr) = (ranks(&v.left), ranks(&v.right));
    let on = |side: &RowSide, r: &[Option<usize>]| -> Vec<usize> {
        (side.words.0..side.words.1)
            .filter_map(|i| r[i as usize])
            .collect()
    };
    rows.iter()
        .map(|row| (on(&row.left, &rl), on(&row.right, &rr)))
        .collect()
}

/// The text of one side of a row in the word view.
fn shown(v: &DiffView, row: &Row, left: bool) -> String {
    let (side, doc) = if left {
        (&row.left, &v.left)
    } else {
        (&row.right, &v.right)
    };
    (side.words.0..side.words.1)
        .map(|i| doc.word_text(i as usize))
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn word_rows_keep_every_equal_word_beside_its_partner() {
    let v = sample();
    for width in [12, 20, 37, 70, 150] {
        let rows = word_rows(&v, width);
        for (n, (l, r)) in equal_ranks(&v, &rows).into_iter().enumerate() {
            assert_eq!(l, r, "row {n} at width {width}");
        }
        // Every word once, in order, and no row wider than the width
        // unless it holds a single word.
        for (left, doc) in [(true, &v.left), (false, &v.right)] {
            let mut next = 0;
            for row in &rows {
                let side = row.side(left);
                if side.words.0 == side.words.1 {
                    continue;
                }
                assert_eq!(side.words.0, next);
                next = side.words.1;
                let text = shown(&v, row, left);
                assert!(
                    text::doc_width(&text) <= width || side.words.1 - side.words.0 == 1,
                    "{text:?} at {width}"
                );
            }
            assert_eq!(next as usize, doc.words.len());
        }
    }
}

#[test]
fn the_running_head_waits_beside_a_gap_and_paragraphs_stay() {
    let v = sample();
    let rows = word_rows(&v, 60);
    let text: Vec<(String, String)> = rows
        .iter()
        .take(6)
        .map(|r| (shown(&v, r, true), shown(&v, r, false)))
        .collect();
    assert_eq!(
        text[0],
        ("Chapter 1".into(), "PRIDE AND PREJUDICE 1 Chapter 1".into())
    );
    assert_eq!(
        text[1],
        (String::new(), String::new()),
        "a blank row between paragraphs"
    );
    assert!(
        text[2].0.starts_with("It is a truth universally"),
        "{text:?}"
    );
    assert!(
        text[2].1.starts_with("It is a truth universally"),
        "{text:?}"
    );
    assert!(
        rows[2].left.line == 3 && rows[2].right.line == 5,
        "{:?}",
        rows[2]
    );
    assert!(!rows[0].left.gap && !rows[1].left.gap);
}

#[test]
fn an_inserted_paragraph_leaves_a_gap_beside_it() {
    let a = "one two three\n\nfour five six\n";
    let b = "one two three\n\nan inserted paragraph here\n\nfour five six\n";
    let v = view(a, b);
    let rows = word_rows(&v, 40);
    let texts: Vec<(String, String)> = rows
        .iter()
        .map(|r| (shown(&v, r, true), shown(&v, r, false)))
        .collect();
    assert_eq!(
        texts,
        [
            ("one two three", "one two three"),
            ("", ""),
            ("", "an inserted paragraph here"),
            ("", ""),
            ("four five six", "four five six"),
        ]
        .map(|(l, r)| (l.to_owned(), r.to_owned()))
    );
    assert!(rows[2].left.gap && !rows[2].right.gap);
    assert!(rows[2].changed && !rows[0].changed && !rows[4].changed);
}

#[test]
fn line_rows_pair_lines_and_wrap_long_ones() {
    let a = "first line\nsecond line is a good deal longer than the width\nthird\n";
    let b = "first line\ninserted line\nsecond line is a good deal longer than the width\nthird\n";
    let v = view(a, b);
    let rows = line_rows(&v, 24);
    let text = |side: &RowSide, doc: &DiffSide| {
        doc.text[side.start as usize..side.end as usize].to_owned()
    };
    let got: Vec<(u32, String, u32, String, bool)> = rows
        .iter()
        .map(|r| {
            (
                r.left.line,
                text(&r.left, &v.left),
                r.right.line,
                text(&r.right, &v.right),
                r.changed,
            )
        })
        .collect();
    let want = [
        (1, "first line", 1, "first line", false),
        (0, "", 2, "inserted line", true),
        (
            2,
            "second line is a good ",
            3,
            "second line is a good ",
            false,
        ),
        (
            0,
            "deal longer than the ",
            0,
            "deal longer than the ",
            false,
        ),
        (0, "width", 0, "width", false),
        (3, "third", 4, "third", false),
    ];
    assert_eq!(
        got,
        want.map(|(a, b, c, d, e)| (a, b.to_owned(), c, d.to_owned(), e))
    );
    assert!(rows[1].left.gap);
}

#[test]
fn folding_keeps_context_around_what_matters() {
    let rows = vec![Row::default(); 20];
    let shown = fold(&rows, 3, |i| i == 10);
    assert_eq!(
        shown,
        [
            vec![Shown::Fold(7)],
            (7..14).map(Shown::Row).collect(),
            vec![Shown::Fold(6)]
        ]
        .concat()
    );
    // A lone identical row between two kept stretches is shown, not folded.
    let shown = fold(&rows[..9], 1, |i| i == 2 || i == 6);
    assert_eq!(shown, (0..9).map(Shown::Row).collect::<Vec<_>>());
}
