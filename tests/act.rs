//! Acting on decisions (`runtime::act`): the plan marks the members of a
//! cluster that duplicate the kept one (not parts of a whole linked through
//! it) and names files changed since they were read;
//! quarantine moves only those, journalled, writing nothing else in the
//! folder; undo puts every byte and mtime back and never overwrites a file
//! that reappeared; the manifest's rows say what is kept and why.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use doppel::doc::{CuratorVerdict, DocPath};
use doppel::engine::{Engine, EngineConfig};
use doppel::pairing::cluster::ClusterSpec;
use doppel::pairing::library::LibraryConfig;
use doppel::runtime::act::{self, ActError, Decisions, Filter, MarkState};
use doppel::runtime::index::FolderIndex;

mod common;

/// A folder of two clusters (Emma ×3, one of them under a name that is
/// not UTF-8; Persuasion ×2) and a lone text, indexed, with its index
/// and a quarantine path outside it.
struct Setup {
    _dir: tempfile::TempDir,
    folder: PathBuf,
    index: PathBuf,
    quarantine: PathBuf,
}

const NOT_UTF8: &[u8] = b"copies/emma-\xff.txt";

fn sample(name: &str) -> Vec<u8> {
    fs::read(common::sample_corpus().join(name)).unwrap()
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("books");
    let emma = sample("austen/emma-ch1.txt");
    let persuasion = sample("austen/persuasion-ch1.txt");
    let mut edited = emma.clone();
    edited.extend_from_slice(b"\nA line the copyist added.\n");
    let files: Vec<(&[u8], Vec<u8>)> = vec![
        (b"emma.txt", emma.clone()),
        (b"copies/emma-copy.txt", emma),
        (NOT_UTF8, edited),
        (b"persuasion.txt", persuasion.clone()),
        (b"dups/persuasion.txt", persuasion),
        (b"lonely.txt", sample("austen/sense-sensibility-ch1.txt")),
    ];
    for (n, (name, bytes)) in files.into_iter().enumerate() {
        let path = folder.join(OsStr::from_bytes(name));
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, bytes).unwrap();
        // An mtime far from now, different per file, to see it kept.
        let when = UNIX_EPOCH + Duration::new(1_000_000_000 + n as u64 * 86_400, 123_456_789);
        fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(when)
            .unwrap();
    }
    let index = dir.path().join("state").join("index.sqlite");
    let quarantine = dir.path().join("quarantine");
    let s = Setup {
        _dir: dir,
        folder,
        index,
        quarantine,
    };
    open_index(&s).reconcile().unwrap();
    s
}

fn open_index(s: &Setup) -> FolderIndex {
    let engine = Engine::new(EngineConfig::default());
    FolderIndex::open(&s.folder, engine, LibraryConfig::default(), Some(&s.index))
        .unwrap()
        .0
}

fn decisions(s: &Setup) -> Decisions {
    let engine = Engine::new(EngineConfig::default());
    let spec = ClusterSpec::from_engine(&engine);
    act::open_decisions(
        &s.folder,
        engine,
        LibraryConfig::default(),
        spec,
        Some(&s.index.clone().into()),
        "tester",
    )
    .unwrap()
}

fn doc(name: &[u8]) -> DocPath {
    DocPath::from_bytes(name)
}

/// Every file under `folder` (relative path → bytes and mtime) and every
/// folder (bytes empty, mtime none).
fn tree(folder: &Path) -> BTreeMap<PathBuf, (Vec<u8>, Option<SystemTime>)> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, (Vec<u8>, Option<SystemTime>)>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let relative = path.strip_prefix(root).unwrap().to_path_buf();
            if path.is_dir() {
                out.insert(relative, (Vec::new(), None));
                walk(root, &path, out);
            } else {
                let mtime = fs::metadata(&path).unwrap().modified().unwrap();
                out.insert(relative, (fs::read(&path).unwrap(), Some(mtime)));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(folder, folder, &mut out);
    out
}

