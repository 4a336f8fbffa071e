//! The quarantine journal: one JSON object a line, in the quarantine
//! folder. The first line names the watched folder and the quarantine;
//! then one `move` line per file, written and fsynced before the file
//! moves (its path, size, mtime and content hash), so a move cut short
//! still leaves the file findable; `undone` closes a journal whose every
//! file was put back. Paths are kept as the hex of their raw bytes (names
//! need not be UTF-8) beside their display form, which is never read back.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use doppel_core::doc::DocPath;

use super::{ActError, Result};

/// The journal format's version.
pub const JOURNAL_VERSION: u32 = 1;

/// The file name prefix of a journal (then the start time, `.jsonl`).
pub const JOURNAL_PREFIX: &str = "doppel-journal-";

/// One line of a journal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "kebab-case")]
pub enum Entry {
    /// The first line: where files come from and go.
    Start {
        /// [`JOURNAL_VERSION`].
        version: u32,
        /// The watched folder's raw bytes, in hex.
        root_hex: String,
        /// The quarantine folder's raw bytes, in hex.
        quarantine_hex: String,
        /// The watched folder, for people.
        root: String,
        /// When the act began (unix ns).
        at_ns: i64,
    },
    /// A file about to move from the folder to the quarantine.
    Move {
        /// Its path relative to both folders, raw bytes in hex.
        doc_hex: String,
        /// The same path, for people.
        doc: String,
        /// Its size in bytes.
        size: u64,
        /// Its mtime (unix ns).
        mtime_ns: i64,
        /// xxh3-64 of its bytes, in hex.
        hash: String,
    },
    /// Every file was put back.
    Undone {
        /// When (unix ns).
        at_ns: i64,
    },
}

/// A path as the hex of its raw bytes.
pub fn path_hex(path: &Path) -> String {
    hex::encode(DocPath::from_relative(path).as_bytes())
}

/// The path a [`path_hex`] string names.
pub fn path_from_hex(text: &str) -> Result<PathBuf, hex::FromHexError> {
    let bytes = hex::decode(text)?;
    Ok(DocPath::from_bytes(bytes).to_relative_path())
}

/// A journal being written: each line reaches the disk before
/// [`Writer::append`] returns.
#[derive(Debug)]
pub struct Writer {
    file: File,
    path: PathBuf,
}

impl Writer {
    /// Create a new journal at `path` (never over an existing file).
    pub fn create(path: &Path) -> Result<Self> {
        let file = OpenOptions::new()
            .create_new(true)
            .write(true)
            .open(path)
            .map_err(ActError::io("create the journal", path))?;
        Ok(Self {
            file,
            path: path.to_path_buf(),
        })
    }

    /// Open an existing journal to add lines to it.
    pub fn reopen(path: &Path) -> Result<Self> {
        let file = OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(ActError::io("open the journal", path))?;
        Ok(Self {
            file,
            path: path.to_path_buf(),
        })
    }

    /// Write `entry` as one line and fsync it.
    pub fn append(&mut self, entry: &Entry) -> Result<()> {
        let mut line = serde_json::to_vec(entry).expect("journal entries serialize");
        line.push(b'\n');
        self.file
            .write_all(&line)
            .and_then(|()| self.file.sync_all())
            .map_err(ActError::io("write the journal", &self.path))
    }

    /// The journal's file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Every line of the journal at `path`.
pub fn read(path: &Path) -> Result<Vec<Entry>> {
    let file = File::open(path).map_err(ActError::io("open the journal", path))?;
    let mut entries = Vec::new();
    for (n, line) in BufReader::new(file).lines().enumerate() {
        let line = line.map_err(ActError::io("read the journal", path))?;
        if line.trim().is_empty() {
            continue;
        }
        let entry = serde_json::from_str(&line).map_err(|e| ActError::Journal {
            journal: path.to_path_buf(),
            line: n + 1,
            reason: e,
        })?;
        entries.push(entry);
    }
    Ok(entries)
}

/// A journal's lines that read, each with its 1-based number, and a
/// problem naming each line that does not.
pub type Lines = (Vec<(usize, Entry)>, Vec<String>);

/// Every line of the journal at `path` that reads, with its 1-based
/// number, and a problem naming each one that does not: one damaged line
/// keeps none of the others from being read.
pub fn read_lenient(path: &Path) -> Result<Lines> {
    let file = File::open(path).map_err(ActError::io("open the journal", path))?;
    let (mut entries, mut problems) = (Vec::new(), Vec::new());
    for (n, line) in BufReader::new(file).split(b'\n').enumerate() {
        let line = line.map_err(ActError::io("read the journal", path))?;
        if line.trim_ascii().is_empty() {
            continue;
        }
        match serde_json::from_slice(&line) {
            Ok(entry) => entries.push((n + 1, entry)),
            Err(e) => problems.push(
                ActError::Journal {
                    journal: path.to_path_buf(),
                    line: n + 1,
                    reason: e,
                }
                .to_string(),
            ),
        }
    }
    Ok((entries, problems))
}

/// The journals in `quarantine` not yet undone, newest first.
pub fn open_journals(quarantine: &Path) -> Result<Vec<PathBuf>> {
    let listing =
        std::fs::read_dir(quarantine).map_err(ActError::io("list the quarantine", quarantine))?;
    let mut journals = Vec::new();
    for entry in listing {
        let entry = entry.map_err(ActError::io("list the quarantine", quarantine))?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with(JOURNAL_PREFIX) && name.ends_with(".jsonl") {
            let path = entry.path();
            let undone = read_lenient(&path)?
                .0
                .iter()
                .any(|(_, e)| matches!(e, Entry::Undone { .. }));
            if !undone {
                journals.push(path);
            }
        }
    }
    // The names hold the start time, zero-padded: newest last by name.
    journals.sort();
    journals.reverse();
    Ok(journals)
}
