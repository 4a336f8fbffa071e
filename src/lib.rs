//! doppel: find and review near-duplicate documents in a text collection.
//!
//! The library is built in layers; a module uses its own layer and the
//! layers below it, never one above (`tests/layers.rs` checks it):
//!
//! - base: [`hash`], the stable seeded hashes everything that persists uses,
//!   and [`doc`], a document's identity ([`doc::DocPath`], raw path bytes);
//! - [`engine`]: text to fingerprints and scores: `text` (decoding,
//!   normalization, words), `analysis` (the one pass over a document every
//!   algorithm reads), `algo` (the papers' algorithms), `stats` (term
//!   weights), `measure` (exact measures) and the [`engine::Engine`] that
//!   ties one configuration of them together;
//! - [`pairing`]: candidate tables, kept pairs with every score, the library
//!   that verifies candidates and judges pairs under live thresholds, and
//!   clustering;
//! - [`runtime`]: the folder and its persistent index: which files count and
//!   how they are read, the SQLite store, the folder index, one-shot scans,
//!   the watcher, the worker thread, the configuration file;
//! - [`faces`]: the text/JSON/CSV report, the papers' experiments (`eval`)
//!   and the terminal UI (feature `tui`, the only code that touches the
//!   terminal crates).
pub mod doc;
pub mod engine;
pub mod faces;
pub mod hash;
pub mod pairing;
pub mod runtime;
