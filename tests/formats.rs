//! Books as curators hold them, through the whole pipeline: one chapter of
//! Emma as an e-text, Tesseract's OCR text, searchable PDF, ALTO and hOCR,
//! pandoc's EPUB, HTML and TEI, a gzip, a zip of page texts and a METS
//! folder of ALTO pages (all made by the real tools:
//! `assets/scripts/make-format-fixtures.sh`), scanned
//! as a folder. They are one cluster, the part sits in it, and every pair
//! with a paged side says on which pages it matches.
//!
//! The fixtures are the repository's `tests/data/formats`; when
//! `DOPPEL_FORMAT_FIXTURES` names a folder the script just made (CI sets
//! it after running the script with the tools installed there), the same
//! holds for that folder too, so a tool's new version that reads
//! differently shows.

use std::path::{Path, PathBuf};

use serde_json::Value;

use doppel_core::engine::Engine;
use doppel_index::scan::{scan_folder, ScanReport};
use doppel_pairing::cluster::ClusterSpec;
use doppel_pairing::library::LibraryConfig;

/// The forms of the whole chapter, each one book.
const CHAPTER: [&str; 12] = [
    "emma_etext.txt",
    "emma_scan_ocr.txt",
    "emma_scan.pdf",
    "emma_scan.xml",
    "emma_scan.hocr",
    "emma.epub",
    "emma.html",
    "emma.tei.xml",
    "emma.txt.gz",
    "emma_pages_txt.zip",
    "emma_pages",
    "emma_scan.pdftotext.txt",
];

fn repository_fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/formats")
}

fn scan(dir: &Path) -> (ScanReport, Value) {
    let engine = Engine::default();
    let spec = ClusterSpec::from_engine(&engine);
    let report = scan_folder(
        dir,
        &engine,
        engine.reference_weights(),
        LibraryConfig::default(),
        spec,
    )
    .expect("scan");
    let json = doppel_report::json(&report, dir, engine.config()).unwrap();
    (report, serde_json::from_str(&json).unwrap())
}

fn cluster_of<'a>(json: &'a Value, doc: &str) -> Option<&'a Value> {
    json["clusters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["members"].as_array().unwrap().iter().any(|m| m == doc))
}

fn pair<'a>(json: &'a Value, a: &str, b: &str) -> Option<&'a Value> {
    json["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| (p["a"] == a && p["b"] == b) || (p["a"] == b && p["b"] == a))
}

