//! The HTML report says where a pair with a paged side matches, in the
//! text report's words ("pp. 1–11", "lines 3–324"), and links each matched
//! page to its image: a web URI as given, a file beside the document only
//! if it is there. A plain-text pair's page is as it was. The scans are
//! the repository's format fixtures (tests/data/formats), copied into a
//! temporary folder with page images made up for the test.

use std::fs;
use std::path::{Path, PathBuf};

use doppel_core::doc::DocPath;
use doppel_core::engine::{Engine, EngineConfig};
use doppel_index::places::Places;
use doppel_index::scan::{scan_folder, ScanReport};
use doppel_pairing::cluster::ClusterSpec;
use doppel_pairing::library::LibraryConfig;
use doppel_report::html::{self, render, Documents, Limits, Report};

/// The format fixtures: one chapter of Emma as a scan's ALTO, hOCR, … and
/// as an e-text.
fn formats() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/formats")
}

/// A folder holding copies of the fixtures `names`.
fn folder_of(names: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for name in names {
        fs::copy(formats().join(name), dir.path().join(name)).unwrap();
    }
    dir
}

fn scan(root: &Path) -> ScanReport {
    let engine = Engine::new(EngineConfig::default());
    let spec = ClusterSpec::from_engine(&engine);
    scan_folder(
        root,
        &engine,
        engine.reference_weights(),
        LibraryConfig::default(),
        spec,
    )
    .expect("scan")
}

fn page_of(scan: &ScanReport, root: &Path) -> String {
    html::scan_report(scan, root, &EngineConfig::default(), &Limits::default())
}

/// The one cluster's pair: its two paths, as the report orders them.
fn the_pair(scan: &ScanReport, root: &Path) -> (DocPath, DocPath) {
    let report = Report::from_scan(scan, root);
    assert_eq!(report.clusters.len(), 1, "one cluster");
    let pairs = &report.clusters[0].pairs;
    assert_eq!(pairs.len(), 1, "one pair");
    (pairs[0].a.clone(), pairs[0].b.clone())
}

/// A document's name in the page, followed by its place.
fn named_place(name: &str, place: &str) -> String {
    format!(
        "<code>{name}</code> <span class=\"place\" title=\"where this side matches the other\">{place}</span>"
    )
}

/// The page's paragraph listing `name`'s page images.
fn images_of<'a>(page: &'a str, name: &str) -> &'a str {
    let start = "<p class=\"page-images\">Page images of ";
    page.match_indices(start)
        .map(|(at, _)| &page[at..at + page[at..].find("</p>").unwrap()])
        .find(|p| p.contains(&format!("<code>{name}</code>")))
        .unwrap_or_else(|| panic!("no page images of {name}"))
}

#[test]
fn a_scan_and_its_etext_show_where_each_matches_as_the_text_report_says() {
    let dir = folder_of(&["emma_scan.xml", "emma_etext.txt"]);
    let root = dir.path();
    let scan = scan(root);
    let (a, b) = the_pair(&scan, root);
    let place = Places::new(root)
        .of_scanned_pair(&scan, &a, &b)
        .expect("a place");
    let (scan_place, etext_place) = if a == "emma_scan.xml" {
        (&place.a, &place.b)
    } else {
        (&place.b, &place.a)
    };
    // The chapter is the scan's 11 pages; the e-text's lines by number.
    assert_eq!(scan_place, "pp. 1–11");
    assert!(etext_place.starts_with("lines "), "{etext_place}");
    // The text report says the same.
    let text = doppel_report::text(&scan, root);
    assert!(
        text.contains(&format!("{} ≈ {} of {a}", place.b, place.a))
            || text.contains(&format!("{} ≈ {} of {b}", place.a, place.b)),
        "{text}"
    );
    let page = page_of(&scan, root);
    let row_a = named_place("emma_scan.xml", scan_place);
    let row_b = named_place("emma_etext.txt", etext_place);
    // In the pair's row, the diff's heading and its columns' heads.
    assert_eq!(page.matches(&row_a).count(), 3, "{row_a}");
    assert_eq!(page.matches(&row_b).count(), 3, "{row_b}");
    let summary = &page[page.find("<summary>Diff ").unwrap()..];
    let summary = &summary[..summary.find("</summary>").unwrap()];
    assert!(
        summary.contains(&row_a) && summary.contains(&row_b),
        "{summary}"
    );
    // The ALTO names its first page's image, which is not here: named,
    // not linked.
    assert!(!page.contains("file://"));
    assert!(
        images_of(&page, "emma_scan.xml").ends_with(
            "(pp. 1–11): <span class=\"unlinked\">p. 1 <code>00000001.tif</code></span> \
             (no such file beside the document: named, not linked)"
        ),
        "{page}"
    );
}

