//! The team store's server stopped and started again under a running
//! `doppel watch --jsonl --store`: the watcher pauses saying the database
//! is unreachable, files dropped into the folder meanwhile wait, and once
//! the server is back it reconnects by itself, resumes and indexes every
//! one of them. And under two `doppel ingest` processes: both pause,
//! reconnect and finish, the collection fingerprinted once and paired.
//!
//! They stop the server at `DOPPEL_TEST_PG` (found with `SHOW
//! data_directory`, stopped and started with `pg_ctl` as the data
//! folder's owner), so they are this binary's only tests, one at a time
//! ([`restarting`]): cargo runs test binaries one after another, and no
//! other test's connection is cut.
//! Skips without `DOPPEL_TEST_PG` unless `DOPPEL_TEST_PG_REQUIRED=1`
//! (see `store_places`).
#![cfg(feature = "postgres")]

mod common;
mod store_places;

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
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

/// Held by a test for as long as it may stop the server: one at a time.
fn restarting() -> std::sync::MutexGuard<'static, ()> {
    static SERVER: std::sync::Mutex<()> = std::sync::Mutex::new(());
    SERVER.lock().unwrap_or_else(|e| e.into_inner())
}

/// Starts the server again when dropped unless told it is running:
/// whatever happens to a test, the server is back for the next.
struct Restart<'a>(&'a Server, bool);

impl Drop for Restart<'_> {
    fn drop(&mut self) {
        if !self.1 {
            self.0.start();
        }
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
    let _one_at_a_time = restarting();
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

/// `doppel ingest --format json --claim-files 2` of `folder` into `url`,
/// stepping (the hidden hook): after each claim it says so on stderr and
/// waits for a line on its stdin, until the stdin ends.
fn stepping_ingest(folder: &Path, url: &str) -> common::Reaped {
    common::Reaped(Some(
        common::doppel()
            .args([
                "ingest",
                "--format",
                "json",
                "--claim-files",
                "2",
                "--store",
                url,
            ])
            .arg(folder)
            .env("DOPPEL_TEST_STEP_AFTER_CLAIM", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    ))
}

/// The password the ingest processes' URL carries: the test cluster trusts
/// its socket and asks for none, so it is sent nowhere, and never shown.
const PASSWORD: &str = "pw-kept-quiet-7";

#[test]
fn two_ingest_processes_ride_out_a_server_restart_and_pair_the_collection() {
    let Some(url) = store_places::postgres_url("ingest_restart") else {
        return;
    };
    let _one_at_a_time = restarting();
    let server = Server::of(&url);
    let with_password = url.replacen(
        "postgres://postgres@",
        &format!("postgres://postgres:{PASSWORD}@"),
        1,
    );
    assert_ne!(with_password, url, "the test URL names the user postgres");
    let f = common::fixture();
    let mut ingests = [
        stepping_ingest(&f.folder, &with_password),
        stepping_ingest(&f.folder, &with_password),
    ];
    let mut says: Vec<common::Lines> = ingests
        .iter_mut()
        .map(|i| common::Lines::of(i.child().stderr.take().unwrap()))
        .collect();
    // Both hold claims, their files not yet read.
    for said in &mut says {
        said.until("claimed 2 files", WAIT);
    }

    server.stop();
    let mut restart = Restart(&server, false);
    // Each reads its files and cannot write them.
    for (ingest, said) in ingests.iter_mut().zip(&mut says) {
        let stdin = ingest.child().stdin.as_mut().unwrap();
        stdin.write_all(b"go\n").unwrap();
        stdin.flush().unwrap();
        said.until("paused: database unreachable (postgres://postgres@", WAIT);
    }
    server.start();
    restart.1 = true;
    // From now on they run freely.
    for ingest in &mut ingests {
        drop(ingest.child().stdin.take());
    }

    let mut reports = Vec::new();
    for (ingest, mut said) in ingests.into_iter().zip(says) {
        said.until("resumed", WAIT);
        let stderr = said.until_end(WAIT).join("\n");
        let out = ingest.finish();
        assert!(out.status.success(), "{stderr}");
        assert!(!stderr.contains(PASSWORD), "the password shown: {stderr}");
        reports.push(serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap());
    }
    let paired = reports.iter().filter(|r| r["paired_here"] == true).count();
    assert_eq!(paired, 1, "one of them paired: {reports:?}");
    let fingerprinted: u64 = reports
        .iter()
        .map(|r| r["fingerprinted"].as_u64().unwrap())
        .sum();
    let files = common::scan_json(&f.folder, &[])["documents"]
        .as_array()
        .unwrap()
        .len() as u64;
    // (A process that opens the collection again reads once more the
    // documents whose boilerplate moved since another read them.)
    assert!(fingerprinted >= files, "every file written: {reports:?}");
    store_places::assert_paired_by_ingest(&url);
    common::assert_store_scans_as_fresh(&f.folder, &url);
}
