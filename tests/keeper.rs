//! One keeper everywhere (issue 46): absent a curator's mark, the file a
//! cluster keeps is the keeper rule's (`doppel_pairing::keeper`), and
//! every face names that same file: the scan's JSON `representative` and
//! its text report's `*`, the HTML report, the review screen's first
//! member (its `☆`), `act`'s plan (the review screen's `M` plans by the
//! same `act::decided`) and the manifest's `kept`. Each case is a folder
//! built here whose wrong file is first by name and oldest, so the old
//! rule (the first member by arrival) kept it.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

use doppel_core::engine::{Engine, EngineConfig};
use doppel_index::scan::scan_folder;
use doppel_pairing::cluster::ClusterSpec;
use doppel_pairing::library::LibraryConfig;
use doppel_report::html;

mod common;

/// A folder of `files` (name, bytes), each older than the next, and an
/// index path outside it.
struct Case {
    dir: tempfile::TempDir,
    folder: PathBuf,
    index: PathBuf,
}

fn case(files: &[(&str, Vec<u8>)]) -> Case {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("books");
    for (n, (name, bytes)) in files.iter().enumerate() {
        let path = folder.join(name);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, bytes).unwrap();
        let when = UNIX_EPOCH + Duration::from_secs(1_000_000_000 + n as u64 * 86_400);
        fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(when)
            .unwrap();
    }
    let index = dir.path().join("state").join("index.sqlite");
    Case { dir, folder, index }
}

/// The file each face keeps of the folder's one cluster, by face.
fn kept_everywhere(c: &Case) -> Vec<(&'static str, String)> {
    let mut kept = Vec::new();
    let json = common::scan_json(&c.folder, &[]);
    let clusters = json["clusters"].as_array().unwrap();
    assert_eq!(clusters.len(), 1, "{clusters:#?}");
    let members = clusters[0]["members"].as_array().unwrap();
    let files = fs::read_dir(&c.folder).unwrap().count();
    assert_eq!(
        members.len(),
        files,
        "every file is in the cluster: {members:?}"
    );
    let representative = clusters[0]["representative"].as_str().unwrap();
    assert_eq!(clusters[0]["members"][0].as_str(), Some(representative));
    kept.push(("scan --format json", representative.to_owned()));
    let text = common::scan_text(&c.folder, &[]);
    let star = text.lines().find_map(|l| l.strip_prefix("  * ")).unwrap();
    kept.push(("scan (text)", star.to_owned()));
    kept.push(("report --html", html_representative(&c.folder)));
    {
        let index = common::indexed(&c.folder, &c.index);
        let snapshot = common::snapshot_of(&index);
        assert_eq!(snapshot.clusters.len(), 1);
        let first = &snapshot.clusters[0].members[0].path;
        kept.push(("review screen (☆, M)", first.to_string()));
    }
    let quarantine = c.dir.path().join("quarantine");
    let plan = common::stdout_of(
        common::doppel()
            .arg("act")
            .arg(&c.folder)
            .arg("--to")
            .arg(&quarantine)
            .arg("--index")
            .arg(&c.index)
            .arg("--dry-run"),
    );
    let plan = String::from_utf8(plan).unwrap();
    let act = plan
        .lines()
        .find_map(|l| l.strip_prefix("cluster 1: keep "))
        .unwrap_or_else(|| panic!("{plan}"));
    kept.push(("act --dry-run", act.to_owned()));
    let manifest = common::stdout_of(
        common::doppel()
            .arg("manifest")
            .arg(&c.folder)
            .args(["--format", "json", "--index"])
            .arg(&c.index),
    );
    let manifest: serde_json::Value = serde_json::from_slice(&manifest).unwrap();
    let rows = manifest["rows"].as_array().unwrap();
    let kept_rows: Vec<&str> = rows
        .iter()
        .filter(|r| r["kept"] == true)
        .map(|r| r["path"].as_str().unwrap())
        .collect();
    assert_eq!(kept_rows.len(), 1, "{rows:#?}");
    kept.push(("manifest", kept_rows[0].to_owned()));
    kept
}

/// The representative the HTML report names for its one cluster.
fn html_representative(folder: &Path) -> String {
    let engine = Engine::new(EngineConfig::default());
    let spec = ClusterSpec::from_engine(&engine);
    let config = LibraryConfig::default();
    let scan = scan_folder(folder, &engine, engine.reference_weights(), config, spec).unwrap();
    let limits = html::Limits::default();
    let page = html::scan_report(&scan, folder, &EngineConfig::default(), &limits);
    let at = page.find("data-rep=\"").expect("a cluster row") + "data-rep=\"".len();
    let rep = &page[at..at + page[at..].find('"').unwrap()];
    rep.replace("&amp;", "&")
}

/// Every face keeps `expected`.
fn assert_kept_everywhere(c: &Case, expected: &str) {
    for (face, kept) in kept_everywhere(c) {
        assert_eq!(kept, expected, "{face} keeps {kept}");
    }
}

fn sample(name: &str) -> Vec<u8> {
    fs::read(common::sample_corpus().join(name)).unwrap()
}

/// Chapter I of Mansfield Park, from the tests' corpus.
fn mansfield_chapter() -> String {
    let book = fs::read_to_string(common::test_corpus().join("austen/mansfieldpark.txt")).unwrap();
    let start = book.find("CHAPTER I\n").unwrap();
    let end = book.find("CHAPTER II\n").unwrap();
    book[start..end].to_owned()
}

