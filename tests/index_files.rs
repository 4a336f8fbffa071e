//! `doppel index list` / `doppel index forget` and the folder each index
//! records: what the index folder holds, what is removed (and only that),
//! busy indexes kept, and `--index` refused for another folder's index.
//! Every run keeps its indexes in a temporary `index-dir` and its data
//! folder in a temporary `XDG_DATA_HOME`, never in the user's.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use doppel_store::{index_file_name, Documents, Meta, SqliteStore};

/// A temporary place with an index folder, a config file naming it, and
/// folders of texts to index.
struct Place {
    dir: tempfile::TempDir,
}

impl Place {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("config.toml"), "index-dir = \"indexes\"\n").unwrap();
        Place { dir }
    }

    fn index_dir(&self) -> PathBuf {
        self.dir.path().join("indexes")
    }

    /// A folder of three texts, two of them copies (canonical path).
    fn folder(&self, name: &str) -> PathBuf {
        let folder = self.dir.path().join(name);
        fs::create_dir_all(&folder).unwrap();
        let text = "It is a truth universally acknowledged, that a single man in possession \
                    of a good fortune, must be in want of a wife. "
            .repeat(20);
        fs::write(folder.join("a.txt"), &text).unwrap();
        fs::write(folder.join("b.txt"), &text).unwrap();
        fs::write(
            folder.join("c.txt"),
            format!("{name} has its own text. ").repeat(30),
        )
        .unwrap();
        folder.canonicalize().unwrap()
    }

    /// Where the index of `folder` lives (the config's `index-dir`).
    fn index_of(&self, folder: &Path) -> PathBuf {
        self.index_dir().join(index_file_name(folder))
    }

    fn doppel(&self) -> Command {
        let mut command = common::doppel();
        command
            .env("XDG_DATA_HOME", self.dir.path().join("data"))
            .arg("--config")
            .arg(self.dir.path().join("config.toml"));
        command
    }

    fn run(&self, args: &[&str], paths: &[&Path]) -> Output {
        self.doppel().args(args).args(paths).output().unwrap()
    }

    fn scan(&self, folder: &Path) {
        let out = self.run(&["scan"], &[folder]);
        assert!(out.status.success(), "{}", stderr(&out));
    }

    fn list(&self) -> serde_json::Value {
        let out = self.run(&["index", "list", "--format", "json"], &[]);
        assert!(out.status.success(), "{}", stderr(&out));
        serde_json::from_slice(&out.stdout).unwrap()
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The files of the index `file` (itself and any SQLite companions).
fn files_of(file: &Path) -> Vec<PathBuf> {
    ["", "-wal", "-shm", "-journal"]
        .iter()
        .map(|s| PathBuf::from(format!("{}{s}", file.display())))
        .filter(|p| p.exists())
        .collect()
}

fn bytes_of(file: &Path) -> u64 {
    files_of(file)
        .iter()
        .map(|f| fs::metadata(f).unwrap().len())
        .sum()
}

/// Set the index's record of its last use (as an older doppel would have
/// left none, or as if it was last used long ago).
fn set_last_used(file: &Path, when: Option<SystemTime>) {
    let conn = rusqlite::Connection::open(file).unwrap();
    conn.execute("DELETE FROM meta WHERE key = 'last_used_ns'", [])
        .unwrap();
    if let Some(when) = when {
        let ns = when.duration_since(UNIX_EPOCH).unwrap().as_nanos() as i64;
        conn.execute(
            "INSERT INTO meta (key, value) VALUES ('last_used_ns', ?1)",
            [ns.to_string()],
        )
        .unwrap();
    }
}

#[test]
fn list_shows_each_index_with_its_folder_size_documents_and_missing_folders() {
    let place = Place::new();
    let (a, b) = (place.folder("a"), place.folder("b"));
    place.scan(&a);
    place.scan(&b);
    // Not indexes: another file in the folder is not listed.
    fs::write(place.index_dir().join("notes.txt"), "mine").unwrap();
    fs::remove_dir_all(&b).unwrap();

    let listing = place.list();
    assert_eq!(
        listing["index_dir"],
        place.index_dir().display().to_string()
    );
    let indexes = listing["indexes"].as_array().unwrap();
    assert_eq!(indexes.len(), 2, "{listing:#}");
    for (folder, exists) in [(&a, true), (&b, false)] {
        let entry = indexes
            .iter()
            .find(|i| i["folder"] == folder.display().to_string())
            .unwrap_or_else(|| panic!("{} listed: {listing:#}", folder.display()));
        let file = place.index_of(folder);
        assert_eq!(entry["file"], file.display().to_string());
        assert_eq!(entry["folder_exists"], exists);
        assert_eq!(entry["bytes"], bytes_of(&file));
        assert_eq!(entry["documents"], 3);
        assert_eq!(entry["in_use"], false);
        assert!(entry["last_used"].as_str().unwrap().ends_with('Z'));
    }
    // Listing leaves no SQLite companions behind.
    assert_eq!(files_of(&place.index_of(&a)).len(), 1);

    let text = stdout(&place.run(&["index", "list"], &[]));
    assert!(
        text.contains(&format!("{} (missing)", b.display())),
        "{text}"
    );
    assert!(text.contains("2 indexes"), "{text}");
}

#[test]
fn list_without_index_dir_reads_the_platform_data_folder() {
    let place = Place::new();
    fs::write(place.dir.path().join("config.toml"), "").unwrap();
    let a = place.folder("a");
    place.scan(&a);
    let listing = place.list();
    let data = place.dir.path().join("data").join("doppel").join("indexes");
    assert_eq!(listing["index_dir"], data.display().to_string());
    assert_eq!(listing["indexes"][0]["folder"], a.display().to_string());
    assert!(data.join(index_file_name(&a)).exists());
}

#[test]
fn an_index_made_before_folders_were_recorded_is_unknown_until_opened() {
    let place = Place::new();
    let a = place.folder("a");
    let file = place.index_of(&a);
    // A fresh index as an older doppel left it: no folder, no time of use.
    drop(SqliteStore::open(&file).unwrap());
    let listing = place.list();
    assert_eq!(listing["indexes"][0]["folder"], serde_json::Value::Null);
    assert_eq!(
        listing["indexes"][0]["folder_exists"],
        serde_json::Value::Null
    );
    let text = stdout(&place.run(&["index", "list"], &[]));
    assert!(text.contains("unknown"), "{text}");
    // `forget DIR` still finds it by its name.
    let dry = place.run(&["index", "forget", "--dry-run"], &[&a]);
    assert!(stdout(&dry).contains("would remove the index of unknown"));
    assert!(file.exists(), "a dry run removes nothing");

    place.scan(&a);
    let store = SqliteStore::open_read_only(&file).unwrap();
    assert_eq!(store.folder().unwrap(), Some(a.clone()));
    assert!(store.last_used().unwrap().is_some());
}

#[test]
fn an_index_moved_aside_as_unusable_is_listed_and_forgotten_with_its_folder() {
    let place = Place::new();
    let (a, b) = (place.folder("a"), place.folder("b"));
    place.scan(&a);
    place.scan(&b);
    // A damaged index: the next scan moves it aside and starts afresh.
    let file = place.index_of(&a);
    fs::write(&file, b"not a database, whatever it once was".repeat(200)).unwrap();
    place.scan(&a);
    let aside: Vec<PathBuf> = fs::read_dir(place.index_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains(".corrupt-"))
        .collect();
    assert_eq!(aside.len(), 1, "{aside:?}");
    let aside = &aside[0];

    let listing = place.list();
    let indexes = listing["indexes"].as_array().unwrap();
    assert_eq!(indexes.len(), 3, "{listing:#}");
    let entry = indexes
        .iter()
        .find(|i| i["file"] == aside.display().to_string())
        .unwrap_or_else(|| panic!("the moved-aside index is listed: {listing:#}"));
    assert_eq!(entry["bytes"], bytes_of(aside));
    assert!(
        entry["moved_aside"].as_str().unwrap().ends_with('Z'),
        "{entry}"
    );
    assert!(
        entry["problem"].as_str().unwrap().contains("moved aside"),
        "{entry}"
    );
    let text = stdout(&place.run(&["index", "list"], &[]));
    assert!(text.contains("moved aside as unusable"), "{text}");
    assert!(text.contains("3 indexes"), "{text}");

    // `forget A` takes A's index and what was moved aside of it, nothing else.
    let out = place.run(&["index", "forget"], &[&a]);
    assert!(out.status.success(), "{}", stderr(&out));
    let said = stdout(&out);
    assert!(said.contains("(2 indexes)"), "{said}");
    assert!(
        said.contains(&format!(
            "removed an index moved aside as unusable: {}",
            aside.display()
        )),
        "{said}"
    );
    assert!(files_of(aside).is_empty(), "{:?}", files_of(aside));
    assert!(files_of(&file).is_empty());
    assert!(place.index_of(&b).exists(), "the other index stays");
}

#[test]
fn forget_dir_removes_every_file_of_that_index_only_and_says_what_it_freed() {
    let place = Place::new();
    let (a, b) = (place.folder("a"), place.folder("b"));
    place.scan(&a);
    place.scan(&b);
    let file = place.index_of(&a);
    // A companion as a killed doppel leaves it.
    fs::write(format!("{}-journal", file.display()), b"").unwrap();
    let bytes = bytes_of(&file);

    let out = place.run(&["index", "forget"], &[&a]);
    assert!(out.status.success(), "{}", stderr(&out));
    let said = stdout(&out);
    assert!(
        said.contains(&format!("removed the index of {}", a.display())),
        "{said}"
    );
    assert!(
        said.contains(&indicatif::HumanBytes(bytes).to_string()),
        "{said}"
    );
    assert!(said.contains("(1 index)"), "{said}");
    assert!(files_of(&file).is_empty(), "{:?}", files_of(&file));
    assert!(place.index_of(&b).exists(), "the other index stays");
    assert!(a.join("a.txt").exists(), "the folder itself is untouched");

    let again = place.run(&["index", "forget"], &[&a]);
    assert!(!again.status.success());
    assert!(stderr(&again).contains("no index of"), "{}", stderr(&again));
}

#[test]
fn forget_keeps_an_index_that_is_open_and_says_it_is_busy() {
    let place = Place::new();
    let a = place.folder("a");
    place.scan(&a);
    let file = place.index_of(&a);
    // Another doppel (here: a reader, the least a running doppel holds).
    let reader = SqliteStore::open_read_only(&file).unwrap();
    assert_eq!(reader.document_count().unwrap(), 3);

    assert_eq!(place.list()["indexes"][0]["in_use"], true);
    let out = place.run(&["index", "forget"], &[&a]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("is busy"), "{}", stderr(&out));
    assert!(file.exists());
    assert_eq!(reader.document_count().unwrap(), 3, "the reader reads on");

    drop(reader);
    let out = place.run(&["index", "forget"], &[&a]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!file.exists());
}

#[test]
fn forget_older_than_and_missing_pick_by_last_use_and_gone_folders() {
    let place = Place::new();
    let (old, recent, gone) = (
        place.folder("old"),
        place.folder("recent"),
        place.folder("gone"),
    );
    for folder in [&old, &recent, &gone] {
        place.scan(folder);
    }
    let forty_days_ago = SystemTime::now() - Duration::from_secs(40 * 86_400);
    set_last_used(&place.index_of(&old), Some(forty_days_ago));
    // No record (an older doppel's index): its files' time counts, now.
    set_last_used(&place.index_of(&recent), None);
    fs::remove_dir_all(&gone).unwrap();

    let out = place.run(&["index", "forget", "--older-than", "30d"], &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!place.index_of(&old).exists());
    assert!(place.index_of(&recent).exists());
    assert!(place.index_of(&gone).exists());

    let out = place.run(&["index", "forget", "--missing"], &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!place.index_of(&gone).exists());
    assert!(place.index_of(&recent).exists());

    // Opening records the time of use again.
    set_last_used(&place.index_of(&recent), Some(forty_days_ago));
    place.scan(&recent);
    let out = place.run(&["index", "forget", "--older-than", "30d"], &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(place.index_of(&recent).exists(), "used just now");
}

#[test]
fn forget_never_removes_what_is_not_a_doppel_index() {
    let place = Place::new();
    let a = place.folder("a");
    place.scan(&a);
    let dir = place.index_dir();
    // Named like an index: another application's database, and a text.
    let foreign = dir.join("0123456789abcdef.sqlite");
    rusqlite::Connection::open(&foreign)
        .unwrap()
        .execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
        .unwrap();
    let text = dir.join("fedcba9876543210.sqlite");
    fs::write(&text, "not a database at all, just some text").unwrap();
    let other = dir.join("keep.sqlite");
    fs::copy(place.index_of(&a), &other).unwrap();

    let listing = place.list();
    let indexes = listing["indexes"].as_array().unwrap();
    assert_eq!(indexes.len(), 3, "{listing:#}");
    let problem_of = |f: &Path| {
        indexes
            .iter()
            .find(|i| i["file"] == f.display().to_string())
            .unwrap()["problem"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert!(problem_of(&foreign).contains("another application"));
    assert!(problem_of(&text).contains("not a database"));

    let out = place.run(&["index", "forget", "--older-than", "0s"], &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!place.index_of(&a).exists(), "the one index goes");
    assert!(foreign.exists() && text.exists(), "the rest stays");
    assert!(other.exists(), "not named as doppel names indexes");

    let out = place.run(&["index", "forget", "--index"], &[&foreign]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("kept"), "{}", stderr(&out));
    assert!(foreign.exists());
    // A doppel index named anything is removed when named explicitly.
    let out = place.run(&["index", "forget", "--index"], &[&other]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!other.exists());
}

#[test]
fn index_of_another_folder_is_refused_and_keeps_its_rows() {
    let place = Place::new();
    let (a, b) = (place.folder("a"), place.folder("b"));
    let shared = place.dir.path().join("shared.sqlite");
    let out = place.run(&["scan", "--index"], &[&shared, &a]);
    assert!(out.status.success(), "{}", stderr(&out));

    let out = place.run(&["scan", "--index"], &[&shared, &b]);
    assert!(!out.status.success(), "b must not take a's index");
    let message = stderr(&out);
    assert!(
        message.contains(&format!(
            "is the index of {}, not of {}",
            a.display(),
            b.display()
        )),
        "{message}"
    );
    assert!(message.contains("doppel index forget --index"), "{message}");
    let store = SqliteStore::open_read_only(&shared).unwrap();
    assert_eq!(store.document_count().unwrap(), 3, "a's rows are all there");
    assert_eq!(store.folder().unwrap(), Some(a.clone()));

    // The watcher opens the same way.
    let out = place
        .doppel()
        .args(["watch", "--jsonl", "--until-eof", "--index"])
        .arg(&shared)
        .arg(&b)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(stderr(&out).contains("is the index of"), "{}", stderr(&out));
    // Its JSON lines say what kind of error it is, then that it stopped.
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let error = lines.iter().find(|v| v["event"] == "error").unwrap();
    assert_eq!(error["kind"], "index", "{error}");
    assert!(error["message"]
        .as_str()
        .unwrap()
        .contains("is the index of"));
    assert_eq!(lines.last().unwrap()["event"], "stopped");
}

#[cfg(unix)]
#[test]
fn the_recorded_folder_keeps_every_byte_of_its_name() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let (mut store, _) = SqliteStore::open(&dir.path().join("index.sqlite")).unwrap();
    assert_eq!(store.folder().unwrap(), None, "a fresh index records none");
    // Not UTF-8: a lossy record would match `caf\xe8` too.
    let folder = Path::new(std::ffi::OsStr::from_bytes(b"/books/caf\xe9 \\x41"));
    store.record_use(folder).unwrap();
    assert_eq!(store.folder().unwrap().as_deref(), Some(folder));
    let used = store.last_used().unwrap().unwrap();
    assert!(SystemTime::now().duration_since(used).unwrap() < Duration::from_secs(3600));
}

/// Runs `doppel ARGS` with the index folder mounted read-only, in a mount
/// namespace of its own (`unshare`, as root): `None` where this machine
/// allows no such namespace.
fn run_with_read_only_index_dir(place: &Place, args: &[&str], folder: &Path) -> Option<Output> {
    let dir = place.index_dir();
    let probe = Command::new("unshare")
        .args(["-m", "--propagation", "private", "true"])
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        return None;
    }
    let doppel = common::doppel();
    let script =
        "mount --bind \"$1\" \"$1\" && mount -o remount,ro,bind \"$1\" && shift && exec \"$@\"";
    let out = Command::new("unshare")
        .args(["-m", "--propagation", "private", "sh", "-c", script, "sh"])
        .arg(&dir)
        .arg(doppel.get_program())
        .env("XDG_DATA_HOME", place.dir.path().join("data"))
        .arg("--config")
        .arg(place.dir.path().join("config.toml"))
        .args(args)
        .arg(folder)
        .output()
        .unwrap();
    Some(out)
}

#[test]
fn an_index_on_a_read_only_file_system_is_named_as_such() {
    let place = Place::new();
    let a = place.folder("a");
    place.scan(&a);
    let Some(out) = run_with_read_only_index_dir(&place, &["scan"], &a) else {
        assert!(
            std::env::var_os("DOPPEL_E2E_REQUIRED").is_none(),
            "no mount namespace here (unshare -m), and the end-to-end tests are required"
        );
        eprintln!("skipped: no mount namespace here (unshare -m needs root)");
        return;
    };
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(said.contains("Read-only file system"), "{said}");
    assert!(
        said.contains(&format!(
            "write in its folder {}",
            place.index_dir().display()
        )),
        "{said}"
    );
    assert!(!said.contains("unable to open database file"), "{said}");
}
