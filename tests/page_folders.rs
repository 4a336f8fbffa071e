//! A book as a folder of page files is one document: a METS package of
//! ALTO pages (Tesseract's, `tests/data/formats/emma_pages`), numbered
//! OCR pages, HathiTrust's numbered page texts when the configuration
//! says numbered pages of any format count (a dataset's `000001.txt` …
//! stay documents by default), or any folder a curator marks with
//! `.doppelbook`.
//! It clusters with the book's other forms and says on which pages they
//! match; a page changed, added or removed reads that book again and no
//! other file; a marker saying `no` gives the pages back as documents of
//! their own; chapters named `1.txt`, `2.txt` stay documents.

mod common;

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use doppel_index::index::FileChange;

fn formats() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/formats")
}

/// A folder with the e-text of Emma's first chapter, its METS/ALTO page
/// folder (`scan/`), the same ALTO pages without the METS file
/// (`alto/0001.xml` …), and its text cut into HathiTrust-style numbered
/// page files (`hathi/00000001.txt` …), marked as a book.
fn collection() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("books");
    fs::create_dir(&root).unwrap();
    fs::copy(formats().join("emma_etext.txt"), root.join("emma.txt")).unwrap();
    common::copy_dir(&formats().join("emma_pages"), &root.join("scan"));
    let text = fs::read_to_string(formats().join("emma_etext.txt")).unwrap();
    let paragraphs: Vec<&str> = text.split("\n\n").collect();
    fs::create_dir(root.join("hathi")).unwrap();
    for (n, page) in paragraphs.chunks(paragraphs.len().div_ceil(6)).enumerate() {
        let name = format!("{:08}.txt", n + 1);
        fs::write(root.join("hathi").join(name), page.join("\n\n")).unwrap();
    }
    fs::write(root.join("hathi/.doppelbook"), "").unwrap();
    fs::create_dir(root.join("alto")).unwrap();
    for n in 1..=11 {
        fs::copy(
            formats().join(format!("emma_pages/{n:08}.xml")),
            root.join(format!("alto/{n:04}.xml")),
        )
        .unwrap();
    }
    (dir, root)
}

fn documents(json: &Value) -> BTreeSet<String> {
    json["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["path"].as_str().unwrap().to_owned())
        .collect()
}

fn document<'a>(json: &'a Value, path: &str) -> &'a Value {
    json["documents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["path"] == path)
        .unwrap_or_else(|| panic!("{path} is a document"))
}

fn pair<'a>(json: &'a Value, a: &str, b: &str) -> &'a Value {
    json["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| (p["a"] == a && p["b"] == b) || (p["a"] == b && p["b"] == a))
        .unwrap_or_else(|| panic!("{a} and {b} are paired: {}", json["pairs"]))
}

/// The place on `side` of a pair's JSON.
fn place_of(pair: &Value, side: &str) -> String {
    let key = if pair["a"] == side { "a" } else { "b" };
    pair["place"][key].as_str().unwrap_or_default().to_owned()
}

#[test]
fn a_folder_of_pages_is_one_document_clustered_with_its_book_and_named_by_pages() {
    let (_dir, root) = collection();
    let json = common::scan_json(&root, &[]);
    assert_eq!(
        documents(&json),
        BTreeSet::from([
            "alto".into(),
            "emma.txt".into(),
            "hathi".into(),
            "scan".into()
        ]),
        "each page folder is one document, its pages none"
    );
    assert_eq!(document(&json, "scan")["format"], "page-folder");
    assert_eq!(document(&json, "hathi")["format"], "page-folder");
    let cluster = json["clusters"][0]["members"].as_array().unwrap();
    assert_eq!(cluster.len(), 4, "{cluster:?}");
    // The METS package's eleven ALTO pages, and the six text pages.
    assert_eq!(
        place_of(pair(&json, "scan", "emma.txt"), "scan"),
        "pp. 1–11"
    );
    assert_eq!(
        place_of(pair(&json, "hathi", "emma.txt"), "hathi"),
        "pp. 1–6"
    );
    assert_eq!(
        place_of(pair(&json, "alto", "emma.txt"), "alto"),
        "pp. 1–11"
    );

    let text = common::scan_text(&root, &[]);
    assert!(
        text.contains("read as books (each folder one document of its pages)\n")
            && text.contains("  alto/  (11 files; its files are numbered pages)\n")
            && text.contains("  hathi/  (6 files; marked with .doppelbook)\n")
            && text.contains("  scan/  (12 files; a METS file names its pages)\n"),
        "{text}"
    );
}

