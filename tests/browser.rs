//! The HTML report in a real browser: runs tests/browser/report_test.py
//! (headless Chromium over the DevTools pipe; see its docstring for what
//! it checks: no console error or fetch, every cluster of the scan JSON
//! with its members, the scan pair's OCR marks, filter, sort, links, a
//! screenshot at target/report-screenshot.png) with this build's `doppel`.
//!
//! The browser is `DOPPEL_BROWSER` if set, else the first of `chromium`,
//! `chromium-browser`, `google-chrome`, `google-chrome-stable` on PATH.
//! Without one (or without `python3`) the test says it is skipped, on the
//! terminal even when cargo captures output, and asserts nothing, unless
//! `DOPPEL_BROWSER_REQUIRED` is set (as `.ci/run` does), which makes the
//! missing browser a failure.

#![cfg(unix)]

use std::io::Write as _;
use std::path::PathBuf;
use std::process::Command;

const BROWSERS: [&str; 4] = [
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
];

/// The browser to drive, if there is one.
fn browser() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("DOPPEL_BROWSER") {
        return Some(PathBuf::from(path));
    }
    BROWSERS.iter().find_map(|name| which::which(name).ok())
}

/// Fail when a browser is required, else say the test is skipped. Written
/// to the process's stderr, not through `eprintln!`, which cargo test
/// captures and would hide.
fn skip(why: &str) {
    assert!(
        std::env::var_os("DOPPEL_BROWSER_REQUIRED").is_none(),
        "DOPPEL_BROWSER_REQUIRED is set but {why}"
    );
    let _ = writeln!(
        std::io::stderr(),
        "browser test SKIPPED: {why} (install Debian's chromium or set DOPPEL_BROWSER; \
         DOPPEL_BROWSER_REQUIRED=1 makes this a failure)"
    );
}

#[test]
fn the_report_works_in_headless_chromium() {
    let Some(browser) = browser() else {
        return skip(&format!("no browser found ({})", BROWSERS.join(", ")));
    };
    let Ok(python) = which::which("python3") else {
        return skip("python3 is not installed");
    };
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/browser/report_test.py");
    let run = Command::new(python)
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_doppel"))
        .arg(&browser)
        .output()
        .expect("python3 runs");
    let out = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "the report failed in {}:\n{out}\n{}",
        browser.display(),
        String::from_utf8_lossy(&run.stderr)
    );
    // The script's own tally: every check ran and passed.
    let tally = out.lines().last().unwrap_or("");
    assert!(
        tally.starts_with("browser: ") && tally.ends_with(" passed, 0 failed"),
        "{out}"
    );
    assert!(!out.contains("FAIL"), "{out}");
    let passed: usize = tally["browser: ".len()..]
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(passed >= 16, "every check ran: {out}");
    let _ = writeln!(
        std::io::stderr(),
        "{tally} in {} (screenshot: target/report-screenshot.png)",
        browser.display()
    );
}
