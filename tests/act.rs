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

use doppel_core::doc::{CuratorVerdict, DocPath};
use doppel_core::engine::{Engine, EngineConfig};
use doppel_index::act;
use doppel_index::act::{ActError, Decisions, Filter, MarkState};
use doppel_index::index::FolderIndex;
use doppel_pairing::cluster::ClusterSpec;
use doppel_pairing::library::LibraryConfig;

mod common;

/// A folder of two clusters (Emma ×3, one of them under a name that is
/// not UTF-8; Persuasion ×2) and a lone text, indexed, with its index
/// and a quarantine path outside it.
struct Setup {
    _dir: tempfile::TempDir,
    folder: PathBuf,
    index: PathBuf,
    quarantine: PathBuf,
    /// The binary's data folder (`XDG_DATA_HOME`): doppel's record of its
    /// acts.
    data: PathBuf,
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
    let data = dir.path().join("data");
    let s = Setup {
        _dir: dir,
        folder,
        index,
        quarantine,
        data,
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

/// Back into the setup's folder, named.
fn into(s: &Setup) -> act::UndoInto<'_> {
    act::UndoInto::Folder(&s.folder)
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
    let outcome = act::quarantine(&plan, &s.folder, &s.quarantine, None).unwrap();
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
    let report = act::undo(&outcome.journal, into(&s)).unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    assert_eq!(report.restored.len(), 3);
    assert_eq!(tree(&s.folder), before, "every byte and mtime back");
    // The name that is not UTF-8 came back as its own bytes.
    assert!(s.folder.join(OsStr::from_bytes(NOT_UTF8)).is_file());
    // The journal is closed: undoing the quarantine again finds nothing.
    assert!(act::undo_all(&s.quarantine, into(&s)).unwrap().is_empty());
    // And the quarantine holds the journal alone: no tree of the folders
    // the moved files lived in, emptied.
    let left: Vec<String> = fs::read_dir(&s.quarantine)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left.len(), 1, "only the journal is left: {left:?}");
    assert!(s.quarantine.join(&left[0]).is_file(), "{left:?}");
}

#[test]
fn quarantine_writes_nothing_in_the_folder_but_the_removals() {
    let s = setup();
    let before = tree(&s.folder);
    let plan = act::plan(&decisions(&s), &s.folder, &Filter::default());
    let outcome = act::quarantine(&plan, &s.folder, &s.quarantine, None).unwrap();
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
    let err = act::quarantine(&plan, &s.folder, &inside, None).unwrap_err();
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
    let outcome = act::quarantine(&plan, &s.folder, &s.quarantine, None).unwrap();
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
    let outcome = act::quarantine(&plan, &s.folder, &s.quarantine, None).unwrap();
    let back = &outcome.moved[0].path;
    let original = s.folder.join(back.to_relative_path());
    fs::write(&original, b"a new file of the same name").unwrap();
    let report = act::undo(&outcome.journal, into(&s)).unwrap();
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
    let again = act::undo_all(&s.quarantine, into(&s)).unwrap();
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

    let json: serde_json::Value =
        serde_json::from_str(&act::manifest_json(&rows).unwrap()).unwrap();
    assert_eq!(json["rows"].as_array().unwrap().len(), 5);
    assert_eq!(tree(&s.folder), before, "the manifest moves nothing");
}

