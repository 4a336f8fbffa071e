//! The command line's slips and promises: an option a command does not
//! know is named by clap (with the one it is close to), `act` and
//! `manifest` refuse a folder that has no index, a config file's wrong
//! value names its line and its whole key, and `manifest` scores every
//! member against the kept one, a part that stays as well.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{doppel, sample_corpus, stdout_of};

/// The binary with its data folder (where indexes are kept by default)
/// at `data`.
fn doppel_in(data: &Path) -> Command {
    let mut command = doppel();
    command.env("XDG_DATA_HOME", data);
    command
}

fn failed(out: &Output) -> (Option<i32>, String) {
    assert!(!out.status.success(), "{out:?}");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn an_unknown_option_after_a_command_is_named_with_the_one_it_is_close_to() {
    let state = tempfile::tempdir().unwrap();
    let corpus = sample_corpus();
    let corpus = corpus.to_str().unwrap();
    let html = state.path().join("r.html");
    for (args, slip, meant) in [
        (
            &["scan", corpus, "--no-indx"][..],
            "--no-indx",
            "--no-index",
        ),
        (
            &[
                "report",
                corpus,
                "--html",
                html.to_str().unwrap(),
                "--no-indx",
            ],
            "--no-indx",
            "--no-index",
        ),
        (&["index", "list", "--frmat", "json"], "--frmat", "--format"),
        (&["act", corpus, "--dry-rn"], "--dry-rn", "--dry-run"),
        (
            &["manifest", corpus, "--frmat", "json"],
            "--frmat",
            "--format",
        ),
    ] {
        let out = doppel_in(state.path()).args(args).output().unwrap();
        let (code, stderr) = failed(&out);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(&format!("unexpected argument '{slip}'")),
            "{args:?}: {stderr}"
        );
        assert!(
            stderr.contains(&format!("a similar argument exists: '{meant}'")),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("no folder"), "{args:?}: {stderr}");
    }
    assert!(!html.exists());
}

#[test]
fn act_and_manifest_refuse_a_folder_without_an_index() {
    let state = tempfile::tempdir().unwrap();
    let data = state.path().join("data");
    let folder = state.path().join("books");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(
        sample_corpus().join("misc/gettysburg.txt"),
        folder.join("gettysburg.txt"),
    )
    .unwrap();
    let shown = folder.canonicalize().unwrap();
    let quarantine = state.path().join("quarantine");
    let missing = state.path().join("index.sqlite");
    for (args, index) in [
        (
            vec!["act", "--dry-run", "--to", quarantine.to_str().unwrap()],
            None,
        ),
        (vec!["manifest"], None),
        (vec!["manifest"], Some(&missing)),
    ] {
        let mut command = doppel_in(&data);
        command.args(&args).arg(&folder);
        if let Some(index) = index {
            command.arg("--index").arg(index);
        }
        let (code, stderr) = failed(&command.output().unwrap());
        assert_eq!(code, Some(1), "{args:?}: {stderr}");
        let expected = match index {
            None => format!(
                "no index for {}: run `doppel scan {}` first",
                shown.display(),
                shown.display()
            ),
            Some(index) => format!(
                "no index for {} at {}: run `doppel scan {} --index {}` first",
                shown.display(),
                index.display(),
                shown.display(),
                index.display()
            ),
        };
        assert!(stderr.contains(&expected), "{args:?}: {stderr}");
    }
    // Nothing was made: no index, no quarantine.
    assert!(!data.exists() && !missing.exists() && !quarantine.exists());
}

#[test]
fn a_wrong_value_in_the_config_file_names_its_line_and_whole_key() {
    let state = tempfile::tempdir().unwrap();
    let config = state.path().join("config.toml");
    std::fs::write(&config, "[thresholds]\nminhash = \"high\"\n").unwrap();
    let out = doppel_in(state.path())
        .arg("--config")
        .arg(&config)
        .args(["scan", "--no-index"])
        .arg(sample_corpus())
        .output()
        .unwrap();
    let (code, stderr) = failed(&out);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "config file {}, line 2: invalid type: string \"high\", expected f64 \
             (in `thresholds.minhash`)",
            config.display()
        )),
        "{stderr}"
    );
}

#[test]
fn the_manifest_scores_a_part_against_the_kept_file() {
    let state = tempfile::tempdir().unwrap();
    let index = state.path().join("index.sqlite");
    let run = |command: &str, extra: &[&str]| {
        stdout_of(
            doppel_in(state.path())
                .arg(command)
                .args(extra)
                .arg(sample_corpus())
                .arg("--index")
                .arg(&index),
        )
    };
    run("scan", &[]);
    let manifest: serde_json::Value =
        serde_json::from_slice(&run("manifest", &["--format", "json"])).unwrap();
    let rows = manifest["rows"].as_array().unwrap();
    // Every member paired with the kept one (it has a relation to it) has
    // every algorithm's score, whether it moves or stays.
    let paired: Vec<_> = rows
        .iter()
        .filter(|r| r["kept"] == false && !r["relation"].is_null())
        .collect();
    assert!(paired.len() > 10, "{manifest}");
    for row in &paired {
        assert_eq!(row["scores"].as_object().unwrap().len(), 11, "{row}");
    }
    let parts = paired
        .iter()
        .filter(|r| r["relation"] == "contains" && !r["stays_because"].is_null())
        .count();
    assert!(parts >= 1, "a part of Proverbs stays: {manifest}");
}
