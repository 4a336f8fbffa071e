//! The user's rulings on boilerplate, through the binary. The user's
//! boilerplate folder (`--boilerplate-dir`, `[boilerplate] user-dir`): a
//! licence carried by only two works is too rare to be learned and pairs
//! them; put in the user's folder, it is left out of every document, so the
//! two works no longer pair while a body still pairs with its own edited
//! copy under the same licence; the scan JSON lists the licence with
//! `source: "user"`. The index follows a change of the folder's content,
//! and a folder inside the scanned one is refused. The curator's "not
//! boilerplate" (`doppel boilerplate DIR --overrule N`, `--restore N`): a
//! learned licence overruled is compared again (its works pair), is listed
//! as overruled, stays overruled for a document arriving later, and
//! restored is left out again. The texts are cut from the books of
//! `tests/data/corpus/`.

use std::collections::BTreeSet;
use std::path::Path;

mod common;
use common::{doppel, stdout_of, test_corpus};

/// Words `range` of a corpus file, joined by spaces.
fn words(file: &str, range: std::ops::Range<usize>) -> String {
    let text = std::fs::read_to_string(test_corpus().join(file)).unwrap();
    text.split_whitespace()
        .skip(range.start)
        .take(range.len())
        .collect::<Vec<_>>()
        .join(" ")
}

fn licence() -> String {
    words("moby/moby_dick.txt", 5000..5700)
}

/// A 700-word licence around three works: `a` and `c` carry one body
/// (`c` with every 30th word changed), `b` another. The licence is in three
/// documents but beside two bodies only, so nothing is learned.
fn collection(folder: &Path, user: &Path) -> String {
    let licence = licence();
    let body_a = words("austen/emma.txt", 3000..3300);
    let body_b = words("austen/persuasion.txt", 3000..3300);
    let edited: Vec<&str> = body_a
        .split(' ')
        .enumerate()
        .map(|(i, w)| if i % 30 == 0 { "changed" } else { w })
        .collect();
    std::fs::create_dir_all(folder).unwrap();
    std::fs::create_dir_all(user).unwrap();
    for (name, body) in [
        ("a.txt", &body_a),
        ("b.txt", &body_b),
        ("c.txt", &edited.join(" ")),
    ] {
        std::fs::write(folder.join(name), format!("{licence}\n\n{body}\n")).unwrap();
    }
    std::fs::write(user.join("licence.txt"), format!("{licence}\n")).unwrap();
    licence
}

/// The scan JSON's fusion pairs and its boilerplate list's sources.
fn scanned(args: &[&str]) -> (BTreeSet<(String, String)>, Vec<String>) {
    let out = stdout_of(doppel().args(["scan", "--format", "json"]).args(args));
    let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
    (fused_pairs(&json), sources(&json["boilerplate"]))
}

/// Each passage of a boilerplate list by its source.
fn sources(list: &serde_json::Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|p| p["source"].as_str().unwrap().to_owned())
        .collect()
}

