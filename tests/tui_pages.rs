//! The review screen on a side read from a paged format: the ALTO scan of
//! Emma (`tests/data/formats/emma_scan.xml`, read through the formats
//! layer) against its e-text. The scan's rows are named by the page they
//! start on (`p.3`) where a plain text's show line numbers, and `]`/`[`
//! scroll from page to page.

#![cfg(feature = "tui")]

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use doppel_core::engine::text::decode::decode_owned;
use doppel_core::engine::EngineConfig;
use doppel_index::worker::diff::{diff_texts, DiffOptions};
use doppel_index::worker::protocol::DiffView;
use doppel_index::worker::Update;
use doppel_tui::action::Action;
use doppel_tui::layout;
use doppel_tui::state::{AppState, Screen};
use doppel_tui::{keymap, render, update};
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;

fn fixture(name: &str) -> Vec<u8> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/formats");
    std::fs::read(dir.join(name)).unwrap()
}

/// The ALTO scan (A, with its page map) against the e-text (B).
fn paged_view() -> Arc<DiffView> {
    scan_against_etext("emma_scan.xml")
}

/// The scan `name` (A, with its page map) against the e-text (B).
fn scan_against_etext(name: &str) -> Arc<DiffView> {
    let scan = decode_owned(fixture(name)).unwrap();
    let etext = decode_owned(fixture("emma_etext.txt")).unwrap();
    let pages = scan.book.expect("a scan is read as a book").pages;
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut parts = diff_texts(scan.text, etext.text, &DiffOptions::new(deadline));
    parts.left.pages = pages;
    Arc::new(parts.into_view(1, name.into(), "emma_etext.txt".into()))
}

fn showing(w: u16, h: u16, v: Arc<DiffView>) -> AppState {
    let mut s = AppState::new("books", &EngineConfig::default());
    update(&mut s, Action::Resize(w, h));
    s.diff.requested = Some((v.a.clone(), v.b.clone()));
    update(&mut s, Action::ShowScreen(Screen::Diff));
    update(&mut s, Action::Worker(Update::Diff(v)));
    s
}

fn draw(state: &AppState, w: u16, h: u16) -> Terminal<TestBackend> {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| render(state, f)).unwrap();
    t
}

/// The gutter of each side's row `dy` of the diff pane (the cells before
/// the text), trimmed.
fn gutters(s: &AppState, t: &Terminal<TestBackend>, dy: u16) -> (String, String) {
    let frame = layout::frame_of(s).unwrap();
    let l = layout::diff(frame.body);
    let width = s.diff.laid_out().unwrap().number_width as u16;
    let buf = t.backend().buffer();
    let cells = |x0: u16, y: u16| -> String {
        (x0..x0 + width)
            .map(|x| buf[(x, y)].symbol())
            .collect::<String>()
            .trim()
            .to_owned()
    };
    (
        cells(l.left.x, l.left.y + dy),
        cells(l.right.x, l.right.y + dy),
    )
}

fn press(s: &mut AppState, c: char) {
    let key = KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
    let action = keymap::key(s, key).expect("a diff key");
    update(s, action);
}

#[test]
fn a_paged_side_names_its_rows_by_page_and_brackets_walk_its_pages() {
    let v = paged_view();
    let pages = v.left.pages.clone();
    assert!(pages.pages().len() > 2, "the fixture has pages");
    let mut s = showing(100, 30, v);
    let t = draw(&s, 100, 30);
    insta::assert_snapshot!("paged_diff_100x30", t.backend());
    // The top row names the scan's first page; the e-text keeps its line
    // number.
    let (left, right) = gutters(&s, &t, 0);
    assert_eq!(left, format!("p.{}", pages.name(0)));
    assert_eq!(right, "1");
    // `]` scrolls to where the second page begins, named in the gutter
    // and in the message line; `[` back to the first.
    press(&mut s, ']');
    assert!(s.diff.scroll > 0);
    let t = draw(&s, 100, 30);
    // In the word view a row can hold the end of one page and the start
    // of the next: it is named by the page it starts on, so the new page's
    // name is on the row jumped to or the one after it.
    let second = format!("p.{}", pages.name(1));
    let top = [gutters(&s, &t, 0).0, gutters(&s, &t, 1).0];
    assert!(top.contains(&second), "{top:?}");
    let said = s.last_event.clone().unwrap_or_default();
    assert!(
        said.starts_with(&format!("p.{} (2 of", pages.name(1))),
        "{said}"
    );
    press(&mut s, '[');
    assert_eq!(s.diff.scroll, 0);
    for _ in 0..pages.pages().len() + 1 {
        press(&mut s, ']');
    }
    let said = s.last_event.clone().unwrap_or_default();
    assert_eq!(said, "no later page");
}

#[test]
fn brackets_on_a_plain_pair_say_there_are_no_pages() {
    let text = String::from_utf8(fixture("emma_etext.txt")).unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let parts = diff_texts(text.clone(), text, &DiffOptions::new(deadline));
    let v = Arc::new(parts.into_view(1, "a.txt".into(), "b.txt".into()));
    let mut s = showing(100, 30, v);
    let t = draw(&s, 100, 30);
    assert_eq!(gutters(&s, &t, 0), ("1".to_owned(), "1".to_owned()));
    press(&mut s, ']');
    assert_eq!(s.diff.scroll, 0);
    assert!(s.last_event.unwrap().starts_with("no pages"));
}