#[test]
fn a_page_image_beside_the_document_is_linked_and_a_missing_one_is_not() {
    // The ALTO names its first page's image, 00000001.tif.
    let dir = folder_of(&["emma_scan.xml", "emma_etext.txt"]);
    let root = dir.path();
    fs::write(root.join("00000001.tif"), b"II*\0 dummy").unwrap();
    let page = page_of(&scan(root), root);
    let url = format!(
        "file://{}/00000001.tif",
        std::path::absolute(root).unwrap().display()
    );
    let alto = images_of(&page, "emma_scan.xml");
    assert!(
        alto.contains(&format!("<a href=\"{url}\" title=\"00000001.tif\" target=\"_blank\" rel=\"noopener noreferrer\">p. 1</a>")),
        "{alto}"
    );
    // The e-text has no pages: no images.
    assert_eq!(page.matches("<p class=\"page-images\">").count(), 1);

    // The hOCR names every page's image; only the second is here.
    let dir = folder_of(&["emma_scan.hocr", "emma_etext.txt"]);
    let root = dir.path();
    fs::write(root.join("00000002.tif"), b"II*\0 dummy").unwrap();
    let page = page_of(&scan(root), root);
    let hocr = images_of(&page, "emma_scan.hocr");
    let url = format!(
        "file://{}/00000002.tif",
        std::path::absolute(root).unwrap().display()
    );
    assert!(hocr.contains(&format!("<a href=\"{url}\"")), "{hocr}");
    assert_eq!(hocr.matches("<a href=").count(), 1, "{hocr}");
    assert!(
        hocr.contains(": <span class=\"unlinked\">p. 1 <code>00000001.tif</code></span> · <a href"),
        "{hocr}"
    );
    assert!(
        hocr.ends_with(
            "<span class=\"unlinked\">p. 11 <code>00000011.tif</code></span> \
             (10 not beside the document: named, not linked)"
        ),
        "{hocr}"
    );
    assert!(
        !page.contains("00000001.tif\""),
        "no link to a missing file"
    );
}

/// An hOCR file of `paragraphs`, split over pages, each page's image the
/// URI in `images`.
fn hocr(paragraphs: &[&str], images: &[&str]) -> String {
    let escape = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    let per_page = paragraphs.len().div_ceil(images.len());
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\">\
         <head><title></title><meta name=\"ocr-system\" content=\"test\"/></head><body>\n",
    );
    for (n, (image, page)) in images.iter().zip(paragraphs.chunks(per_page)).enumerate() {
        out.push_str(&format!(
            "<div class=\"ocr_page\" id=\"page_{}\" title=\"image &quot;{}&quot;; bbox 0 0 1000 1600\">\n",
            n + 1,
            escape(image)
        ));
        for paragraph in page {
            out.push_str("<p class=\"ocr_par\">");
            for line in paragraph.lines() {
                out.push_str(&format!(
                    "<span class=\"ocr_line\">{}</span>\n",
                    escape(line)
                ));
            }
            out.push_str("</p>\n");
        }
        out.push_str("</div>\n");
    }
    out.push_str("</body></html>\n");
    out
}

#[test]
fn a_web_image_is_linked_as_the_source_gives_it() {
    let dir = folder_of(&["emma_etext.txt"]);
    let root = dir.path();
    let etext = fs::read_to_string(root.join("emma_etext.txt")).unwrap();
    let paragraphs: Vec<&str> = etext
        .split("\n\n")
        .filter(|p| !p.trim().is_empty())
        .collect();
    let images = [
        "https://iiif.example.org/iiif/b1/p1/full/max/0/default.jpg",
        "https://iiif.example.org/iiif/b1/p2/full/max/0/default.jpg?quality=gray&format=jpg",
    ];
    fs::write(root.join("iiif.hocr"), hocr(&paragraphs, &images)).unwrap();
    let scan = scan(root);
    let page = page_of(&scan, root);
    let listed = images_of(&page, "iiif.hocr");
    assert!(
        listed.contains(&format!("<a href=\"{}\"", images[0])),
        "{listed}"
    );
    // As given, escaped as any attribute is.
    assert!(
        listed.contains(
            "<a href=\"https://iiif.example.org/iiif/b1/p2/full/max/0/default.jpg?quality=gray&amp;format=jpg\""
        ),
        "{listed}"
    );
    assert!(listed.contains(">p. 2</a>"), "{listed}");
    assert!(page.contains(&named_place("iiif.hocr", "pp. 1–2")));
}

#[test]
fn more_matched_pages_than_listed_are_counted() {
    let dir = folder_of(&["emma_etext.txt"]);
    let root = dir.path();
    let etext = fs::read_to_string(root.join("emma_etext.txt")).unwrap();
    let lines: Vec<&str> = etext.lines().filter(|l| !l.trim().is_empty()).collect();
    // Ten lines a page.
    let pages = lines.len().div_ceil(10);
    assert!(pages > 25, "{pages} pages");
    let images: Vec<String> = (1..=pages)
        .map(|n| format!("https://iiif.example.org/iiif/b1/p{n}/full/max/0/default.jpg"))
        .collect();
    let images: Vec<&str> = images.iter().map(String::as_str).collect();
    fs::write(root.join("iiif.hocr"), hocr(&lines, &images)).unwrap();
    let page = page_of(&scan(root), root);
    assert!(page.contains(&named_place("iiif.hocr", &format!("pp. 1–{pages}"))));
    let listed = images_of(&page, "iiif.hocr");
    assert_eq!(listed.matches("<a href=").count(), 20, "{listed}");
    assert!(listed.contains(">p. 20</a> … and "), "{listed}");
    assert!(
        listed.ends_with(&format!(" … and {} more pages", pages - 20)),
        "{listed}"
    );
}

#[test]
fn a_plain_text_pair_is_shown_as_it_always_was() {
    let dir = folder_of(&["emma_etext.txt", "emma_scan_ocr.txt"]);
    let root = dir.path();
    let scan = scan(root);
    the_pair(&scan, root);
    let page = page_of(&scan, root);
    assert!(!page.contains("class=\"place\""));
    assert!(!page.contains("class=\"page-images\""));
    // Byte for byte the page made without looking for places.
    let limits = Limits::default();
    let mut report = Report::from_scan(&scan, root);
    report.keep_pairs(limits.pairs_per_cluster);
    let docs = Documents::new(root, &EngineConfig::default()).with_boilerplate(&scan.boilerplate);
    html::attach_diffs(&mut report, &docs, &limits);
    assert_eq!(page, render::page(&report));
}