/// `doppel ARGS…` on the setup (the index given), its status, stdout and stderr.
fn run(s: &Setup, args: &[&OsStr]) -> (bool, String, String) {
    let out = common::doppel()
        .env("XDG_DATA_HOME", &s.data)
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

    let out = common::stdout_of(
        common::doppel()
            .env("XDG_DATA_HOME", &s.data)
            .arg("undo")
            .arg("--to")
            .arg(&s.quarantine),
    );
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
    // A one-off command reads the folder, it watches nothing: the refusal
    // says "the folder of books", not "the watched folder".
    assert!(err.contains("the folder of books"), "{err}");
    assert!(!err.contains("watched"), "{err}");
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
    // doppel's record of the act still vouches for the moved journal.
    let records = act::ActRecords::at(s.data.join("acts.jsonl"));
    act::quarantine(&plan, &s.folder, &s.quarantine, Some(&records)).unwrap();
    let elsewhere = s.quarantine.with_file_name("moved-quarantine");
    fs::rename(&s.quarantine, &elsewhere).unwrap();
    let reports = act::undo_all(&elsewhere, act::UndoInto::Recorded(Some(&records))).unwrap();
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
        data: dir.path().join("data"),
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

/// `doppel act FOLDER --to QUARANTINE --yes` on the setup: the journal.
fn act_cli(s: &Setup, quarantine: &Path) -> PathBuf {
    let (ok, out, err) = run(
        s,
        &[
            os("act"),
            s.folder.as_os_str(),
            os("--to"),
            quarantine.as_os_str(),
            os("--yes"),
        ],
    );
    assert!(ok, "{err}");
    let line = out
        .lines()
        .find_map(|l| l.strip_prefix("journal: "))
        .unwrap();
    PathBuf::from(line)
}

/// `doppel undo ARGS…` with `data` as the data folder: its exit status,
/// stdout and stderr.
fn undo_cli(data: &Path, args: &[&OsStr]) -> (Option<i32>, String, String) {
    let out = common::doppel()
        .env("XDG_DATA_HOME", data)
        .arg("undo")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A journal's lines as JSON values.
fn journal_lines(journal: &Path) -> Vec<serde_json::Value> {
    fs::read_to_string(journal)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn write_journal(journal: &Path, lines: &[serde_json::Value]) {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    fs::write(journal, text).unwrap();
}

/// A journal's `move` line for a file of `bytes` at the path `doc`.
fn move_line(doc: &[u8], bytes: &[u8]) -> serde_json::Value {
    serde_json::json!({
        "op": "move",
        "doc_hex": hex::encode(doc),
        "doc": String::from_utf8_lossy(doc),
        "size": bytes.len(),
        "mtime_ns": 1_000_000_000_000_000_000_i64,
        "hash": format!("{:016x}", doppel_store::content_hash(bytes)),
    })
}

/// Every file under `folder` whose name ends in `.doppel-partial`.
fn partials(folder: &Path) -> Vec<PathBuf> {
    tree(folder)
        .into_keys()
        .filter(|p| p.to_string_lossy().ends_with(".doppel-partial"))
        .collect()
}

#[test]
fn a_tampered_journal_puts_nothing_outside_its_folder_and_names_each_refusal() {
    let s = setup();
    let before = tree(&s.folder);
    let top = s.folder.parent().unwrap().to_path_buf();
    // A level deeper than the folder, so that `..` leads elsewhere from each.
    let quarantine = s.quarantine.join("deep");
    let journal = act_cli(&s, &quarantine);
    let mut lines = journal_lines(&journal);
    let moves: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i]["op"] == "move")
        .collect();
    assert_eq!(moves.len(), 3);
    // One hash that is not the file's (a name shown as it is).
    let changed = moves
        .into_iter()
        .find(|&i| !lines[i]["doc"].as_str().unwrap().contains('\\'))
        .unwrap();
    let mismatched = lines[changed]["doc"].as_str().unwrap().to_owned();
    lines[changed]["hash"] = "0123456789abcdef".into();
    // A path up and out of the folder, its file where it leads from the
    // quarantine.
    fs::write(s.quarantine.join("escaped.txt"), b"escaped\n").unwrap();
    lines.push(move_line(b"../escaped.txt", b"escaped\n"));
    // An absolute path.
    let absolute = top.join("absolute.txt");
    lines.push(move_line(absolute.as_os_str().as_bytes(), b"absolute\n"));
    write_journal(&journal, &lines);
    // A second journal for someone else's folder (their `~/.config`).
    let victim = top.join("victim");
    fs::create_dir(&victim).unwrap();
    let evil = b"#!/bin/sh\necho owned\n";
    fs::write(quarantine.join("autostart.sh"), evil).unwrap();
    let forged = quarantine.join("doppel-journal-00000000000000000001.jsonl");
    let start = serde_json::json!({
        "op": "start",
        "version": 1,
        "root_hex": hex::encode(victim.as_os_str().as_bytes()),
        "quarantine_hex": hex::encode(quarantine.as_os_str().as_bytes()),
        "root": victim.display().to_string(),
        "at_ns": 1,
    });
    write_journal(&forged, &[start, move_line(b"autostart.sh", evil)]);

    let (code, out, err) = undo_cli(&s.data, &[os("--to"), quarantine.as_os_str()]);

    assert_eq!(fs::read_dir(&victim).unwrap().count(), 0, "{err}");
    assert!(!top.join("escaped.txt").exists(), "{err}");
    assert!(!absolute.exists(), "{err}");
    assert_eq!(code, Some(1), "something was refused: {out}{err}");
    for named in [
        "doppel-journal-00000000000000000001.jsonl",
        "no record of moving these files out of",
        "../escaped.txt: not a relative path inside",
        &format!("{}: not a relative path inside", absolute.display()),
        &format!("{mismatched}: the quarantined file"),
    ] {
        assert!(err.contains(named), "{named:?} in {err}");
    }
    // Every other file is back, byte for byte.
    assert!(out.contains("put back 2 files"), "{out}");
    let mut expected = before.clone();
    expected.remove(Path::new(&mismatched)).unwrap();
    assert_eq!(tree(&s.folder), expected);
    assert!(quarantine.join(&mismatched).is_file(), "left where it was");
}

#[test]
fn undo_puts_files_back_only_into_the_folder_named_or_recorded() {
    let s = setup();
    let before = tree(&s.folder);
    let journal = act_cli(&s, &s.quarantine);
    let moved = tree(&s.folder);
    // Another machine's data folder: no record of the act.
    let elsewhere = s.quarantine.with_file_name("other-data");
    let (code, _, err) = undo_cli(&elsewhere, &[os("--to"), s.quarantine.as_os_str()]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("no record of moving these files out of") && err.contains("--folder"),
        "{err}"
    );
    assert_eq!(tree(&s.folder), moved, "nothing put back");
    // A folder the journal was not written for.
    let other = s.quarantine.with_file_name("other-folder");
    fs::create_dir(&other).unwrap();
    let (code, _, err) = undo_cli(
        &elsewhere,
        &[journal.as_os_str(), os("--folder"), other.as_os_str()],
    );
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("written for the folder"), "{err}");
    assert_eq!(fs::read_dir(&other).unwrap().count(), 0);
    // The folder it was written for, named.
    let (code, out, err) = undo_cli(
        &elsewhere,
        &[journal.as_os_str(), os("--folder"), s.folder.as_os_str()],
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("put back 3 files"), "{out}");
    assert_eq!(tree(&s.folder), before, "every byte and mtime back");
}