/// A scan JSON's fusion pairs.
fn fused_pairs(json: &serde_json::Value) -> BTreeSet<(String, String)> {
    let pairs: BTreeSet<(String, String)> = json["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| {
            p["duplicate_by"]
                .as_array()
                .unwrap()
                .iter()
                .any(|v| v == "fusion")
        })
        .map(|p| {
            (
                p["a"].as_str().unwrap().to_owned(),
                p["b"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    pairs
}

fn pair(a: &str, b: &str) -> (String, String) {
    (a.to_owned(), b.to_owned())
}

#[test]
fn a_licence_in_the_user_folder_stops_pairing_two_works_but_not_a_body_and_its_copy() {
    let tmp = tempfile::tempdir().unwrap();
    let (folder, user) = (tmp.path().join("books"), tmp.path().join("mine"));
    collection(&folder, &user);
    let dir = folder.to_str().unwrap();
    let user_dir = user.to_str().unwrap();

    // Today: the licence is not learned, and pairs the two works.
    let (pairs, sources) = scanned(&[dir, "--no-index"]);
    assert!(pairs.contains(&pair("a.txt", "b.txt")), "{pairs:?}");
    assert!(sources.is_empty(), "{sources:?}");

    // In the user's folder, one-shot: only the body and its copy pair.
    let (pairs, sources) = scanned(&[dir, "--no-index", "--boilerplate-dir", user_dir]);
    assert_eq!(pairs, BTreeSet::from([pair("a.txt", "c.txt")]));
    assert_eq!(sources, ["user"]);

    // Through the index: the same, and a change of the folder's content
    // (the licence taken out) is followed at the next open.
    let index = tmp.path().join("state/index.sqlite");
    let index = index.to_str().unwrap();
    let (pairs, _) = scanned(&[dir, "--index", index]);
    assert!(pairs.contains(&pair("a.txt", "b.txt")), "{pairs:?}");
    let (pairs, sources) = scanned(&[dir, "--index", index, "--boilerplate-dir", user_dir]);
    assert_eq!(pairs, BTreeSet::from([pair("a.txt", "c.txt")]));
    assert_eq!(sources, ["user"]);
    std::fs::write(user.join("licence.txt"), "a notice of a few words only\n").unwrap();
    let (pairs, sources) = scanned(&[dir, "--index", index, "--boilerplate-dir", user_dir]);
    assert!(pairs.contains(&pair("a.txt", "b.txt")), "{pairs:?}");
    assert!(sources.is_empty(), "{sources:?}");
}

#[test]
fn a_user_folder_inside_the_scanned_folder_is_refused_with_a_clear_message() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("books");
    collection(&folder, &folder.join("mine"));
    for extra in [
        &["--no-index"][..],
        &["--index", "/nonexistent/never-written.sqlite"][..],
    ] {
        let out = doppel()
            .args(["scan", folder.to_str().unwrap(), "--boilerplate-dir"])
            .arg(folder.join("mine"))
            .args(extra)
            .output()
            .unwrap();
        assert!(!out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("is inside the folder scanned"), "{stderr}");
    }
}

/// `doppel boilerplate DIR --index INDEX [ruling]` as JSON: each passage's
/// `overruled` mark.
fn listed(dir: &str, index: &str, ruling: &[&str]) -> Vec<bool> {
    let out = stdout_of(
        doppel()
            .args(["boilerplate", dir, "--format", "json", "--index", index])
            .args(ruling),
    );
    let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert!(sources(&json).iter().all(|s| s == "learned"), "{json}");
    json.as_array()
        .unwrap()
        .iter()
        .map(|p| p["overruled"].as_bool().unwrap())
        .collect()
}

#[test]
fn an_overruled_licence_is_compared_again_until_restored_and_the_ruling_is_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("books");
    // A third work under the licence: three bodies, so it is learned.
    collection(&folder, &tmp.path().join("unused"));
    let third = words("austen/mansfieldpark.txt", 3000..3300);
    std::fs::write(folder.join("d.txt"), format!("{}\n\n{third}\n", licence())).unwrap();
    let dir = folder.to_str().unwrap();
    let index = tmp.path().join("state/index.sqlite");
    let index = index.to_str().unwrap();
    let scan = || scanned(&[dir, "--index", index]).0;

    assert_eq!(listed(dir, index, &[]), [false]);
    assert_eq!(scan(), BTreeSet::from([pair("a.txt", "c.txt")]));

    // Not boilerplate: the licence is compared again, every work pairs.
    assert_eq!(listed(dir, index, &["--overrule", "1"]), [true]);
    let pairs = scan();
    for other in ["b.txt", "c.txt", "d.txt"] {
        assert!(pairs.contains(&pair("a.txt", other)), "{pairs:?}");
    }
    // Reopened, with a fourth work arriving under the licence: still not
    // boilerplate for it either.
    let fourth = words("austen/northangerabbey.txt", 3000..3300);
    std::fs::write(folder.join("e.txt"), format!("{}\n\n{fourth}\n", licence())).unwrap();
    assert!(scan().contains(&pair("a.txt", "e.txt")));
    assert_eq!(listed(dir, index, &[]), [true]);

    // Restored: left out again, for the late arrival too.
    assert_eq!(listed(dir, index, &["--restore", "1"]), [false]);
    assert_eq!(scan(), BTreeSet::from([pair("a.txt", "c.txt")]));
}

#[test]
fn a_ruling_on_a_passage_that_is_not_there_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("books");
    collection(&folder, &tmp.path().join("unused"));
    let out = doppel()
        .args([
            "boilerplate",
            folder.to_str().unwrap(),
            "--overrule",
            "3",
            "--index",
        ])
        .arg(tmp.path().join("index.sqlite"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("there is no passage 3"), "{stderr}");
}

#[test]
fn a_ruling_says_the_number_the_passage_is_listed_under_now_and_that_number_undoes_it() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("books");
    std::fs::create_dir_all(&folder).unwrap();
    // Two licences, each learned: the first beside four works, the second
    // beside three, so the list shows the first as passage 1.
    let second = words("moby/moby_dick.txt", 20000..20700);
    let works = [
        ("a.txt", licence(), words("austen/emma.txt", 3000..3300)),
        (
            "b.txt",
            licence(),
            words("austen/persuasion.txt", 3000..3300),
        ),
        (
            "c.txt",
            licence(),
            words("austen/mansfieldpark.txt", 3000..3300),
        ),
        (
            "d.txt",
            licence(),
            words("austen/northangerabbey.txt", 3000..3300),
        ),
        (
            "e.txt",
            second.clone(),
            words("austen/emma.txt", 9000..9300),
        ),
        (
            "f.txt",
            second.clone(),
            words("austen/persuasion.txt", 9000..9300),
        ),
        (
            "g.txt",
            second,
            words("austen/mansfieldpark.txt", 9000..9300),
        ),
    ];
    for (name, notice, body) in &works {
        std::fs::write(folder.join(name), format!("{notice}\n\n{body}\n")).unwrap();
    }
    let dir = folder.to_str().unwrap();
    let index = tmp.path().join("state/index.sqlite");
    let index = index.to_str().unwrap();
    let documents = |ruling: &[&str]| -> Vec<(u64, bool)> {
        let out = stdout_of(
            doppel()
                .args(["boilerplate", dir, "--format", "json", "--index", index])
                .args(ruling),
        );
        let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
        json.as_array()
            .unwrap()
            .iter()
            .map(|p| {
                let documents = p["documents"].as_u64().unwrap();
                (documents, p["overruled"].as_bool().unwrap())
            })
            .collect()
    };
    assert_eq!(documents(&[]), [(4, false), (3, false)]);

    let out = doppel()
        .args(["boilerplate", dir, "--index", index, "--overrule", "1"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "passage 1 overruled: not boilerplate (now passage 2: `--restore 2` undoes it)"
        ),
        "{stderr}"
    );
    assert_eq!(documents(&[]), [(3, false), (4, true)]);

    // The number it gave undoes it.
    assert_eq!(documents(&["--restore", "2"]), [(4, false), (3, false)]);
}
