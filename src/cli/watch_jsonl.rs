//! `doppel watch DIR --jsonl`: the worker, headless, each update a line
//! of JSON; stops on SIGINT or SIGTERM, within a second (or, with
//! `--until-eof`, when standard input ends).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde_json::json;
use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

use doppel_index::config::Config;
use doppel_index::worker;
use doppel_index::worker::protocol::{jsonl_event as event, Stage};
use doppel_index::worker::{Update, WorkerHandle};

use super::cluster_events::ShownClusters;
use super::settings::{open_folder, worker_config};

/// How long a first SIGINT or SIGTERM waits for the worker to stop (its
/// index closed) before the process ends anyway: every command ends within
/// a second of a signal, whatever the worker is doing (a big file's
/// reading, a pairing). A second signal ends it at once.
const STOP_GRACE: std::time::Duration = std::time::Duration::from_millis(750);

/// End the process now, after `signal`, the worker not stopped: its index
/// is left as a kill leaves it (every transaction whole; what was being
/// read is read again next time).
fn stop_now(signal: i32) -> ! {
    eprintln!("doppel: stopped before the worker had finished (nothing is lost)");
    std::process::exit(128 + signal);
}

/// `doppel watch DIR --jsonl`: run the worker headless and print each
/// update as a JSON line, flushed at once. Clusters are reported when they
/// appear or change (consecutive snapshots compared), and when they dissolve.
pub fn watch_jsonl(
    config: &Config,
    dir: &Path,
    index: Option<PathBuf>,
    store: Option<&str>,
    until_eof: bool,
) -> Result<()> {
    let root = open_folder(dir)?;
    let worker_config = worker_config(config, &root, index.as_ref(), store)?;
    // Stopped and waited for on every way out, a closed stdout included.
    let handle = JoinOnDrop(Some(worker::spawn(worker_config)));
    let mut signals = Signals::new([SIGINT, SIGTERM]).context("cannot handle SIGINT/SIGTERM")?;
    let quit = handle.commands.clone();
    std::thread::spawn(move || {
        let mut first = true;
        for signal in signals.forever() {
            if !first {
                stop_now(signal);
            }
            first = false;
            let _ = quit.send(worker::Command::Quit);
            std::thread::spawn(move || {
                std::thread::sleep(STOP_GRACE);
                stop_now(signal);
            });
        }
    });
    if until_eof {
        let quit = handle.commands.clone();
        std::thread::spawn(move || {
            let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
            let _ = quit.send(worker::Command::Quit);
        });
    }
    let stdout = std::io::stdout();
    // Serialized first, so a closed stdout surfaces as an `io::Error`.
    let print = |value: serde_json::Value| -> Result<()> {
        let mut line = serde_json::to_vec(&value)?;
        line.push(b'\n');
        let mut out = stdout.lock();
        out.write_all(&line)?;
        out.flush()?;
        Ok(())
    };
    let mut shown = ShownClusters::default();
    // An error before the first snapshot means the worker could not start.
    let mut started = false;
    let mut failed = None;
    for update in &handle.updates {
        let line = match update {
            Update::Progress(p) => {
                let stage = serde_json::to_value(p.stage)?;
                if p.stage == Stage::Idle {
                    None
                } else {
                    Some(
                        json!({"event": event::PROGRESS, "stage": stage, "done": p.done,
                                "total": p.total, "bytes": p.bytes}),
                    )
                }
            }
            Update::Snapshot(s) => {
                let changes = shown.update(&s.clusters);
                for (members, representative) in changes.changed {
                    print(json!({"event": event::CLUSTER, "members": members,
                                 "representative": representative}))?;
                }
                for members in changes.gone {
                    print(json!({"event": event::CLUSTER_GONE, "members": members}))?;
                }
                started = true;
                Some(json!({"event": event::SNAPSHOT, "generation": s.generation,
                            "documents": s.documents, "clusters": s.clusters.len(),
                            "skipped": s.skipped.len()}))
            }
            Update::FileIndexed { path } => Some(json!({"event": event::INDEXED, "path": path})),
            Update::FileRemoved { path } => Some(json!({"event": event::REMOVED, "path": path})),
            Update::FileSkipped { path, reason } => {
                Some(json!({"event": event::SKIPPED, "path": path, "reason": reason}))
            }
            Update::Watch(state) => {
                let mut value = serde_json::to_value(&state)?;
                value["event"] = json!(event::WATCH);
                Some(value)
            }
            Update::Error(error) => {
                if !started && failed.is_none() {
                    failed = Some(error.message.clone());
                }
                Some(json!({"event": event::ERROR, "kind": error.kind.as_str(),
                            "message": error.message}))
            }
            Update::Warning(message) => Some(json!({"event": event::WARNING, "message": message})),
            Update::TeamThresholds { saved, .. } => Some(json!({"event": event::THRESHOLDS,
                "curator": saved.curator, "at": doppel_report::rfc3339(saved.at_ns),
                "thresholds": saved.thresholds})),
            // Answers to requests `watch` never sends.
            Update::Pair(_)
            | Update::Diff(_)
            | Update::Plan(_)
            | Update::Quarantined(_)
            | Update::Restored(_)
            | Update::Facts(_)
            | Update::Neighbours(_) => None,
            Update::Stopped => {
                print(json!({"event": event::STOPPED}))?;
                if !started {
                    if let Some(message) = failed {
                        drop(handle);
                        anyhow::bail!(message);
                    }
                }
                break;
            }
        };
        if let Some(line) = line {
            print(line)?;
        }
    }
    drop(handle);
    Ok(())
}

/// A worker that is asked to quit and waited for (its index closed) when
/// dropped.
pub struct JoinOnDrop(Option<WorkerHandle>);

impl std::ops::Deref for JoinOnDrop {
    type Target = WorkerHandle;
    fn deref(&self) -> &Self::Target {
        self.0.as_ref().expect("taken only when dropped")
    }
}

impl Drop for JoinOnDrop {
    fn drop(&mut self) {
        if let Some(handle) = self.0.take() {
            handle.join();
        }
    }
}
