//! Storage pauses. When the index cannot be written (the disk is full,
//! another process holds the index too long, an I/O error, a shared
//! database unreachable: restarting, the network), the files
//! still to read are not dropped until the next rescan: the worker says
//! `paused: <reason>` (a [`WatchState::Paused`], which the TUI's status
//! line and `watch --jsonl` show), reads the whole folder again after a
//! delay that doubles from [`super::WorkerConfig::storage_retry`] up to
//! [`MAX_DELAY`], and resumes by itself once a pass succeeds (what was
//! committed before is found unchanged, so only the rest is read). A
//! shared database's listener also says when it is lost and back: the
//! worker pauses at once, and resumes (a new connection, the decisions and
//! the folder read again) as soon as it is back.

use std::time::{Duration, Instant};

use crate::index::IndexError;
use crate::watch::WatchState;
use doppel_store::StoreError;

/// The longest wait between two attempts.
pub const MAX_DELAY: Duration = Duration::from_secs(60);

/// The index could not be written: when to try again, and how often it
/// failed in a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct StoragePause {
    /// Failures in a row.
    pub attempts: u32,
    /// When the next attempt is due.
    pub due: Instant,
}

impl StoragePause {
    /// The pause after one more failure (`previous`, if already paused),
    /// the first delay being `first`.
    pub fn after_failure(previous: Option<StoragePause>, first: Duration, now: Instant) -> Self {
        let attempts = previous.map_or(0, |p| p.attempts) + 1;
        Self {
            attempts,
            due: now + delay(first, attempts),
        }
    }
}

/// The wait before attempt `attempts` + 1: `first` doubled per failure
/// after the first, at most [`MAX_DELAY`].
pub fn delay(first: Duration, attempts: u32) -> Duration {
    first
        .saturating_mul(1 << attempts.saturating_sub(1).min(16))
        .min(MAX_DELAY)
}

/// The state to show when `error` is a storage failure worth waiting out
/// (`None` for any other failure).
pub(super) fn paused_state(error: &IndexError) -> Option<WatchState> {
    let IndexError::Store(store) = error else {
        return None;
    };
    if let Some(address) = store.unreachable_database() {
        return Some(unreachable(address));
    }
    let reason = if store.is_storage_full() {
        "disk full".to_owned()
    } else if store.is_busy() {
        "index busy".to_owned()
    } else if matches!(store, StoreError::Io { .. }) || is_io(store) {
        format!("cannot write the index: {store}")
    } else {
        return None;
    };
    Some(WatchState::Paused { reason })
}

/// The state of a worker whose shared store at `address` (shown without
/// its password) cannot be reached.
pub(super) fn unreachable(address: &str) -> WatchState {
    WatchState::Paused {
        reason: format!("database unreachable ({address})"),
    }
}

/// SQLite's own I/O failure (`SQLITE_IOERR`).
fn is_io(error: &StoreError) -> bool {
    matches!(
        error,
        StoreError::Sqlite { error, .. }
            if error.sqlite_error_code() == Some(rusqlite::ErrorCode::SystemIoFailure)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_double_up_to_the_cap() {
        let first = Duration::from_secs(1);
        let delays: Vec<u64> = (1..=9).map(|n| delay(first, n).as_secs()).collect();
        assert_eq!(delays, [1, 2, 4, 8, 16, 32, 60, 60, 60]);
    }
}