#[test]
fn the_plan_marks_every_member_but_the_kept_one_and_counts_them() {
    let s = setup();
    let plan = act::plan(&decisions(&s), &s.folder, &Filter::default());
    assert_eq!(plan.clusters.len(), 2, "{plan:#?}");
    let size = |name: &[u8]| {
        fs::metadata(s.folder.join(OsStr::from_bytes(name)))
            .unwrap()
            .len()
    };
    let marked: Vec<&DocPath> = plan.ready().map(|m| &m.path).collect();
    assert_eq!(
        marked.len(),
        3,
        "two of Emma's three, one of Persuasion's two"
    );
    assert_eq!(plan.summary.files, 3);
    assert_eq!(plan.summary.clusters, 2);
    assert_eq!(plan.summary.held_back, 0);
    let bytes: u64 = marked.iter().map(|p| size(p.as_bytes())).sum();
    assert_eq!(plan.summary.bytes, bytes);
    for c in &plan.clusters {
        assert_eq!(c.kept.len(), 1);
        assert!(c.marked.iter().all(|m| m.duplicate_of == c.kept[0]));
    }
    assert!(!marked.contains(&&doc(b"lonely.txt")));

    // The curator's keeper is kept, whatever the representative was.
    let mut index = open_index(&s);
    index.set_keeper(&doc(NOT_UTF8), true).unwrap();
    drop(index);
    let plan = act::plan(&decisions(&s), &s.folder, &Filter::default());
    let emma = plan
        .clusters
        .iter()
        .find(|c| c.kept == vec![doc(NOT_UTF8)])
        .expect("the keeper is kept");
    let mut moved: Vec<DocPath> = emma.marked.iter().map(|m| m.path.clone()).collect();
    moved.sort();
    assert_eq!(moved, vec![doc(b"copies/emma-copy.txt"), doc(b"emma.txt")]);

    // Filters: a path prefix, a cluster id.
    let under = Filter {
        under: Some(doc(b"dups/")),
        ..Filter::default()
    };
    let plan = act::plan(&decisions(&s), &s.folder, &under);
    assert_eq!(plan.clusters.len(), 1);
    assert_eq!(plan.summary.files, 1);
    assert_eq!(plan.summary.bytes, size(b"persuasion.txt"));
    let id = plan.clusters[0].id;
    let by_id = Filter {
        clusters: vec![id],
        ..Filter::default()
    };
    assert_eq!(act::plan(&decisions(&s), &s.folder, &by_id), plan);
}

#[test]
fn quarantine_then_undo_restores_every_byte_and_mtime() {
    let s = setup();
    let before = tree(&s.folder);
    let plan = act::plan(&decisions(&s), &s.folder, &Filter::default());
    let outcome = act::quarantine(&plan, &s.folder, &s.quarantine).unwrap();
    assert!(outcome.problems.is_empty(), "{:?}", outcome.problems);
    assert_eq!(outcome.moved.len(), 3);
    for moved in &outcome.moved {
        let relative = moved.path.to_relative_path();
        assert!(
            !s.folder.join(&relative).exists(),
            "{} left the folder",
            moved.path
        );
        let held = s.quarantine.join(&relative);
        assert_eq!(
            (
                fs::read(&held).unwrap(),
                Some(fs::metadata(&held).unwrap().modified().unwrap())
            ),
            before[&relative],
            "{} is in the quarantine under its relative path, bytes and mtime kept",
            moved.path
        );
    }
    let report = act::undo(&outcome.journal).unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    assert_eq!(report.restored.len(), 3);
    assert_eq!(tree(&s.folder), before, "every byte and mtime back");
    // The name that is not UTF-8 came back as its own bytes.
    assert!(s.folder.join(OsStr::from_bytes(NOT_UTF8)).is_file());
    // The journal is closed: undoing the quarantine again finds nothing.
    assert!(act::undo_all(&s.quarantine).unwrap().is_empty());
}

#[test]
fn quarantine_writes_nothing_in_the_folder_but_the_removals() {
    let s = setup();
    let before = tree(&s.folder);
    let plan = act::plan(&decisions(&s), &s.folder, &Filter::default());
    let outcome = act::quarantine(&plan, &s.folder, &s.quarantine).unwrap();
    let mut expected = before.clone();
    for moved in &outcome.moved {
        expected.remove(&moved.path.to_relative_path()).unwrap();
    }
    assert_eq!(
        tree(&s.folder),
        expected,
        "no file added or changed, folders kept"
    );
}

