//! Runtime: the folder and its persistent index: which files count and how
//! they are read, the SQLite store, the folder index kept equal to the disk,
//! one-shot scans, the watcher, the worker thread that owns an index, and
//! the configuration file, the boilerplate learned over the collection, and
//! acting on the curator's decisions (quarantine, undo, manifest). Built on pairing and the engine.

pub mod act;
pub mod boilerplate;
pub mod collection;
pub mod config;
pub mod export;
pub mod index;
pub mod index_files;
pub mod memory;
pub mod places;
pub mod reading;
pub mod scan;
pub mod spill;
pub mod watch;
pub mod worker;
