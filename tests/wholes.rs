//! Wholes at any size ratio (issue 46): a document that holds all of
//! another and text of its own besides is its whole (`contains`), even
//! when the part is most of it, so `act` never quarantines a part in favour
//! of its whole nor a whole for its part. Each case is built here from the
//! books of `tests/data/corpus/`: an anthology of *Alice* and two short
//! works, a collected edition, a book with a long preface, and a book with
//! an index; the copies beside them are still duplicates that `act` moves.

use std::fs;
use std::path::PathBuf;

use serde_json::Value;

mod common;

fn corpus(path: &str) -> String {
    fs::read_to_string(common::test_corpus().join(path)).unwrap()
}

/// The first `bytes` of `text`, cut at a line end.
fn head(text: &str, bytes: usize) -> &str {
    let cut = text[..bytes.min(text.len())]
        .rfind('\n')
        .unwrap_or(bytes.min(text.len()));
    &text[..cut]
}

/// A folder of `files` (name, text) and an index path outside it.
struct Case {
    dir: tempfile::TempDir,
    folder: PathBuf,
    index: PathBuf,
}

fn case(files: &[(&str, &str)]) -> Case {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("books");
    fs::create_dir_all(&folder).unwrap();
    for (name, text) in files {
        fs::write(folder.join(name), text).unwrap();
    }
    let index = dir.path().join("index.sqlite");
    Case { dir, folder, index }
}

impl Case {
    /// The scan's JSON, written to the case's index.
    fn scan(&self) -> Value {
        let out = common::stdout_of(
            common::doppel()
                .arg("scan")
                .arg(&self.folder)
                .args(["--format", "json", "--index"])
                .arg(&self.index),
        );
        serde_json::from_slice(&out).unwrap()
    }

    /// `act --dry-run`'s plan, one line each.
    fn plan(&self) -> String {
        let out = common::stdout_of(
            common::doppel()
                .arg("act")
                .arg(&self.folder)
                .arg("--to")
                .arg(self.dir.path().join("quarantine"))
                .arg("--index")
                .arg(&self.index)
                .arg("--dry-run"),
        );
        String::from_utf8(out).unwrap()
    }
}