#[test]
fn a_quarantine_inside_the_folder_is_refused() {
    let s = setup();
    let plan = act::plan(&decisions(&s), &s.folder, &Filter::default());
    let before = tree(&s.folder);
    let inside = s.folder.join("dups").join("quarantine");
    let err = act::quarantine(&plan, &s.folder, &inside).unwrap_err();
    assert!(matches!(err, ActError::InsideFolder { .. }), "{err}");
    assert!(err.to_string().contains("never writes there"), "{err}");
    assert_eq!(tree(&s.folder), before);
}

#[test]
fn a_file_changed_since_it_was_read_is_named_and_not_moved() {
    let s = setup();
    // Same size and mtime, other bytes: only the hash tells.
    let sneaky = s.folder.join("dups/persuasion.txt");
    let mtime = fs::metadata(&sneaky).unwrap().modified().unwrap();
    let mut bytes = fs::read(&sneaky).unwrap();
    bytes[10] ^= 0x20;
    fs::write(&sneaky, &bytes).unwrap();
    fs::File::options()
        .write(true)
        .open(&sneaky)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    // Grown: the size tells.
    let grown = s.folder.join("copies/emma-copy.txt");
    fs::OpenOptions::new()
        .append(true)
        .open(&grown)
        .unwrap()
        .write_all_at_end(b"more");
    let mut index = open_index(&s);
    // Both become marked whatever the representative: keep the others.
    index.set_keeper(&doc(b"persuasion.txt"), true).unwrap();
    index.set_keeper(&doc(b"emma.txt"), true).unwrap();
    drop(index);
    let plan = act::plan(&decisions(&s), &s.folder, &Filter::default());
    let held: BTreeMap<String, MarkState> = plan
        .held_back()
        .map(|m| (m.path.to_string(), m.state.clone()))
        .collect();
    assert!(
        matches!(&held["dups/persuasion.txt"], MarkState::Changed(why) if why.contains("content")),
        "{held:?}"
    );
    assert!(
        matches!(&held["copies/emma-copy.txt"], MarkState::Changed(why) if why.contains("size")),
        "{held:?}"
    );
    assert_eq!(plan.summary.held_back, 2);
    assert_eq!(plan.summary.files, 1, "only the unchanged copy moves");
    let outcome = act::quarantine(&plan, &s.folder, &s.quarantine).unwrap();
    assert_eq!(outcome.moved.len(), 1);
    assert_eq!(
        fs::read(&sneaky).unwrap(),
        bytes,
        "the changed file stays as it is"
    );
    assert!(grown.is_file());
}

trait AppendAll {
    fn write_all_at_end(self, bytes: &[u8]);
}

impl AppendAll for fs::File {
    fn write_all_at_end(mut self, bytes: &[u8]) {
        std::io::Write::write_all(&mut self, bytes).unwrap();
    }
}

#[test]
fn undo_never_overwrites_a_file_that_reappeared() {
    let s = setup();
    let plan = act::plan(&decisions(&s), &s.folder, &Filter::default());
    let outcome = act::quarantine(&plan, &s.folder, &s.quarantine).unwrap();
    let back = &outcome.moved[0].path;
    let original = s.folder.join(back.to_relative_path());
    fs::write(&original, b"a new file of the same name").unwrap();
    let report = act::undo(&outcome.journal).unwrap();
    assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
    assert!(
        report.problems[0].contains("reappeared"),
        "{:?}",
        report.problems
    );
    assert!(
        report.problems[0].contains(&back.to_string()),
        "names the file"
    );
    assert_eq!(fs::read(&original).unwrap(), b"a new file of the same name");
    assert!(
        s.quarantine.join(back.to_relative_path()).is_file(),
        "the quarantined copy stays"
    );
    assert_eq!(report.restored.len(), 2, "the others came back");
    // Once the newcomer is gone, undoing again brings the last one back.
    fs::remove_file(&original).unwrap();
    let again = act::undo_all(&s.quarantine).unwrap();
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].restored, vec![back.clone()]);
    assert_eq!(again[0].already_back, 2);
    assert!(original.is_file());
}

