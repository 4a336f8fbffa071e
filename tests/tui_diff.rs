//! The review screen's word diff, drawn and driven without a terminal, on
//! the sample corpus's Pride and Prejudice e-text against its OCR'd scan
//! (issue 15's bar: every OCR confusion marked on screen at 80×24 and
//! 160×48, rows in step), its keys through the keymap into `update`, and a
//! chapter against its whole book. The screens themselves are snapshots in
//! `tests/tui.rs`.

#![cfg(feature = "tui")]

use std::fs;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use doppel_core::engine::EngineConfig;
use doppel_index::worker::diff::{diff_texts, DiffOptions};
use doppel_index::worker::protocol::{DiffKind, DiffSide, DiffView};
use doppel_index::worker::Update;
use doppel_tui::action::Action;
use doppel_tui::diff::rows::RowSide;
use doppel_tui::layout;
use doppel_tui::state::{AppState, Prompt, Screen};
use doppel_tui::{render, update};
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier};
use ratatui::Terminal;

fn sample(path: &str) -> String {
    fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("sample-corpus")
            .join(path),
    )
    .unwrap()
}

fn view(a: &str, b: &str, ta: String, tb: String) -> Arc<DiffView> {
    let deadline = Instant::now() + Duration::from_secs(60);
    Arc::new(diff_texts(ta, tb, &DiffOptions::new(deadline)).into_view(1, a.into(), b.into()))
}

/// A `w`×`h` UI showing the diff of `a` and `b`.
fn showing(w: u16, h: u16, v: Arc<DiffView>) -> AppState {
    let mut s = AppState::new("sample-corpus", &EngineConfig::default());
    update(&mut s, Action::Resize(w, h));
    s.diff.requested = Some((v.a.clone(), v.b.clone()));
    update(&mut s, Action::ShowScreen(Screen::Diff));
    update(&mut s, Action::Worker(Update::Diff(v)));
    s
}

/// The e-text (A) against its scan (B).
fn scan_diff(w: u16, h: u16) -> AppState {
    let (a, b) = (
        "austen/pride-prejudice-ch1-3.txt",
        "scans/pride-prejudice-ch1-3-ocr.txt",
    );
    showing(w, h, view(a, b, sample(a), sample(b)))
}

fn draw(state: &AppState, w: u16, h: u16) -> Terminal<TestBackend> {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| render(state, f)).unwrap();
    t
}

/// Search the diff for `query` as typed.
fn search(s: &mut AppState, query: &str) {
    update(s, Action::StartSearch);
    for c in query.chars() {
        update(s, Action::PromptChar(c));
    }
    update(s, Action::PromptSubmit);
}

/// Cells of `word` in `area` of the screen whose characters are reversed
/// exactly where `pattern` brackets them (`[rn]ust`), in colour `fg`.
fn marked_as(t: &Terminal<TestBackend>, area: Rect, pattern: &str, fg: Color) -> bool {
    let word: String = pattern.chars().filter(|c| !"[]".contains(*c)).collect();
    let mut mask = Vec::new();
    let mut inside = false;
    for c in pattern.chars() {
        match c {
            '[' => inside = true,
            ']' => inside = false,
            _ => mask.push(inside),
        }
    }
    let buf = t.backend().buffer();
    let n = word.chars().count() as u16;
    (area.y..area.bottom()).any(|y| {
        (area.x..area.right().saturating_sub(n)).any(|x| {
            let sym = |x: u16| buf[(x, y)].symbol().to_owned();
            let boundary = |x: u16| !sym(x).chars().all(char::is_alphanumeric);
            let here: String = (x..x + n).map(sym).collect();
            here == word
                && boundary(x - 1)
                && boundary(x + n)
                && mask.iter().enumerate().all(|(k, &m)| {
                    let cell = &buf[(x + k as u16, y)];
                    cell.modifier.contains(Modifier::REVERSED) == m && cell.fg == fg
                })
        })
    })
}

