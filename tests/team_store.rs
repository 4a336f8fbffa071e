//! `doppel scan --store postgres://…`: the team store gives the same
//! report as the SQLite file, on the first scan (everything read) and on
//! the next (everything loaded from the store). Skips without
//! `DOPPEL_TEST_PG` unless `DOPPEL_TEST_PG_REQUIRED=1` (see `store_places`).
#![cfg(feature = "postgres")]

mod common;
mod store_places;

use common::{doppel, fixture, stdout_of};

/// `doppel scan FOLDER --format json EXTRA`'s report.
fn scan(folder: &std::path::Path, extra: &[&str]) -> serde_json::Value {
    let out = stdout_of(
        doppel()
            .args(["scan", "--format", "json"])
            .args(extra)
            .arg(folder),
    );
    serde_json::from_slice(&out).unwrap()
}

#[test]
fn a_scan_through_postgres_reports_what_a_scan_through_sqlite_does() {
    let Some(url) = store_places::postgres_url("cli_scan") else {
        return;
    };
    let f = fixture();
    let index = f.index.display().to_string();
    let through_file = scan(&f.folder, &["--index", &index]);
    let pairs = &through_file["pairs"];
    assert!(
        pairs.as_array().is_some_and(|p| !p.is_empty()),
        "the sample corpus has pairs: {through_file}"
    );
    for run in ["first (every file read)", "second (loaded from the store)"] {
        let through_postgres = scan(&f.folder, &["--store", &url]);
        assert_eq!(&through_postgres["pairs"], pairs, "{run} scan's pairs");
        assert_eq!(
            through_postgres["clusters"], through_file["clusters"],
            "{run} scan's clusters"
        );
        assert_eq!(
            through_postgres["documents"], through_file["documents"],
            "{run} scan's documents"
        );
    }
}