/// The pair of `x` and `y` in a scan's JSON: its relation, and the file
/// its `whole` names.
fn relation(scan: &Value, x: &str, y: &str) -> (String, Option<String>) {
    let (a, b) = if x < y { (x, y) } else { (y, x) };
    let pair = scan["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["a"] == a && p["b"] == b)
        .unwrap_or_else(|| panic!("no pair {a} – {b}: {:#}", scan["pairs"]));
    let whole = pair
        .get("whole")
        .and_then(Value::as_str)
        .map(|side| if side == "a" { a } else { b }.to_owned());
    (
        pair["relation"].as_str().unwrap_or("none").to_owned(),
        whole,
    )
}

/// The files the plan moves.
fn moved(plan: &str) -> Vec<&str> {
    plan.lines()
        .filter_map(|l| l.strip_prefix("  move "))
        .map(|l| l.rsplit_once(" (").map_or(l, |(path, _)| path))
        .collect()
}

fn assert_holds(scan: &Value, whole: &str, part: &str) {
    assert_eq!(
        relation(scan, whole, part),
        ("contains".to_owned(), Some(whole.to_owned())),
        "{whole} holds {part}"
    );
}

#[test]
fn an_anthology_holding_all_of_a_work_is_its_whole_and_act_moves_neither() {
    let alice = corpus("misc/carroll_alice.txt");
    // Alice is 84 % of the anthology: the old part rule (the part at most
    // 75 % of its whole's size) called the two duplicates.
    let anthology = format!(
        "{alice}\n\n{}\n\n{}",
        corpus("misc/gettysburg.txt"),
        corpus("misc/us_constitution.txt")
    );
    let c = case(&[
        ("alice.txt", &alice),
        ("alice copy.txt", &alice),
        ("anthology.txt", &anthology),
    ]);
    let scan = c.scan();
    assert_holds(&scan, "anthology.txt", "alice.txt");
    assert_holds(&scan, "anthology.txt", "alice copy.txt");
    assert_eq!(
        relation(&scan, "alice.txt", "alice copy.txt").0,
        "duplicate"
    );
    let plan = c.plan();
    let moved = moved(&plan);
    assert!(!moved.contains(&"anthology.txt"), "{plan}");
    if plan.contains("cluster 1: keep anthology.txt") {
        // Each Alice stays as a part of the kept anthology, never moved in
        // its favour.
        assert!(moved.is_empty(), "{plan}");
        assert!(plan.contains("a part of the kept file"), "{plan}");
    } else {
        // An Alice is kept: only its copy moves, and the anthology stays
        // as the whole around it.
        assert_eq!(moved.len(), 1, "{plan}");
        assert!(plan.contains("holds the kept file"), "{plan}");
    }
}

#[test]
fn a_collected_edition_holds_each_book_and_a_copy_of_the_edition_is_its_duplicate() {
    let addresses: Vec<String> = [1861, 1862, 1863, 1864]
        .iter()
        .map(|year| corpus(&format!("sotu/{year}_abraham_lincoln_r.txt")))
        .collect();
    let edition = addresses.join("\n\n");
    let c = case(&[
        ("1861.txt", &addresses[0]),
        ("1863.txt", &addresses[2]),
        ("collected.txt", &edition),
        ("collected (copy).txt", &edition),
    ]);
    let scan = c.scan();
    assert_holds(&scan, "collected.txt", "1861.txt");
    assert_holds(&scan, "collected.txt", "1863.txt");
    assert_eq!(
        relation(&scan, "collected.txt", "collected (copy).txt").0,
        "duplicate"
    );
    let plan = c.plan();
    let moved = moved(&plan);
    assert_eq!(moved.len(), 1, "one copy of the edition moves: {plan}");
    assert!(moved[0].starts_with("collected"), "{plan}");
}

#[test]
fn a_book_with_a_long_preface_holds_the_book_without_it() {
    let book = head(&corpus("austen/prideprejudice.txt"), 120_000).to_owned();
    // A 10 KB preface (8 % of the whole), from another book.
    let dictionary = corpus("misc/devils_dictionary.txt");
    let preface = head(&dictionary, 10_000);
    let prefaced = format!("{preface}\n\n{book}");
    let c = case(&[("novel.txt", &book), ("with-preface.txt", &prefaced)]);
    let scan = c.scan();
    assert_holds(&scan, "with-preface.txt", "novel.txt");
    let plan = c.plan();
    assert!(moved(&plan).is_empty(), "{plan}");
}

#[test]
fn a_book_with_an_index_holds_the_book_and_a_short_preamble_does_not() {
    let book = head(&corpus("moby/moby_dick.txt"), 150_000).to_owned();
    let indexed = format!("{book}\n\nINDEX\n\n{}", index_of(&book));
    let constitution = corpus("misc/us_constitution.txt");
    let preamble_at = constitution
        .find("Article")
        .or_else(|| constitution.find("ARTICLE"))
        .expect("the constitution's first article");
    let no_preamble = &constitution[preamble_at..];
    let c = case(&[
        ("moby.txt", &book),
        ("moby-indexed.txt", &indexed),
        ("constitution.txt", &constitution),
        ("constitution-no-preamble.txt", no_preamble),
    ]);
    let scan = c.scan();
    assert_holds(&scan, "moby-indexed.txt", "moby.txt");
    // A preamble of a few dozen words is no text of its own: the two
    // constitutions stay duplicates, and act moves the incomplete one.
    assert_eq!(
        relation(&scan, "constitution.txt", "constitution-no-preamble.txt").0,
        "duplicate"
    );
    let plan = c.plan();
    assert_eq!(moved(&plan), vec!["constitution-no-preamble.txt"], "{plan}");
}

/// A back-of-book index of `book`: its longer words, each with the
/// "pages" (2,000-byte steps) it appears on.
fn index_of(book: &str) -> String {
    let mut pages: std::collections::BTreeMap<String, Vec<usize>> = Default::default();
    let mut at = 0;
    for word in book.split_whitespace() {
        at += word.len() + 1;
        let word: String = word.chars().filter(|c| c.is_alphabetic()).collect();
        if word.len() >= 8 {
            let page = at / 2_000 + 1;
            let entry = pages.entry(word.to_lowercase()).or_default();
            if entry.last() != Some(&page) {
                entry.push(page);
            }
        }
    }
    pages
        .iter()
        .map(|(word, pages)| {
            let pages: Vec<String> = pages.iter().map(ToString::to_string).collect();
            format!("{word}, {}\n", pages.join(", "))
        })
        .collect()
}