/// Issue 15's bar: the scan against its e-text, at both sizes, marks every
/// OCR confusion it names on both sides, only at the misread characters.
/// Each is brought on screen by searching the other side's text (a search
/// highlight would hide the marks on its own side).
#[test]
fn every_ocr_confusion_is_marked_on_screen() {
    let cases = [
        ("must be in want", "rnust be in", "[m]ust", "[rn]ust"),
        ("in want of a wife", "of a wifc", "wif[e]", "wif[c]"),
        ("little known the", "known tlie", "t[h]e", "t[li]e"),
        ("told me all about", "me a1l about", "a[l]l", "a[1]l"),
        (
            "no objection to",
            "no objeetion",
            "obje[c]tion",
            "obje[e]tion",
        ),
    ];
    for (w, h) in [(80, 24), (160, 48)] {
        for (etext, scan, left, right) in cases {
            let mut s = scan_diff(w, h);
            assert!(s.diff.view.as_ref().unwrap().equal >= 0.9);
            let l = layout::diff(layout::frame_of(&s).unwrap().body);
            search(&mut s, etext);
            let t = draw(&s, w, h);
            assert!(
                marked_as(&t, l.right, right, Color::Green),
                "{right} at {w}x{h}:\n{}",
                t.backend()
            );
            let unmarked = right.replace(['[', ']'], "");
            assert!(
                !marked_as(&t, l.right, &unmarked, Color::Green),
                "{unmarked}"
            );
            search(&mut s, scan);
            let t = draw(&s, w, h);
            assert!(
                marked_as(&t, l.left, left, Color::Red),
                "{left} at {w}x{h}:\n{}",
                t.backend()
            );
        }
    }
}

/// The word view keeps the two sides in step: on every row of the scan's
/// diff, the words equal on both sides are the same words.
#[test]
fn the_scan_rows_are_in_step() {
    for (w, h) in [(80, 24), (160, 48)] {
        let s = scan_diff(w, h);
        let v = s.diff.view.as_deref().unwrap();
        let l = s.diff.laid_out().unwrap();
        for row in &l.rows {
            let equal = |side: &RowSide, doc: &DiffSide| -> Vec<String> {
                (side.words.0..side.words.1)
                    .filter(|&i| doc.words[i as usize].kind == DiffKind::Equal)
                    .map(|i| doppel_core::engine::text::normalize(&doc.word_text(i as usize)))
                    .collect()
            };
            assert_eq!(
                equal(&row.left, &v.left),
                equal(&row.right, &v.right),
                "{row:?}"
            );
        }
    }
}

/// The diff's keys, through the keymap into `update`: `/` searches both
/// sides and `n`/`N` then walk the rows with a match, Esc ends the search
/// (and only then leaves the screen), `f` folds identical stretches, `w`
/// switches to the line view; a resize lays the rows out again and keeps
/// the same text at the top.
#[test]
fn diff_search_fold_view_and_resize_keys() {
    use doppel_tui::diff::rows::Shown;
    use doppel_tui::diff::DiffMode;
    use doppel_tui::keymap;
    let key = |s: &mut AppState, code: KeyCode| {
        let action = keymap::key(s, KeyEvent::new(code, KeyModifiers::NONE))
            .unwrap_or_else(|| panic!("{code:?} does nothing on {:?}", s.screen));
        update(s, action)
    };
    let mut s = scan_diff(80, 24);
    key(&mut s, KeyCode::Char('/'));
    assert!(matches!(s.prompt, Some(Prompt::Search { .. })));
    for c in "netherfield".chars() {
        key(&mut s, KeyCode::Char(c));
    }
    key(&mut s, KeyCode::Enter);
    let found = s.diff.search.as_ref().unwrap().found.clone();
    // Both sides: the scan's `Netherﬁeld` has a ligature.
    assert!(
        found[0].len() >= 3 && found[0].len() == found[1].len(),
        "{found:?}"
    );
    let hits = s.diff.laid_out().unwrap().hits.clone();
    assert!(hits.len() >= 3);
    assert_eq!(s.diff.mark, Some(hits[0]));
    key(&mut s, KeyCode::Char('n'));
    assert_eq!(s.diff.mark, Some(hits[1]));
    key(&mut s, KeyCode::Char('N'));
    assert_eq!(s.diff.mark, Some(hits[0]));
    let screen = format!("{}", draw(&s, 80, 24).backend());
    let marked: Vec<&str> = screen.lines().filter(|l| l.contains('▶')).collect();
    assert!(
        marked.len() == 1 && marked[0].contains("Netherfield") && marked[0].contains("Netherﬁeld"),
        "{screen}"
    );
    // Esc ends the search, `n` walks the changes again.
    key(&mut s, KeyCode::Esc);
    assert!(s.diff.search.is_none());
    assert_eq!(s.screen, Screen::Diff);
    key(&mut s, KeyCode::Char('n'));
    let changes = s.diff.laid_out().unwrap().changes.clone();
    assert!(changes.contains(&s.diff.mark.unwrap()));

    // Folding keeps every changed row, each with context, and hides the
    // rest behind folds.
    let all = s.diff.laid_out().unwrap().shown.len();
    key(&mut s, KeyCode::Char('f'));
    let l = s.diff.laid_out().unwrap();
    assert!(l.fold && l.shown.len() < all);
    let shown_changed = l
        .shown
        .iter()
        .filter(|x| matches!(x, Shown::Row(r) if l.rows[*r as usize].changed))
        .count();
    assert_eq!(shown_changed, l.rows.iter().filter(|r| r.changed).count());
    assert!(l
        .shown
        .iter()
        .any(|x| matches!(x, Shown::Fold(n) if *n > 1)));

    // The line view: each side's own lines, numbered in order.
    key(&mut s, KeyCode::Char('f'));
    key(&mut s, KeyCode::Char('w'));
    let l = s.diff.laid_out().unwrap();
    assert_eq!(l.mode, DiffMode::Lines);
    for left in [true, false] {
        let numbers: Vec<u32> = l
            .rows
            .iter()
            .map(|r| r.side(left).line)
            .filter(|&n| n > 0)
            .collect();
        assert!(numbers.windows(2).all(|w| w[0] + 1 == w[1]), "{numbers:?}");
    }
    key(&mut s, KeyCode::Char('w'));
    assert_eq!(s.diff.laid_out().unwrap().mode, DiffMode::Words);

    // A resize re-lays the rows out and keeps the text at the top.
    for _ in 0..5 {
        key(&mut s, KeyCode::PageDown);
    }
    let top = |s: &AppState| {
        let l = s.diff.laid_out().unwrap();
        let row = l.row(s.diff.scroll).unwrap();
        (row.left.start, row.left.end, l.width)
    };
    let (start, end, width) = top(&s);
    update(&mut s, Action::Resize(160, 48));
    let (new_start, new_end, new_width) = top(&s);
    assert!(new_width > width);
    assert!(
        new_start <= start && start < new_end.max(end),
        "{start}..{end} → {new_start}..{new_end}"
    );
    // Esc once more leaves the diff.
    key(&mut s, KeyCode::Esc);
    assert_eq!(s.screen, Screen::Clusters);
}