/// The searchable PDF Tesseract made of the chapter's pages, against the
/// e-text: its rows are named by page, and nine words in ten or more are
/// the same (OCR misreads the rest, and reads the running heads).
#[test]
fn a_pdf_scans_diff_names_its_pages_and_most_words_are_equal() {
    let v = scan_against_etext("emma_scan.pdf");
    assert_eq!(v.left.pages.pages().len(), 11, "a page map of 11 pages");
    assert!(v.equal >= 0.9, "equal words: {}", v.equal);
    let s = showing(100, 30, v);
    let t = draw(&s, 100, 30);
    assert_eq!(gutters(&s, &t, 0), ("p.1".to_owned(), "1".to_owned()));
}

/// Lines of prose for a synthetic page.
fn prose(lines: usize, seed: usize) -> Vec<String> {
    let words = [
        "the", "reader", "of", "old", "books", "finds", "that", "every", "copy", "tells",
    ];
    (0..lines)
        .map(|l| {
            (0..9)
                .map(|k| words[(l * 7 + k * 3 + seed) % words.len()])
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

/// A three-page hOCR scan against its e-text, its furniture left out as
/// the worker leaves it out: `det-` ends the second page above its folio,
/// the third opens with its running head (the second's too), then `ected`.
fn hyphen_across_a_page_break() -> Arc<DiffView> {
    let line = |l: &str| {
        let words: String = l
            .split(' ')
            .map(|w| format!("<span class='ocrx_word'>{w}</span> "))
            .collect();
        format!("<span class='ocr_line'>{words}</span>")
    };
    let par = |lines: &[String]| {
        let lines: String = lines.iter().map(|l| line(l)).collect();
        format!("<p class='ocr_par'>{lines}</p>")
    };
    let page = |pars: &[String]| format!("<div class='ocr_page'>{}</div>", pars.concat());
    let head = || par(&["THE ART OF READING".into()]);
    let folio = |n: &str| par(&[n.into()]);
    let (first, mut middle, mut last) = (prose(20, 0), prose(20, 3), prose(20, 5));
    middle.push("and the errors were det-".into());
    last.insert(0, "ected by".into());
    let scan = format!(
        "<html><body>{}{}{}</body></html>",
        page(&[par(&first), folio("11")]),
        page(&[head(), par(&middle), folio("12")]),
        page(&[head(), par(&last), folio("13")]),
    );
    let etext = format!(
        "{}\n{}\nand the errors were detected by\n{}\n",
        prose(20, 0).join("\n"),
        prose(20, 3).join("\n"),
        prose(20, 5).join("\n")
    );
    let scan = decode_owned(scan.into_bytes()).unwrap();
    let pages = scan.book.expect("hOCR is read as a book").pages;
    let furniture: Vec<_> = doppel_core::engine::text::page_furniture::find(&scan.text)
        .unwrap()
        .into_iter()
        .map(|f| f.range)
        .collect();
    let shown: Vec<&str> = furniture
        .iter()
        .map(|r| scan.text[r.clone()].trim())
        .collect();
    assert!(shown.contains(&"THE ART OF READING"), "{shown:?}");
    let deadline = Instant::now() + Duration::from_secs(60);
    let options = DiffOptions {
        ignored: [&furniture, &[]],
        ..DiffOptions::new(deadline)
    };
    let mut parts = diff_texts(scan.text, etext, &options);
    parts.left.pages = pages;
    Arc::new(parts.into_view(1, "scan.hocr".into(), "etext.txt".into()))
}

/// The screen's text, row by row.
fn screen(t: &Terminal<TestBackend>) -> Vec<String> {
    let b = t.backend().buffer();
    (0..b.area.height)
        .map(|y| (0..b.area.width).map(|x| b[(x, y)].symbol()).collect())
        .collect()
}

/// A word hyphenated across a page break, its running head and folio
/// between, is one equal word: no change, shown joined in the word view,
/// found whole by a search;
/// the page labels and `]` still find the second page, and the line view
/// still shows the scan's lines as they are.
#[test]
fn a_word_hyphenated_across_a_page_break_is_no_change_and_pages_still_walk() {
    let v = hyphen_across_a_page_break();
    assert_eq!(v.left.pages.pages().len(), 3);
    let mut s = showing(100, 30, v);
    let t = draw(&s, 100, 30);
    let rows = screen(&t);
    let summary = rows.iter().find(|r| r.contains("of words equal")).unwrap();
    assert!(
        summary.contains("100 % of words equal · 0 changes"),
        "{summary}"
    );
    press(&mut s, ']');
    press(&mut s, ']');
    let t = draw(&s, 100, 30);
    let said = s.last_event.clone().unwrap_or_default();
    assert!(said.starts_with("p.3 (3 of 3 pages)"), "{said}");
    let top = [gutters(&s, &t, 0).0, gutters(&s, &t, 1).0];
    assert!(top.contains(&"p.3".to_owned()), "{top:?}");
    let rows = screen(&t).join("\n");
    assert!(rows.contains("were detected by"), "{rows}");
    assert!(
        !rows.contains("det-") && !rows.contains("THE ART"),
        "{rows}"
    );
    // A search finds the joined word whole on both sides.
    doppel_tui::diff::search(&mut s, "were detected");
    let found = s.diff.search.as_ref().map(|f| f.found.clone()).unwrap();
    assert_eq!((found[0].len(), found[1].len()), (1, 1), "{found:?}");
    doppel_tui::diff::search(&mut s, "");
    // The line view: the scan's own lines, the furniture on its page.
    press(&mut s, 'w');
    let rows = screen(&draw(&s, 100, 30)).join("\n");
    assert!(rows.contains("were det-"), "{rows}");
    assert!(rows.contains("THE ART OF READING"), "{rows}");
}