#[test]
fn undo_cleans_the_partial_copies_a_killed_move_left_in_the_quarantine() {
    let s = setup();
    let before = tree(&s.folder);
    let journal = act_cli(&s, &s.quarantine);
    let docs: Vec<String> = journal_lines(&journal)
        .iter()
        .filter(|l| l["op"] == "move")
        .map(|l| l["doc"].as_str().unwrap().to_owned())
        .filter(|d| !d.contains('\\'))
        .collect();
    assert_eq!(docs.len(), 2, "{docs:?}");
    let partial = |doc: &str| s.quarantine.join(format!("{doc}.doppel-partial"));
    // Killed while copying: the file never left the folder, half a copy
    // is in the quarantine.
    let (cut, whole) = (&docs[0], &docs[1]);
    fs::rename(s.quarantine.join(cut), s.folder.join(cut)).unwrap();
    let bytes = fs::read(s.folder.join(cut)).unwrap();
    fs::write(partial(cut), &bytes[..bytes.len() / 2]).unwrap();
    // A partial copy beside a file still whole in the quarantine.
    fs::write(partial(whole), b"a few bytes").unwrap();

    let (code, out, err) = undo_cli(&s.data, &[os("--to"), s.quarantine.as_os_str()]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(
        out.contains("put back 2 files (1 already back)")
            && out.contains("removed 2 partial copies"),
        "{out}"
    );
    assert_eq!(partials(&s.quarantine), Vec::<PathBuf>::new());
    assert_eq!(tree(&s.folder), before, "every byte and mtime back");
}

#[test]
fn a_partial_copy_that_may_be_all_that_is_left_is_named_and_kept() {
    let s = setup();
    let journal = act_cli(&s, &s.quarantine);
    let doc = journal_lines(&journal)
        .iter()
        .filter(|l| l["op"] == "move")
        .map(|l| l["doc"].as_str().unwrap().to_owned())
        .find(|d| !d.contains('\\'))
        .unwrap();
    // Neither in the folder nor whole in the quarantine: only the partial.
    let held = s.quarantine.join(&doc);
    let partial = s.quarantine.join(format!("{doc}.doppel-partial"));
    fs::rename(&held, &partial).unwrap();
    let (code, out, err) = undo_cli(&s.data, &[os("--to"), s.quarantine.as_os_str()]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.contains("put back 2 files"), "{out}");
    assert!(
        err.contains(&format!("{doc}: a partial copy")) && err.contains("so it stays"),
        "{err}"
    );
    assert!(partial.is_file(), "kept");
}

#[test]
fn undo_never_follows_a_symbolic_link_out_of_the_folder() {
    let s = setup();
    let journal = act_cli(&s, &s.quarantine);
    // A folder of a moved file is now a link to a folder elsewhere.
    let moved: Vec<Vec<u8>> = journal_lines(&journal)
        .iter()
        .filter(|l| l["op"] == "move")
        .map(|l| hex::decode(l["doc_hex"].as_str().unwrap()).unwrap())
        .collect();
    let under = moved.iter().find(|d| d.contains(&b'/')).unwrap();
    let parent = Path::new(OsStr::from_bytes(under)).parent().unwrap();
    let outside = s.folder.with_file_name("outside");
    fs::create_dir(&outside).unwrap();
    fs::rename(s.folder.join(parent), s.folder.with_file_name("set-aside")).unwrap();
    std::os::unix::fs::symlink(&outside, s.folder.join(parent)).unwrap();
    let (code, _, err) = undo_cli(&s.data, &[os("--to"), s.quarantine.as_os_str()]);
    assert_eq!(fs::read_dir(&outside).unwrap().count(), 0, "{err}");
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("is not a folder (a link or a file)"), "{err}");
    assert!(
        s.quarantine.join(OsStr::from_bytes(under)).is_file(),
        "left in the quarantine"
    );
}
