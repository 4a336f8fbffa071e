//! Changes other processes make to a shared store, as a listener reports
//! them ([`super::Store::listen`]): what kind of thing changed, and when
//! the database was lost and is back. A file index has no listener (only
//! this process writes it).

use std::fmt;

/// What another process changed in the collection, as its notification
/// names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Change {
    /// Verdicts on pairs or keeper marks.
    Decisions,
    /// The overruled boilerplate passages.
    Boilerplate,
    /// Documents and their pairs.
    Documents,
    /// The thresholds a curator saved for the team.
    Thresholds,
}

impl Change {
    /// The word a notification's payload names it by.
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Decisions => "decisions",
            Change::Boilerplate => "boilerplate",
            Change::Documents => "documents",
            Change::Thresholds => "thresholds",
        }
    }

    /// The change a payload's word names, if any.
    pub fn parse(word: &str) -> Option<Change> {
        [
            Change::Decisions,
            Change::Boilerplate,
            Change::Documents,
            Change::Thresholds,
        ]
        .into_iter()
        .find(|c| c.as_str() == word)
    }
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a listener reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LiveEvent {
    /// Another process committed a change of this kind.
    Changed(Change),
    /// The listener listens for the first time: what other processes
    /// committed between the store's load and now was not announced.
    Listening,
    /// The listener's connection was lost (the database is unreachable:
    /// a restart, the network); it keeps trying to reconnect. Names the
    /// database without its password.
    Lost(String),
    /// The listener is connected and listening again after [`LiveEvent::Lost`]:
    /// what changed meanwhile was not announced.
    Back,
}

/// A running listener: it stops (and its thread ends within a fraction
/// of a second) when dropped.
pub struct Listener {
    pub(super) stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl fmt::Debug for Listener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Listener").finish_non_exhaustive()
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}