/// A chapter against its whole book: the diff opens where the chapter sits
/// in the book, and says so.
#[test]
fn a_chapter_against_its_book_opens_where_it_sits() {
    let book = [
        "austen/emma-ch1.txt",
        "austen/persuasion-ch1.txt",
        "austen/pride-prejudice-ch1-3.txt",
        "austen/sense-sensibility-ch1.txt",
    ]
    .map(sample)
    .join("\n\n");
    let persuasion = sample("austen/persuasion-ch1.txt");
    let chapter = &persuasion[4000..6000];
    let chapter = &chapter[chapter.find("\n\n").unwrap() + 2..];
    let v = view("chapter.txt", "book.txt", chapter.into(), book);
    assert!(v.region.is_some());
    let s = showing(80, 24, v);
    assert!(s.diff.scroll > 100, "{}", s.diff.scroll);
    let screen = format!("{}", draw(&s, 80, 24).backend());
    let opening: String = chapter
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ");
    assert!(screen.contains(&opening), "{opening:?} not in\n{screen}");
    assert!(screen.contains("100 % of A's words in B · "), "{screen}");
    assert!(screen.contains("A sits at "), "{screen}");
}

/// The summary counts the stretches of change of the alignment, as the
/// HTML report does, whatever the pane's width; `n` visits the row of
/// each one, in order, and says which of them it is at.
#[test]
fn the_change_count_is_the_alignments_at_any_width_and_n_visits_each() {
    let v = {
        let s = scan_diff(80, 24);
        s.diff.view.clone().unwrap()
    };
    let stretches = doppel_index::worker::diff::change_stretches(&v.left.words, &v.right.words);
    assert!(stretches.len() > 50, "{}", stretches.len());
    for (w, h) in [(80, 24), (160, 48)] {
        let mut s = scan_diff(w, h);
        let changes = s.diff.laid_out().unwrap().changes.clone();
        assert_eq!(changes.len(), stretches.len(), "{w}×{h}");
        let summary = format!("{} changes", stretches.len());
        let screen = format!("{:?}", draw(&s, w, h).backend().buffer());
        assert!(screen.contains(&summary), "{w}×{h}: no {summary:?}");
        // `n` stops once on every row holding a change, in order.
        let rows: std::collections::BTreeSet<usize> = changes.iter().copied().collect();
        let mut visited = Vec::new();
        for _ in 0..rows.len() {
            let n = KeyEvent::new(KeyCode::Char('n'), KeyModifiers::NONE);
            let action = doppel_tui::keymap::key(&s, n).expect("n steps the diff");
            update(&mut s, action);
            visited.push(s.diff.mark.unwrap());
        }
        assert_eq!(visited, rows.into_iter().collect::<Vec<_>>(), "{w}×{h}");
        let message = s.last_event.clone().unwrap_or_default();
        assert!(
            message.ends_with(&format!(" of {}", stretches.len())),
            "{message}"
        );
    }
}
