//! Two curators' review screens on one folder and one PostgreSQL
//! collection, each in a real terminal (tmux): a verdict made in the
//! first shows on the second's screen, with no key pressed there, twenty
//! times in a row (ten set with `y`, ten taken back with `u`).
//!
//! The latency from the key press to the second screen's change (polling
//! `tmux capture-pane`) is printed, and its p95 must be within the issue's
//! bar, 1 s: a timing assertion, allowed here because it is the issue's
//! acceptance bar, and generous (p95 53 ms, max 102 ms on a 2-core machine
//! at load average 10, debug build). Each change must also show within
//! [`SHOWN_WITHIN`], so a lost notification fails at once.
//!
//! Skipped (with a note) when tmux is not installed, unless
//! `DOPPEL_E2E_REQUIRED` is set; skips without `DOPPEL_TEST_PG` unless
//! `DOPPEL_TEST_PG_REQUIRED=1` (see `store_places`).
#![cfg(all(feature = "tui", feature = "postgres", unix))]

mod common;
mod store_places;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// How long a verdict may take to show on the other screen before the
/// test fails.
const SHOWN_WITHIN: Duration = Duration::from_secs(5);

/// A private tmux server (its own socket), killed when dropped.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn start() -> Option<Self> {
        let ok = Command::new("tmux")
            .arg("-V")
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            assert!(
                std::env::var_os("DOPPEL_E2E_REQUIRED").is_none(),
                "DOPPEL_E2E_REQUIRED is set but tmux is not installed"
            );
            eprintln!("skipped: tmux is not installed");
            return None;
        }
        Some(Self {
            socket: format!("doppel-team-{}", std::process::id()),
        })
    }

    fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("run tmux");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Start `command` in a detached 120×40 session.
    fn session(&self, name: &str, command: &str) {
        self.run(&[
            "new-session",
            "-d",
            "-x",
            "120",
            "-y",
            "40",
            "-s",
            name,
            command,
        ]);
    }

    fn screen(&self, name: &str) -> String {
        self.run(&["capture-pane", "-p", "-t", name])
    }

    /// Every session's screen but `name`'s, titled, for a failure's
    /// message (what one screen did is often why the other waits).
    fn other_screens(&self, name: &str) -> String {
        self.run(&["list-sessions", "-F", "#S"])
            .lines()
            .filter(|session| *session != name)
            .map(|session| format!("{session}'s screen:\n{}", self.screen(session)))
            .collect()
    }

    /// Poll the screen until `pred` holds, at most `within`; the screen
    /// and how long it took.
    fn wait(
        &self,
        name: &str,
        what: &str,
        within: Duration,
        pred: impl Fn(&str) -> bool,
    ) -> (String, Duration) {
        let start = Instant::now();
        loop {
            let s = self.screen(name);
            if pred(&s) {
                return (s, start.elapsed());
            }
            if start.elapsed() >= within {
                panic!(
                    "{what} not shown within {within:?}; screen:\n{s}\n{}",
                    self.other_screens(name)
                );
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .arg("kill-server")
            .output();
    }
}

fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The review screen of `folder` on the store at `url`, isolated from the
/// developer's config file.
fn review(folder: &Path, url: &str) -> String {
    format!(
        "env XDG_CONFIG_HOME={} {} {} --store {}; echo DOPPEL-EXITED $?; sleep 60",
        quote(env!("CARGO_TARGET_TMPDIR")),
        quote(env!("CARGO_BIN_EXE_doppel")),
        quote(&folder.display().to_string()),
        quote(url)
    )
}

/// The "reviewed" column of the first cluster row ("0/2", "1/2"), if the
/// clusters screen is up.
fn first_row_reviewed(screen: &str) -> Option<String> {
    let mut lines = screen.lines();
    lines.find(|l| l.contains("size reviewed"))?;
    let row = lines.next()?;
    // `│     3      1/2    6/11 ...`: the second field of the row.
    let row = row.trim_start_matches(['│', '≠', ' ']);
    row.split_whitespace().nth(1).map(str::to_owned)
}

/// The `p`th percentile (nearest rank) of `samples`.
fn percentile(samples: &[Duration], p: f64) -> Duration {
    let mut sorted = samples.to_vec();
    sorted.sort();
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

#[test]
fn a_verdict_made_on_one_screen_shows_on_the_other() {
    let Some(url) = store_places::postgres_url("tui_live") else {
        return;
    };
    let Some(t) = Tmux::start() else {
        return;
    };
    let f = common::fixture();
    // A guard against a hang while a debug build starts and indexes.
    let start_within = Duration::from_secs(120);
    let up = |s: &str| s.contains("watching") && first_row_reviewed(s).is_some();
    t.session("alice", &review(&f.folder, &url));
    t.wait("alice", "alice's clusters", start_within, up);
    t.session("bob", &review(&f.folder, &url));
    let (s, _) = t.wait("bob", "bob's clusters", start_within, up);
    // The first cluster is the largest: Emma's chapter and its four other
    // forms (edited copy, PDF, ALTO, EPUB), four links to review.
    assert_eq!(first_row_reviewed(&s).as_deref(), Some("0/4"), "{s}");

    let mut latencies = Vec::new();
    for round in 0..20 {
        // `y` judges the first cluster's first pair a duplicate; `u` takes
        // the verdict back.
        let (key, shown) = if round % 2 == 0 {
            ("y", "1/4")
        } else {
            ("u", "0/4")
        };
        t.run(&["send-keys", "-t", "alice", key]);
        let (_, took) = t.wait(
            "bob",
            &format!("verdict {round} ({key})"),
            SHOWN_WITHIN,
            |s| first_row_reviewed(s).as_deref() == Some(shown),
        );
        latencies.push(took);
    }
    let p95 = percentile(&latencies, 95.0);
    let max = latencies.iter().max().unwrap();
    eprintln!(
        "verdict on one screen to the other's: p50 {:?}, p95 {p95:?}, max {max:?} over {} verdicts",
        percentile(&latencies, 50.0),
        latencies.len()
    );
    assert!(
        p95 <= Duration::from_secs(1),
        "p95 {p95:?} over the 1 s bar: {latencies:?}"
    );
    t.run(&["send-keys", "-t", "alice", "q"]);
    t.run(&["send-keys", "-t", "bob", "q"]);
    t.wait("alice", "alice's exit", start_within, |s| {
        s.contains("DOPPEL-EXITED 0")
    });
    t.wait("bob", "bob's exit", start_within, |s| {
        s.contains("DOPPEL-EXITED 0")
    });
}