fn every_form_of_the_chapter_is_one_book_in_one_cluster(dir: &Path) {
    let (_, json) = scan(dir);
    let skipped: Vec<&Value> = json["documents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["status"] == "skipped")
        .collect();
    assert!(skipped.is_empty(), "every form has text: {skipped:?}");
    let cluster = cluster_of(&json, "emma_etext.txt").expect("the e-text is clustered");
    let members = cluster["members"].as_array().unwrap();
    for form in CHAPTER {
        assert!(
            members.iter().any(|m| m == form),
            "{form} is in the e-text's cluster: {members:?}"
        );
    }
    let part = cluster["roles"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["path"] == "emma_part.txt")
        .expect("the first third of the chapter is in the cluster");
    assert_eq!(part["role"], "part", "{part}");
    for (form, format) in [
        ("emma_scan.pdf", "pdf"),
        ("emma_scan.xml", "alto"),
        ("emma_scan.hocr", "hocr"),
        ("emma.epub", "epub"),
        ("emma.tei.xml", "tei"),
        ("emma_pages_txt.zip", "page-zip"),
        ("emma_pages", "page-folder"),
    ] {
        let doc = json["documents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["path"] == form)
            .unwrap();
        assert_eq!(doc["format"], format, "{doc}");
    }
    let plain = json["documents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["path"] == "emma_etext.txt")
        .unwrap();
    assert!(
        plain.get("format").is_none(),
        "plain text as before: {plain}"
    );
}

fn every_pair_with_pages_says_where(dir: &Path) {
    let (_, json) = scan(dir);
    // The scan's eleven pages against the e-text's lines, whichever side
    // the pair puts first.
    let scan_etext = pair(&json, "emma_scan.xml", "emma_etext.txt").expect("paired");
    let place = &scan_etext["place"];
    let (scan_side, etext_side) = if scan_etext["a"] == "emma_scan.xml" {
        (&place["a"], &place["b"])
    } else {
        (&place["b"], &place["a"])
    };
    assert_eq!(scan_side, "pp. 1–11", "{scan_etext}");
    assert!(
        etext_side.as_str().unwrap().starts_with("lines "),
        "{scan_etext}"
    );
    // The part sits on the first pages of the book, not all of them.
    let part = pair(&json, "emma_part.txt", "emma_scan.hocr").expect("paired");
    let place = &part["place"];
    let book_side = if part["a"] == "emma_scan.hocr" {
        &place["a"]
    } else {
        &place["b"]
    };
    let pages = book_side.as_str().unwrap();
    assert!(pages.starts_with("pp. 1–"), "{part}");
    let last: u32 = pages.rsplit('–').next().unwrap().parse().unwrap();
    assert!((3..=5).contains(&last), "a third of 11 pages: {part}");
    // Two plain texts: no place, as before.
    let plain = pair(&json, "emma_etext.txt", "emma_scan_ocr.txt").expect("paired");
    assert!(plain.get("place").is_none(), "{plain}");
}

#[test]
fn every_form_of_the_chapter_is_one_book_in_one_cluster_here() {
    every_form_of_the_chapter_is_one_book_in_one_cluster(&repository_fixtures());
}

#[test]
fn every_pair_with_pages_says_where_here() {
    every_pair_with_pages_says_where(&repository_fixtures());
}

#[test]
fn fixtures_made_by_the_tools_now_read_the_same() {
    let Some(dir) = std::env::var_os("DOPPEL_FORMAT_FIXTURES") else {
        eprintln!("skipped: DOPPEL_FORMAT_FIXTURES names no fixtures made just now");
        return;
    };
    every_form_of_the_chapter_is_one_book_in_one_cluster(Path::new(&dir));
    every_pair_with_pages_says_where(Path::new(&dir));
}

#[test]
fn site_chrome_and_licence_pages_pair_with_nothing() {
    let (_, json) = scan(&repository_fixtures());
    for page in [
        "web/page-1.html",
        "web/page-2.html",
        "web/page-3.html",
        "web/page-4.html",
        "web/licence-a.html",
        "web/licence-b.html",
    ] {
        let paired: Vec<&Value> = json["pairs"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["a"] == page || p["b"] == page)
            .collect();
        assert!(
            paired.is_empty(),
            "{page} pairs by its site's chrome: {paired:?}"
        );
    }
}

#[test]
fn the_csv_names_the_pages_of_a_match_and_leaves_plain_pairs_empty() {
    let dir = repository_fixtures();
    let (report, _) = scan(&dir);
    let csv = doppel_report::csv(&report, &dir).unwrap();
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let rows: Vec<std::collections::HashMap<String, String>> =
        reader.deserialize().map(Result::unwrap).collect();
    let row = |a: &str, b: &str| {
        rows.iter()
            .find(|r| (r["a"] == a && r["b"] == b) || (r["a"] == b && r["b"] == a))
            .unwrap_or_else(|| panic!("{a} and {b} paired"))
    };
    let scan_etext = row("emma_scan.hocr", "emma_etext.txt");
    let scan_side = if scan_etext["a"] == "emma_scan.hocr" {
        &scan_etext["place_a"]
    } else {
        &scan_etext["place_b"]
    };
    assert_eq!(scan_side, "pp. 1–11", "{scan_etext:?}");
    let plain = row("emma_etext.txt", "emma_scan_ocr.txt");
    assert_eq!((&plain["place_a"][..], &plain["place_b"][..]), ("", ""));
}

#[test]
fn the_text_report_names_the_pages_of_a_match() {
    let dir = repository_fixtures();
    let (report, _) = scan(&dir);
    let text = doppel_report::text(&report, &dir);
    assert!(
        text.lines()
            .any(|l| l.trim_start().starts_with("pp. 1–11 ≈ ")),
        "{text}"
    );
}