#[test]
fn the_manifest_says_what_is_kept_and_touches_nothing() {
    let s = setup();
    let mut index = open_index(&s);
    index.set_keeper(&doc(b"emma.txt"), true).unwrap();
    index
        .set_pair_verdict(
            &doc(b"emma.txt"),
            &doc(NOT_UTF8),
            Some(CuratorVerdict::Duplicate),
        )
        .unwrap();
    drop(index);
    let before = tree(&s.folder);
    let d = decisions(&s);
    let rows = act::manifest_rows(&d.report, &Filter::default());
    assert_eq!(rows.len(), 5, "every member of both clusters");
    assert_eq!(rows.iter().filter(|r| r.kept).count(), 2);
    let edited = rows.iter().find(|r| r.path == doc(NOT_UTF8)).unwrap();
    assert!(!edited.kept);
    assert_eq!(edited.duplicate_of, Some(doc(b"emma.txt")));
    assert_eq!(edited.verdict, Some("duplicate"));
    assert_eq!((edited.relation, edited.whole), (Some("duplicate"), None));
    assert!(!edited.scores.is_empty(), "scores against the kept one");
    let emma = rows.iter().find(|r| r.path == doc(b"emma.txt")).unwrap();
    assert!(emma.kept && emma.keeper_mark && emma.duplicate_of.is_none());

    let csv_text = act::manifest_csv(&rows).unwrap();
    let mut reader = csv::Reader::from_reader(csv_text.as_bytes());
    let header = reader.headers().unwrap().clone();
    assert_eq!(
        &header.iter().take(6).collect::<Vec<_>>(),
        &[
            "cluster",
            "path",
            "kept",
            "keeper_mark",
            "duplicate_of",
            "verdict"
        ]
    );
    let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(records.len(), 5);
    let edited_row = records
        .iter()
        .find(|r| &r[1] == "copies/emma-\\xff.txt")
        .unwrap();
    assert_eq!(
        (
            &edited_row[2],
            &edited_row[4],
            &edited_row[5],
            &edited_row[6]
        ),
        ("false", "emma.txt", "duplicate", "duplicate")
    );
    assert_eq!(&header[6], "relation");
    assert_eq!(&header[7], "whole");

    let json: serde_json::Value = serde_json::from_str(&act::manifest_json(&rows)).unwrap();
    assert_eq!(json["rows"].as_array().unwrap().len(), 5);
    assert_eq!(tree(&s.folder), before, "the manifest moves nothing");
}

