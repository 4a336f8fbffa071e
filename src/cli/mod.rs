//! The binary's commands, one module each (`main.rs` is their table of
//! contents; `act` holds `act`, `undo` and `manifest`), with what they
//! share: the flags (`args`), the settings a command runs with
//! (`settings`), progress on standard error (`progress`), the log (`log`)
//! and usage errors (`usage`).

pub mod act;
pub mod args;
#[cfg(feature = "cluster")]
pub mod cluster;
pub mod cluster_events;
pub mod compare;
pub mod config;
pub mod eval;
pub mod idf_table;
pub mod index;
#[cfg(feature = "postgres")]
pub mod ingest;
pub mod log;
pub mod progress;
pub mod report;
pub mod review;
pub mod scan;
pub mod settings;
pub mod usage;
pub mod watch_jsonl;
