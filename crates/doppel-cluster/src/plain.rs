//! A failed plan's error as a user reads it. Ballista wraps a task's
//! reason in its job's, its stage's and its task's (`Job … failed: Job
//! failed due to stage 0 failed: Task failed due to runtime execution
//! error: DataFusionError(Shared(External(…Execution("why"))))`); the
//! user wants the why. And a cluster's addresses (the scheduler's, an
//! executor's host and port) are not for output or logs, so each is said
//! as `<address>`.

use std::sync::LazyLock;

use datafusion::error::DataFusionError;
use regex::Regex;

/// A host and port (`name:port`, `1.2.3.4:port`, `[::1]:port`, with or
/// without a `scheme://`), or a bare IPv4 address. A name has a letter,
/// so a time of day (`12:30`) is not one.
static ADDRESS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?:[A-Za-z][A-Za-z0-9+.-]*://)?",
        r"(?:\[[0-9A-Fa-f:.]+\]:\d{1,5}",
        r"|\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?",
        r"|\b[A-Za-z0-9-]*[A-Za-z][A-Za-z0-9-]*(?:\.[A-Za-z0-9-]+)*:\d{1,5})\b",
    ))
    .expect("a valid pattern")
});

/// `err`'s innermost reason, without addresses.
pub fn plain(err: &DataFusionError) -> String {
    let text = err.find_root().to_string();
    without_addresses(innermost(&text))
}

/// The reason a Ballista task's error carries inside its wrappers (the
/// last `Execution("…")`), else `text` as it is.
fn innermost(text: &str) -> &str {
    const OPEN: &str = "Execution(\"";
    match text.rfind(OPEN) {
        Some(at) => {
            let reason = &text[at + OPEN.len()..];
            let reason = reason.trim_end_matches(')');
            reason.strip_suffix('"').unwrap_or(reason)
        }
        None => text,
    }
}

/// `text` with each address said as `<address>`.
fn without_addresses(text: &str) -> String {
    ADDRESS.replace_all(text, "<address>").into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_reason_is_taken_out_of_ballista_s_wrappers() {
        let ballista = "Execution error: Job 038HVQH5JE000 failed: Job failed due to \
            stage 0 failed: Task failed due to runtime execution error: \
            DataFusionError(Shared(External(DataFusionError(Execution(\"this executor \
            does not read the folder the scan names\")))))";
        let err = DataFusionError::Execution(ballista.to_owned());
        assert_eq!(
            plain(&err),
            "this executor does not read the folder the scan names"
        );
    }

    #[test]
    fn addresses_are_not_said() {
        let said = without_addresses(
            "cannot fetch from executor 10.0.0.2:50051 (df://sched.example.org:50050, \
             [::1]:7000, http://node-3:8080/x, 192.168.1.4) at 12:30",
        );
        assert_eq!(
            said,
            "cannot fetch from executor <address> (<address>, <address>, <address>/x, \
             <address>) at 12:30"
        );
    }

    #[test]
    fn an_error_without_wrappers_is_kept_whole() {
        let err = DataFusionError::Plan("no column named path".to_owned());
        assert_eq!(plain(&err), err.to_string());
    }
}