/// `doppel ARGS…` on the setup (the index given), its status, stdout and stderr.
fn run(s: &Setup, args: &[&OsStr]) -> (bool, String, String) {
    let out = common::doppel()
        .args(args)
        .arg("--index")
        .arg(&s.index)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn os(s: &str) -> &OsStr {
    OsStr::new(s)
}

#[test]
fn the_command_moves_only_when_confirmed_and_undo_puts_everything_back() {
    let s = setup();
    let before = tree(&s.folder);
    let (folder, quarantine) = (s.folder.as_os_str(), s.quarantine.as_os_str());
    let (ok, plan, _) = run(
        &s,
        &[os("act"), folder, os("--to"), quarantine, os("--dry-run")],
    );
    assert!(ok);
    assert_eq!(plan.matches("  move ").count(), 3, "{plan}");
    assert!(
        plan.contains("3 files") && plan.contains("of 2 clusters"),
        "{plan}"
    );
    assert!(
        plan.contains("emma-\\xff.txt"),
        "the name shown escaped: {plan}"
    );
    assert_eq!(tree(&s.folder), before, "--dry-run moves nothing");
    assert!(!s.quarantine.exists());

    let (ok, _, err) = run(&s, &[os("act"), folder, os("--to"), quarantine]);
    assert!(!ok, "no terminal, no --yes: refused");
    assert!(err.contains("--yes"), "{err}");
    assert_eq!(tree(&s.folder), before);

    let (ok, out, err) = run(
        &s,
        &[os("act"), folder, os("--to"), quarantine, os("--yes")],
    );
    assert!(ok, "{err}");
    assert!(
        out.contains("moved 3 files") && out.contains("doppel undo"),
        "{out}"
    );
    assert_eq!(tree(&s.folder).len(), before.len() - 3);

    let out = common::stdout_of(common::doppel().arg("undo").arg("--to").arg(&s.quarantine));
    assert!(String::from_utf8_lossy(&out).contains("put back 3 files"));
    assert_eq!(tree(&s.folder), before);
}

#[test]
fn the_commands_refuse_to_write_inside_the_folder() {
    let s = setup();
    let before = tree(&s.folder);
    let inside = s.folder.join("quarantine");
    let (ok, _, err) = run(
        &s,
        &[
            os("act"),
            s.folder.as_os_str(),
            os("--to"),
            inside.as_os_str(),
            os("--yes"),
        ],
    );
    assert!(!ok);
    assert!(err.contains("never writes there"), "{err}");
    let manifest = s.folder.join("manifest.csv");
    let (ok, _, err) = run(
        &s,
        &[
            os("manifest"),
            s.folder.as_os_str(),
            os("-o"),
            manifest.as_os_str(),
        ],
    );
    assert!(!ok);
    assert!(err.contains("never writes there"), "{err}");
    assert_eq!(tree(&s.folder), before);
}

#[test]
fn the_manifest_command_writes_a_row_per_member() {
    let s = setup();
    let out = s.quarantine.with_file_name("manifest.json");
    let (ok, _, err) = run(
        &s,
        &[
            os("manifest"),
            s.folder.as_os_str(),
            os("--format"),
            os("json"),
            os("--output"),
            out.as_os_str(),
        ],
    );
    assert!(ok, "{err}");
    let json: serde_json::Value = serde_json::from_slice(&fs::read(&out).unwrap()).unwrap();
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 5);
    assert_eq!(rows.iter().filter(|r| r["kept"] == true).count(), 2);
    let (ok, csv_text, _) = run(
        &s,
        &[
            os("manifest"),
            s.folder.as_os_str(),
            os("--cluster"),
            os("1"),
        ],
    );
    assert!(ok);
    let first = rows.iter().filter(|r| r["cluster"] == 1).count();
    assert_eq!(
        csv_text.lines().count(),
        1 + first,
        "header and cluster 1's members: {csv_text}"
    );
}

#[test]
fn the_config_names_the_quarantine_when_no_to_is_given() {
    let s = setup();
    let config = s.quarantine.with_file_name("config.toml");
    // A relative path is taken from the config file's folder.
    fs::write(&config, "quarantine-dir = \"held\"\n").unwrap();
    let (ok, out, err) = run(
        &s,
        &[
            os("act"),
            s.folder.as_os_str(),
            os("--config"),
            config.as_os_str(),
            os("--yes"),
        ],
    );
    assert!(ok, "{err}");
    assert!(out.contains("moved 3 files"), "{out}");
    let held = s.quarantine.with_file_name("held");
    assert!(held.join("dups/persuasion.txt").is_file() || held.join("persuasion.txt").is_file());
    // Without --to or the key, nothing happens and the message says why.
    let (ok, _, err) = run(&s, &[os("act"), s.folder.as_os_str(), os("--yes")]);
    assert!(!ok);
    assert!(err.contains("--to QUARANTINE"), "{err}");
}

#[test]
fn undo_finds_a_quarantine_moved_as_a_whole() {
    let s = setup();
    let before = tree(&s.folder);
    let plan = act::plan(&decisions(&s), &s.folder, &Filter::default());
    act::quarantine(&plan, &s.folder, &s.quarantine).unwrap();
    let elsewhere = s.quarantine.with_file_name("moved-quarantine");
    fs::rename(&s.quarantine, &elsewhere).unwrap();
    let reports = act::undo_all(&elsewhere).unwrap();
    assert_eq!(reports.len(), 1);
    assert!(reports[0].problems.is_empty(), "{:?}", reports[0].problems);
    assert_eq!(tree(&s.folder), before);
}

