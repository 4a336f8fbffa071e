//! A closed standard output ends a command quietly with status 0, as it
//! does `grep`, `rg` and `jq` (`doppel scan … | head`). Each command writes
//! into a pipe whose reading end is already closed, so every write fails
//! with "broken pipe" whatever the scheduling.

mod common;

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{doppel, fixture, sample_corpus};

/// Run `command` with stdout a pipe nobody reads (closed before the command
/// starts), and return its exit code and stderr. Fails the test rather than
/// hang if it has not ended after a minute.
fn run_into_closed_pipe(command: &mut Command) -> (Option<i32>, String) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    // A data folder of its own: an index the machine's user keeps for the
    // same folder (default place) is not this test's.
    let data = tempfile::tempdir().unwrap();
    let mut child = command
        .env("XDG_DATA_HOME", data.path())
        .stdout(writer)
        .stderr(Stdio::piped())
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    // Without `--until-eof` nothing reads standard input; holding it open
    // keeps `watch` from stopping on end of file.
    let stdin = child.stdin.take();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("still running a minute after its stdout was closed");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    drop(stdin);
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    (status.code(), stderr)
}

fn assert_quiet(what: &str, (code, stderr): (Option<i32>, String)) {
    assert_eq!(code, Some(0), "{what}: exit status; stderr: {stderr}");
    assert!(stderr.is_empty(), "{what} printed: {stderr}");
}

#[test]
fn scan_in_every_format_stops_quietly() {
    for format in ["text", "json", "csv"] {
        assert_quiet(
            &format!("scan --format {format}"),
            run_into_closed_pipe(
                doppel()
                    .args(["scan", "--no-index", "--format", format])
                    .arg(sample_corpus()),
            ),
        );
    }
}

#[test]
fn compare_in_every_format_stops_quietly() {
    let a = sample_corpus().join("austen/emma-ch1.txt");
    let b = sample_corpus().join("edited/emma-ch1-edited.txt");
    for format in ["text", "json", "csv"] {
        assert_quiet(
            &format!("compare --format {format}"),
            run_into_closed_pipe(
                doppel()
                    .arg("compare")
                    .arg(&a)
                    .arg(&b)
                    .args(["--format", format]),
            ),
        );
    }
}

#[test]
fn eval_with_a_truth_file_stops_quietly() {
    for format in ["text", "json", "csv"] {
        assert_quiet(
            &format!("eval --truth --format {format}"),
            run_into_closed_pipe(
                doppel()
                    .arg("eval")
                    .arg("--truth")
                    .arg(sample_corpus().join("expected.json"))
                    .arg(sample_corpus())
                    .args(["--format", format]),
            ),
        );
    }
}

#[test]
fn watch_stops_its_worker_and_exits_quietly() {
    let f = fixture();
    assert_quiet(
        "watch --jsonl",
        run_into_closed_pipe(
            doppel()
                .args(["watch", "--jsonl", "--index"])
                .arg(&f.index)
                .arg(&f.folder),
        ),
    );
}