#[test]
fn a_marker_decides_and_chapters_stay_documents() {
    let (_dir, root) = collection();
    // A marker saying no: the package's pages are documents again.
    fs::write(root.join("scan/.doppelbook"), "no\n").unwrap();
    // Chapters named by small numbers are not pages, until marked.
    fs::create_dir(root.join("chapters")).unwrap();
    for n in 1..=3 {
        fs::write(
            root.join(format!("chapters/{n}.txt")),
            format!("Chapter {n} of another book, with words of its own {n}."),
        )
        .unwrap();
    }
    let json = common::scan_json(&root, &[]);
    let docs = documents(&json);
    assert!(
        docs.contains("scan/00000001.xml") && !docs.contains("scan"),
        "{docs:?}"
    );
    assert!(
        docs.contains("chapters/1.txt") && !docs.contains("chapters"),
        "{docs:?}"
    );

    fs::remove_file(root.join("scan/.doppelbook")).unwrap();
    fs::write(root.join("chapters/.doppelbook"), "").unwrap();
    let json = common::scan_json(&root, &[]);
    let docs = documents(&json);
    assert!(
        docs.contains("scan") && docs.contains("chapters"),
        "{docs:?}"
    );
    assert!(!docs.iter().any(|d| d.starts_with("chapters/")), "{docs:?}");
}

#[test]
fn numbered_texts_are_documents_unless_the_configuration_counts_them_as_pages() {
    let (dir, root) = collection();
    fs::remove_file(root.join("hathi/.doppelbook")).unwrap();
    let json = common::scan_json(&root, &[]);
    let docs = documents(&json);
    assert!(
        docs.contains("hathi/00000001.txt") && !docs.contains("hathi"),
        "a dataset's numbered documents stay documents: {docs:?}"
    );
    let config = dir.path().join("doppel.toml");
    fs::write(&config, "[books]\npage-folders = \"numbered\"\n").unwrap();
    let config = config.to_str().unwrap();
    let json = common::scan_json(&root, &["--config", config]);
    assert!(documents(&json).contains("hathi"));
    // Read again for the report: its pages are named as for a marked one.
    assert_eq!(
        place_of(pair(&json, "hathi", "emma.txt"), "hathi"),
        "pp. 1–6"
    );
    let text = common::scan_text(&root, &["--config", config]);
    assert!(
        text.contains("  hathi/  (6 files; its files are numbered pages)\n"),
        "{text}"
    );
    fs::write(
        dir.path().join("doppel.toml"),
        "[books]\npage-folders = \"off\"\n",
    )
    .unwrap();
    let docs = documents(&common::scan_json(&root, &["--config", config]));
    assert!(
        docs.contains("scan/00000001.xml") && docs.contains("alto/0001.xml"),
        "{docs:?}"
    );
}

#[test]
fn a_folder_of_pages_in_two_formats_is_skipped_with_the_reason() {
    let (_dir, root) = collection();
    fs::copy(
        formats().join("emma_pages/00000001.xml"),
        root.join("hathi/00000007.xml"),
    )
    .unwrap();
    let json = common::scan_json(&root, &[]);
    let hathi = document(&json, "hathi");
    assert_eq!(hathi["status"], "skipped", "{hathi}");
    let reason = hathi["reason"].to_string();
    assert!(
        reason.contains("folder of pages") && reason.contains("more than one format"),
        "{reason}"
    );
}