#[test]
fn a_front_end_plans_its_own_clusters_and_a_file_the_index_never_read_stays() {
    let s = setup();
    let d = decisions(&s);
    let cluster = act::ClusterDecision::new(
        7,
        vec![doc(b"lonely.txt"), doc(b"persuasion.txt"), doc(b"emma.txt")],
        |p| p == &doc(b"emma.txt"),
    );
    assert_eq!(
        cluster.kept,
        vec![doc(b"emma.txt")],
        "the keeper, not the first"
    );
    let plan = act::plan_for(
        &[cluster],
        |p| (p != &doc(b"lonely.txt")).then(|| d.recorded[p]),
        &s.folder,
    );
    assert_eq!(plan.summary.files, 1);
    let held: Vec<(String, MarkState)> = plan
        .held_back()
        .map(|m| (m.path.to_string(), m.state.clone()))
        .collect();
    assert_eq!(
        held,
        vec![(
            "lonely.txt".into(),
            MarkState::Changed("not in the index".into())
        )]
    );
}

/// A book and its two halves form one cluster, the book representing, but
/// the halves are not duplicates of each other, the book is not a
/// duplicate of a half, nor a half of the book: with the book kept, or the
/// first half, nothing moves, and the plan and the manifest say why each
/// stays.
#[test]
fn parts_of_a_whole_are_not_moved_as_duplicates_of_each_other() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("bible");
    fs::create_dir_all(&folder).unwrap();
    for name in [
        "proverbs-kjv-ch01-16.txt",
        "proverbs-kjv-ch01-31.txt",
        "proverbs-kjv-ch17-31.txt",
    ] {
        fs::write(folder.join(name), sample(&format!("bible/{name}"))).unwrap();
    }
    let s = Setup {
        folder,
        index: dir.path().join("index.sqlite"),
        quarantine: dir.path().join("quarantine"),
        _dir: dir,
    };
    open_index(&s).reconcile().unwrap();
    let d = decisions(&s);
    assert_eq!(
        d.report.cluster_paths(),
        vec![vec![
            doc(b"proverbs-kjv-ch01-31.txt"),
            doc(b"proverbs-kjv-ch01-16.txt"),
            doc(b"proverbs-kjv-ch17-31.txt"),
        ]],
        "one cluster, the book representing its halves"
    );
    let why = |plan: &act::Plan, name: &[u8]| {
        plan.clusters[0]
            .stays
            .iter()
            .find(|(p, _)| *p == doc(name))
            .map(|(_, w)| w.clone())
            .unwrap_or_default()
    };
    // The book kept (it represents): each half is a part of it, not a
    // copy, and stays (marking the pair duplicate is the curator's to do).
    let plan = act::plan(&d, &s.folder, &Filter::default());
    assert_eq!(plan.summary.files, 0, "{plan:?}");
    let rows = act::manifest_rows(&d.report, &Filter::default());
    for half in [b"proverbs-kjv-ch01-16.txt", b"proverbs-kjv-ch17-31.txt"] {
        assert!(
            why(&plan, half).starts_with("a part of the kept file proverbs-kjv-ch01-31.txt"),
            "{plan:?}"
        );
        let row = rows.iter().find(|r| r.path == doc(half)).unwrap();
        assert_eq!((row.relation, row.whole), (Some("contains"), Some("kept")));
        assert_eq!(row.duplicate_of, None);
    }

    // The first half kept instead: the book holds it, the other half is
    // linked to it only through the book; nothing moves either.
    let mut index = open_index(&s);
    index
        .set_keeper(&doc(b"proverbs-kjv-ch01-16.txt"), true)
        .unwrap();
    drop(index);
    let d = decisions(&s);
    let plan = act::plan(&d, &s.folder, &Filter::default());
    assert_eq!(plan.summary.files, 0, "{plan:?}");
    assert!(
        why(&plan, b"proverbs-kjv-ch01-31.txt").starts_with("holds the kept file"),
        "{plan:?}"
    );
    assert!(
        why(&plan, b"proverbs-kjv-ch17-31.txt").starts_with("not itself a duplicate"),
        "{plan:?}"
    );
    let rows = act::manifest_rows(&d.report, &Filter::default());
    let whole = rows
        .iter()
        .find(|r| r.path == doc(b"proverbs-kjv-ch01-31.txt"))
        .unwrap();
    assert_eq!(whole.duplicate_of, None);
    assert_eq!(
        (whole.relation, whole.whole),
        (Some("contains"), Some("this"))
    );
    assert!(!s.quarantine.exists());
}
