//! Every face on the team store: `doppel watch --jsonl --store`, `act`
//! and `manifest --store`, and the config file's `store =` (a flag
//! overriding it) see in a PostgreSQL collection what they see in an
//! index file. Skips without `DOPPEL_TEST_PG` unless
//! `DOPPEL_TEST_PG_REQUIRED=1` (see `store_places`).
#![cfg(feature = "postgres")]

mod common;
mod store_places;

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use common::{doppel, fixture, stdout_of};

const WAIT: Duration = Duration::from_secs(60);

/// A `doppel watch DIR --jsonl --until-eof EXTRA` child and its parsed
/// output lines; closing its standard input stops it.
struct WatchChild {
    child: Child,
    lines: Receiver<serde_json::Value>,
    seen: Vec<serde_json::Value>,
}

impl WatchChild {
    fn spawn(folder: &Path, extra: &[&str]) -> Self {
        let mut child = doppel()
            .arg("watch")
            .arg(folder)
            .args(["--jsonl", "--until-eof", "--quiet-ms", "100"])
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let value: serde_json::Value =
                    serde_json::from_str(&line).unwrap_or_else(|e| panic!("{line:?}: {e}"));
                if tx.send(value).is_err() {
                    break;
                }
            }
        });
        Self {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// Read lines until `done` holds over everything seen so far.
    fn until(&mut self, what: &str, mut done: impl FnMut(&[serde_json::Value]) -> bool) {
        let end = Instant::now() + WAIT;
        while !done(&self.seen) {
            let left = end.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(value) => self.seen.push(value),
                Err(e) => panic!("no {what} within {WAIT:?} ({e}); seen {:?}", self.seen),
            }
        }
    }

    /// Close standard input and wait for a clean exit.
    fn stop(mut self) {
        drop(self.child.stdin.take());
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{status:?}");
    }
}

/// The clusters (members, representative) a watch reported before its
/// first snapshot.
fn first_clusters(folder: &Path, extra: &[&str]) -> BTreeSet<String> {
    let mut child = WatchChild::spawn(folder, extra);
    child.until("the first snapshot", |seen| {
        seen.iter().any(|v| v["event"] == "snapshot")
    });
    let clusters = child
        .seen
        .iter()
        .filter(|v| v["event"] == "cluster")
        .map(|v| format!("{} kept as {}", v["members"], v["representative"]))
        .collect();
    child.stop();
    clusters
}

#[test]
fn watch_jsonl_on_the_team_store_reports_the_clusters_a_file_index_does() {
    let Some(url) = store_places::postgres_url("watch_jsonl") else {
        return;
    };
    let f = fixture();
    let through_file = first_clusters(&f.folder, &["--index", &f.index.display().to_string()]);
    assert!(through_file.len() >= 5, "{through_file:?}");
    for run in ["first (every file read)", "second (loaded from the store)"] {
        let through_postgres = first_clusters(&f.folder, &["--store", &url]);
        assert_eq!(through_postgres, through_file, "{run} watch");
    }
}

#[test]
fn act_and_manifest_on_the_team_store_plan_what_a_file_index_plans() {
    let Some(url) = store_places::postgres_url("act_manifest") else {
        return;
    };
    let f = fixture();
    let quarantine = f.index.parent().unwrap().join("quarantine");
    let index = f.index.display().to_string();
    let run = |command: &str, place: &[&str]| -> String {
        let mut doppel = doppel();
        doppel.arg(command).arg(&f.folder).args(place);
        if command == "act" {
            doppel.arg("--to").arg(&quarantine).arg("--dry-run");
        }
        String::from_utf8(stdout_of(&mut doppel)).unwrap()
    };
    stdout_of(
        doppel()
            .arg("scan")
            .arg(&f.folder)
            .args(["--index", &index]),
    );
    stdout_of(doppel().arg("scan").arg(&f.folder).args(["--store", &url]));
    let plan = run("act", &["--index", &index]);
    assert!(plan.contains("  move "), "{plan}");
    assert_eq!(run("act", &["--store", &url]), plan);
    let manifest = run("manifest", &["--index", &index]);
    assert!(manifest.lines().count() > 10, "{manifest}");
    assert_eq!(run("manifest", &["--store", &url]), manifest);
    assert!(
        !quarantine.exists(),
        "a dry run moves nothing and makes no folder"
    );
}

/// A config file at `dir/doppel/config.toml` (where `doppel()` looks)
/// holding `text`.
fn config_in(dir: &Path, text: &str) {
    std::fs::create_dir_all(dir.join("doppel")).unwrap();
    std::fs::write(dir.join("doppel/config.toml"), text).unwrap();
}

#[test]
fn the_config_files_store_is_used_and_a_flag_overrides_it() {
    let Some(url) = store_places::postgres_url("config_store") else {
        return;
    };
    let f = fixture();
    let home = tempfile::tempdir().unwrap();
    let scan = |extra: &[&str]| -> std::process::Output {
        doppel()
            .env("XDG_CONFIG_HOME", home.path())
            .args(["scan", "--format", "json"])
            .args(extra)
            .arg(&f.folder)
            .output()
            .unwrap()
    };
    // Nothing listens on port 1: the store is used when it fails.
    config_in(
        home.path(),
        "store = \"postgres://curator:s3cret@127.0.0.1:1/doppel?connect_timeout=5\"\n",
    );
    let unreachable = scan(&[]);
    let error = String::from_utf8_lossy(&unreachable.stderr);
    assert!(!unreachable.status.success());
    assert!(
        error.contains("postgres://curator@127.0.0.1:1/doppel"),
        "{error}"
    );
    assert!(!error.contains("s3cret"), "{error}");
    // `--index` and `--store` override it for one run.
    let index = f.index.display().to_string();
    let through_file = scan(&["--index", &index]);
    assert!(through_file.status.success());
    let through_flag = scan(&["--store", &url]);
    assert!(
        through_flag.status.success(),
        "{}",
        String::from_utf8_lossy(&through_flag.stderr)
    );
    // And a reachable store in the file is the one a scan writes to.
    config_in(home.path(), &format!("store = \"{url}\"\n"));
    let through_config = scan(&[]);
    assert!(through_config.status.success());
    let report = |out: &std::process::Output| -> serde_json::Value {
        serde_json::from_slice(&out.stdout).unwrap()
    };
    assert_eq!(
        report(&through_config)["pairs"],
        report(&through_file)["pairs"]
    );
    assert_eq!(
        report(&through_config)["documents"],
        report(&through_flag)["documents"]
    );
}

#[test]
fn a_store_that_is_not_a_postgres_url_is_refused_by_the_config_file() {
    let home = tempfile::tempdir().unwrap();
    config_in(home.path(), "store = \"/var/lib/doppel/index.sqlite\"\n");
    let out = doppel()
        .env("XDG_CONFIG_HOME", home.path())
        .arg("config")
        .output()
        .unwrap();
    let error = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(error.contains("store"), "{error}");
    assert!(error.contains("postgres:// URL is needed"), "{error}");
}

#[test]
fn index_list_says_a_shared_store_is_not_among_the_files_it_lists() {
    let home = tempfile::tempdir().unwrap();
    let files = home.path().join("indexes");
    config_in(
        home.path(),
        &format!(
            "store = \"postgres://curator:s3cret@db.example/doppel\"\nindex-dir = \"{}\"\n",
            files.display()
        ),
    );
    let out = doppel()
        .env("XDG_CONFIG_HOME", home.path())
        .args(["index", "list"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("postgres://curator@db.example/doppel") && said.contains("shared by a team"),
        "{said}"
    );
    assert!(!said.contains("s3cret"), "{said}");
}