#[test]
fn a_page_changed_added_or_removed_reads_that_book_again_and_nothing_else() {
    let (dir, root) = collection();
    let mut index = common::indexed(&root, &dir.path().join("index.sqlite"));
    let reads = common::count_reads(&mut index);
    let read =
        |reads: &std::sync::atomic::AtomicUsize| reads.swap(0, std::sync::atomic::Ordering::SeqCst);
    assert_eq!(index.reconcile().unwrap().read, 0, "nothing changed");

    let page = root.join("hathi/00000003.txt");
    let mut text = fs::read_to_string(&page).unwrap();
    text.push_str("\n\nA line the curator's copy adds to the third page.");
    fs::write(&page, text).unwrap();
    let changes = index.sync_paths(std::slice::from_ref(&page)).unwrap();
    assert_eq!(
        changes,
        [FileChange::Indexed {
            path: "hathi".into()
        }],
        "the watcher's page event is its book's"
    );
    assert_eq!(read(&reads), 1, "one book read again");

    let added = root.join("hathi/00000007.txt");
    fs::write(&added, "A seventh page, found later.").unwrap();
    fs::remove_file(root.join("hathi/00000001.txt")).unwrap();
    let report = index.reconcile().unwrap();
    assert_eq!(report.read, 1, "only the book is read again: {report:?}");
    assert_eq!(read(&reads), 1);
    let docs: BTreeSet<String> = index
        .library()
        .documents()
        .map(|(_, d)| d.path.to_string())
        .collect();
    assert_eq!(docs.len(), 4, "{docs:?}");
}

#[test]
fn a_folder_that_becomes_a_book_replaces_its_pages_and_one_that_stops_gives_them_back() {
    let (dir, root) = collection();
    fs::write(root.join("scan/.doppelbook"), "no\n").unwrap();
    let mut index = common::indexed(&root, &dir.path().join("index.sqlite"));
    let paths = |index: &doppel_index::index::FolderIndex| -> BTreeSet<String> {
        index
            .library()
            .documents()
            .map(|(_, d)| d.path.to_string())
            .collect()
    };
    assert!(paths(&index).contains("scan/00000001.xml"));

    // The watcher sees a page of a folder now a book (a marker's change
    // asks for a rescan; a page's event alone also finds the book).
    fs::remove_file(root.join("scan/.doppelbook")).unwrap();
    let page = root.join("scan/00000002.xml");
    let changes = index.sync_paths(&[page]).unwrap();
    assert!(
        changes.contains(&FileChange::Indexed {
            path: "scan".into()
        }) && changes.contains(&FileChange::Removed {
            path: "scan/00000002.xml".into()
        }),
        "{changes:?}"
    );
    let now = paths(&index);
    assert!(
        now.contains("scan") && !now.iter().any(|p| p.starts_with("scan/")),
        "{now:?}"
    );

    fs::write(root.join("scan/.doppelbook"), "no\n").unwrap();
    let changes = index.sync_paths(&[root.join("scan/00000005.xml")]).unwrap();
    assert!(
        changes.contains(&FileChange::Removed {
            path: "scan".into()
        }),
        "{changes:?}"
    );
    let now = paths(&index);
    assert!(!now.contains("scan"), "{now:?}");
    assert_eq!(
        now.iter().filter(|p| p.starts_with("scan/0")).count(),
        11,
        "every page is a document again: {now:?}"
    );
}

#[test]
fn act_leaves_a_book_folder_where_it_is_and_says_why() {
    let (dir, root) = collection();
    let index = dir.path().join("index.sqlite");
    let quarantine = dir.path().join("quarantine");
    let run = |args: &[&str]| {
        let out = common::doppel()
            .env("XDG_DATA_HOME", dir.path().join("data"))
            .args(args)
            .arg(&root)
            .arg("--index")
            .arg(&index)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    run(&["scan"]);
    let plan = run(&["act", "--to", quarantine.to_str().unwrap(), "--yes"]);
    for folder in ["alto", "hathi", "scan"] {
        if plan.contains(&format!("keep {folder}")) {
            continue;
        }
        assert!(
            plan.contains(&format!(
                "  stay {folder}: a folder of pages (one book): act moves single files"
            )),
            "{plan}"
        );
        assert!(root
            .join(folder)
            .join(if folder == "hathi" {
                "00000001.txt"
            } else if folder == "alto" {
                "0001.xml"
            } else {
                "mets.xml"
            })
            .is_file());
    }
}
