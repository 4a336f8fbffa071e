//! `doppel cluster scan DIR --local` (the `cluster` feature) prints what
//! `doppel scan DIR --no-index` prints, byte for byte in every format,
//! however its plans are cut; `--out` writes the three Parquet tables,
//! never inside the folder scanned.
#![cfg(feature = "cluster")]

mod common;
use common::{doppel, fixture, stdout_of};

#[test]
fn cluster_scan_prints_what_scan_without_an_index_prints() {
    let fx = fixture();
    for format in ["json", "text", "csv"] {
        let one_machine = stdout_of(
            doppel()
                .args(["scan", "--no-index", "--format", format])
                .arg(&fx.folder),
        );
        for partitions in ["1", "3"] {
            let plans = stdout_of(
                doppel()
                    .args(["cluster", "scan", "--local", "--batch-files", "2"])
                    .args(["--partitions", partitions, "--format", format])
                    .arg(&fx.folder),
            );
            assert!(
                plans == one_machine,
                "{format} on {partitions} partitions:\n{}",
                String::from_utf8_lossy(&plans)
            );
        }
    }
}

#[test]
fn out_writes_the_parquet_tables_and_never_inside_the_folder() {
    let fx = fixture();
    let inside = fx.folder.join("tables");
    let refused = doppel()
        .args(["cluster", "scan", "--local", "--out"])
        .arg(&inside)
        .arg(&fx.folder)
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("inside the folder scanned"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    assert!(!inside.exists(), "nothing written inside the folder");

    let out = tempfile::tempdir().unwrap();
    let tables = out.path().join("tables");
    stdout_of(
        doppel()
            .args(["cluster", "scan", "--local", "--format", "json", "--out"])
            .arg(&tables)
            .arg(&fx.folder),
    );
    for name in ["documents", "pairs", "clusters"] {
        let bytes = std::fs::read(tables.join(format!("{name}.parquet"))).unwrap();
        assert!(
            bytes.starts_with(b"PAR1") && bytes.ends_with(b"PAR1"),
            "{name}.parquet is a Parquet file"
        );
    }
}

#[test]
fn without_local_the_command_says_what_it_needs() {
    let fx = fixture();
    let out = doppel()
        .args(["cluster", "scan"])
        .arg(&fx.folder)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "a usage error");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--local"));
}
