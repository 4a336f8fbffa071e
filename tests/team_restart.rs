//! The team store's server stopped and started again under a running
//! `doppel watch --jsonl --store`: the watcher pauses saying the database
//! is unreachable, files dropped into the folder meanwhile wait, and once
//! the server is back it reconnects by itself, resumes and indexes every
//! one of them.
//!
//! It stops the server at `DOPPEL_TEST_PG` (found with `SHOW
//! data_directory`, stopped and started with `pg_ctl` as the data
//! folder's owner), so it is the only test of this binary: cargo runs test
//! binaries one after another, and no other test's connection is cut.
//! Skips without `DOPPEL_TEST_PG` unless `DOPPEL_TEST_PG_REQUIRED=1`
//! (see `store_places`).
#![cfg(feature = "postgres")]

mod common;
mod store_places;

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use postgres::NoTls;

/// Bound of every wait (a loaded 2-core CI machine, debug build).
const WAIT: Duration = Duration::from_secs(90);

/// The server behind `DOPPEL_TEST_PG`: its data folder, how it was
/// started, and `pg_ctl`.
struct Server {
    data: PathBuf,
    /// The options of the running server (`postmaster.opts` without the
    /// program and its data folder), to start it again as it was.
    options: String,
    pg_ctl: PathBuf,
    owner: (u32, u32),
}

impl Server {
    fn of(url: &str) -> Server {
        let mut admin = url
            .parse::<postgres::Config>()
            .unwrap()
            .connect(NoTls)
            .unwrap();
        let data: String = admin.query_one("SHOW data_directory", &[]).unwrap().get(0);
        let data = PathBuf::from(data);
        let opts = std::fs::read_to_string(data.join("postmaster.opts")).unwrap();
        // `/path/postgres "-D" "/data" "-k" "/sock" "-p" "54329" ...`
        let (program, rest) = opts.trim().split_once(' ').unwrap();
        let mut words: Vec<&str> = rest.split(' ').collect();
        if let Some(at) = words.iter().position(|w| *w == "\"-D\"") {
            words.drain(at..at + 2);
        }
        let pg_ctl = Path::new(program).with_file_name("pg_ctl");
        assert!(pg_ctl.exists(), "no pg_ctl beside {program}");
        let meta = std::fs::metadata(&data).unwrap();
        Server {
            data,
            options: words.join(" "),
            pg_ctl,
            owner: (meta.uid(), meta.gid()),
        }
    }

    /// `pg_ctl ARGS -D data -w`, as the data folder's owner.
    fn pg_ctl(&self, args: &[&str]) {
        let mut command = std::process::Command::new(&self.pg_ctl);
        command
            .args(args)
            .arg("-D")
            .arg(&self.data)
            .arg("-w")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if nix_uid() != self.owner.0 {
            command.gid(self.owner.1).uid(self.owner.0);
        }
        let status = command.status().unwrap();
        assert!(status.success(), "pg_ctl {args:?}: {status:?}");
    }

    fn stop(&self) {
        self.pg_ctl(&["stop", "-m", "fast"]);
    }

    fn start(&self) {
        self.pg_ctl(&["start", "-o", &self.options]);
    }
}

/// This process's user id.
fn nix_uid() -> u32 {
    std::fs::metadata("/proc/self").map_or(0, |m| m.uid())
}

/// A `doppel watch --jsonl` child and its parsed output lines.
struct WatchChild {
    child: Child,
    lines: Receiver<serde_json::Value>,
    seen: Vec<serde_json::Value>,
}

impl WatchChild {
    fn spawn(folder: &Path, url: &str) -> Self {
        let mut child = common::doppel()
            .arg("watch")
            .arg(folder)
            .args([
                "--jsonl",
                "--until-eof",
                "--quiet-ms",
                "100",
                "--store",
                url,
            ])
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

    /// Read lines until `done` holds over the lines read since `from`.
    fn until(&mut self, what: &str, from: usize, done: impl Fn(&[serde_json::Value]) -> bool) {
        let end = Instant::now() + WAIT;
        while !done(&self.seen[from.min(self.seen.len())..]) {
            let left = end.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(value) => self.seen.push(value),
                Err(e) => panic!("no {what} within {WAIT:?} ({e}); seen {:#?}", self.seen),
            }
        }
    }

    fn stop(mut self) {
        drop(self.child.stdin.take());
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{status:?}");
    }
}

/// A tiny text no other test text resembles.
fn tiny_text(i: usize) -> String {
    format!(
        "note {i}: {}\n",
        (0..12)
            .map(|k| format!("w{i}x{k}"))
            .collect::<Vec<_>>()
            .join(" ")
    )
}

#[test]
fn a_watch_on_the_team_store_rides_out_a_server_restart() {
    let Some(url) = store_places::postgres_url("restart") else {
        return;
    };
    let server = Server::of(&url);
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("drop");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("before.txt"), tiny_text(0)).unwrap();
    let mut watch = WatchChild::spawn(&folder, &url);
    watch.until("the first snapshot", 0, |seen| {
        seen.iter().any(|v| v["event"] == "snapshot")
    });
    watch.until("watching", 0, |seen| {
        seen.iter()
            .any(|v| v["event"] == "watch" && v["state"] == "watching")
    });

    server.stop();
    // Whatever happens next, the server is started again.
    struct Restart<'a>(&'a Server, bool);
    impl Drop for Restart<'_> {
        fn drop(&mut self) {
            if !self.1 {
                self.0.start();
            }
        }
    }
    let mut restart = Restart(&server, false);
    let mark = watch.seen.len();
    watch.until("the pause", mark, |seen| {
        seen.iter().any(|v| {
            v["event"] == "watch"
                && v["state"] == "paused"
                && v["reason"]
                    .as_str()
                    .is_some_and(|r| r.starts_with("database unreachable (postgres://"))
        })
    });
    let dropped: BTreeSet<String> = (1..=5).map(|i| format!("during-{i}.txt")).collect();
    for (i, name) in dropped.iter().enumerate() {
        std::fs::write(folder.join(name), tiny_text(i + 1)).unwrap();
    }
    // Long enough for the watcher to report them while the server is down.
    std::thread::sleep(Duration::from_millis(500));
    server.start();
    restart.1 = true;

    let mark = watch.seen.len();
    watch.until(
        "every dropped file indexed and a snapshot of all",
        mark,
        |seen| {
            let indexed: BTreeSet<String> = seen
                .iter()
                .filter(|v| v["event"] == "indexed")
                .filter_map(|v| v["path"].as_str().map(str::to_owned))
                .collect();
            dropped.is_subset(&indexed)
                && seen
                    .iter()
                    .any(|v| v["event"] == "snapshot" && v["documents"] == 6)
        },
    );
    watch.until("watching again", mark, |seen| {
        seen.iter()
            .any(|v| v["event"] == "watch" && v["state"] == "watching")
    });
    watch.stop();

    // What it wrote after the restart is in the store: a scan reads no file.
    let out = common::stdout_of(
        common::doppel()
            .args(["scan", "--format", "json", "--store", &url])
            .arg(&folder),
    );
    let report: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let indexed = report["documents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["status"] == "indexed")
        .count();
    assert_eq!(indexed, 6, "{report}");
}