/// `text` as a poor scan reads it: every eighth word with a letter a
/// scanner confuses (`m` → `rn`, `d` → `cl`, `e` → `c`, `l` → `1`) misread.
fn ocr_noise(text: &str) -> String {
    let confusions = [("m", "rn"), ("d", "cl"), ("e", "c"), ("l", "1")];
    let mut n = 0;
    let words: Vec<String> = text
        .split(' ')
        .map(|w| {
            let hit = confusions.iter().find(|(from, _)| w.contains(from));
            match hit {
                Some((from, to)) => {
                    n += 1;
                    if n % 8 == 0 {
                        return w.replacen(from, to, 1);
                    }
                    w.to_owned()
                }
                None => w.to_owned(),
            }
        })
        .collect();
    words.join(" ")
}

/// A scan of Mansfield Park's first chapter (its words about 94 % clean),
/// older and first by name, beside the clean e-text: the clean text is
/// kept.
#[test]
fn the_clean_text_is_kept_over_its_older_scan() {
    let clean = mansfield_chapter();
    let c = case(&[
        ("a-mansfield-scan.txt", ocr_noise(&clean).into_bytes()),
        ("b-mansfield-clean.txt", clean.into_bytes()),
    ]);
    assert_kept_everywhere(&c, "b-mansfield-clean.txt");
}

/// The Constitution without its preamble, older and first by name, beside
/// the whole: the complete text is kept.
#[test]
fn the_complete_text_is_kept_over_a_copy_missing_its_preamble() {
    let c = case(&[
        (
            "us-constitution-no-preamble.txt",
            sample("misc/us-constitution-no-preamble.txt"),
        ),
        ("us-constitution.txt", sample("misc/us-constitution.txt")),
    ]);
    assert_kept_everywhere(&c, "us-constitution.txt");
}

/// Alice's first chapters reordered (oldest, first by name), in their
/// order, and a scan of them: the original order, which the scan shares,
/// is kept.
#[test]
fn the_original_order_is_kept_over_reordered_chapters() {
    let c = case(&[
        (
            "alice-ch1-3-reordered.txt",
            sample("misc/alice-ch1-3-reordered.txt"),
        ),
        ("alice-ch1-3.txt", sample("misc/alice-ch1-3.txt")),
        ("alice-ch1-3-scan.txt", sample("scans/alice-ch1-3-scan.txt")),
    ]);
    assert_kept_everywhere(&c, "alice-ch1-3.txt");
}

/// Moby-Dick's first chapter in windows-1252 (older, first by name) and in
/// UTF-8: the same text, the UTF-8 e-text is kept.
#[test]
fn the_utf8_text_is_kept_over_its_windows_1252_copy() {
    let c = case(&[
        (
            "a-moby-dick-ch1-cp1252.txt",
            sample("moby/other-encodings/moby-dick-ch1-windows1252.txt"),
        ),
        ("b-moby-dick-ch1.txt", sample("moby/moby-dick-ch1.txt")),
    ]);
    assert_kept_everywhere(&c, "b-moby-dick-ch1.txt");
}

/// `text` heavily rewritten: two sentences in seven with their words in
/// reverse order (still every word English, 72 % of them where they
/// were), and a sentence of its own at the end.
fn rewrite(text: &str) -> String {
    let sentences: Vec<&str> = text.split_inclusive(". ").collect();
    let mut out = String::new();
    for (n, sentence) in sentences.iter().enumerate() {
        if n % 7 == 2 || n % 7 == 5 {
            let words: Vec<&str> = sentence.split_whitespace().rev().collect();
            out.push_str(&words.join(" "));
            out.push_str(". ");
        } else {
            out.push_str(sentence);
        }
    }
    out.push_str("\nThe rewriter added this closing sentence of his own making.\n");
    out
}

/// A heavy rewrite of Mansfield Park's first chapter (clean, longer,
/// oldest and first by name) beside the chapter twice: the text the
/// others share is kept, the older of the two.
#[test]
fn a_rewrite_is_never_kept_over_the_originals() {
    let original = mansfield_chapter();
    let c = case(&[
        ("a-mansfield-rewritten.txt", rewrite(&original).into_bytes()),
        ("b-mansfield.txt", original.clone().into_bytes()),
        ("c-mansfield-copy.txt", original.into_bytes()),
    ]);
    assert_kept_everywhere(&c, "b-mansfield.txt");
}

/// The curator's keeper mark still overrides the rule: the scan kept by
/// the curator is what `act` keeps.
#[test]
fn a_keeper_mark_overrides_the_rule() {
    let clean = mansfield_chapter();
    let c = case(&[
        ("a-mansfield-scan.txt", ocr_noise(&clean).into_bytes()),
        ("b-mansfield-clean.txt", clean.into_bytes()),
    ]);
    {
        let mut index = common::indexed(&c.folder, &c.index);
        index
            .set_keeper(&"a-mansfield-scan.txt".into(), true)
            .unwrap();
        let snapshot = common::snapshot_of(&index);
        let first = &snapshot.clusters[0].members[0].path;
        assert_eq!(first.to_string(), "a-mansfield-scan.txt");
    }
    let plan = common::stdout_of(
        common::doppel()
            .arg("act")
            .arg(&c.folder)
            .arg("--to")
            .arg(c.dir.path().join("quarantine"))
            .arg("--index")
            .arg(&c.index)
            .arg("--dry-run"),
    );
    let plan = String::from_utf8(plan).unwrap();
    assert!(
        plan.contains("cluster 1: keep a-mansfield-scan.txt"),
        "{plan}"
    );
}
