//! doppel: find and review near-duplicate documents in a text collection.
//!
//! The engine (everything in this library except `tui`) never touches the
//! terminal: `text` turns bytes into normalized words, `analysis` does the
//! per-document pass every algorithm shares, `algo` holds the fingerprint
//! algorithms of the papers, `stats` the collection statistics they weight
//! terms with, `engine` ties one configuration of all of them together,
//! `collection` reads a folder into documents and `cluster` groups pairs.
pub mod algo;
pub mod analysis;
pub mod candidates;
pub mod cluster;
pub mod collection;
pub mod config;
pub mod engine;
pub mod eval;
pub mod hash;
pub mod index;
pub mod index_files;
pub mod library;
pub mod measure;
pub mod pairs;
pub mod report;
pub mod scan;
pub mod stats;
pub mod store;
pub mod text;
#[cfg(feature = "tui")]
pub mod tui;
pub mod watch;
pub mod worker;
