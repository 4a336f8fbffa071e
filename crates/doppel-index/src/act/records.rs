//! doppel's own record of its acts, kept outside every quarantine (in
//! its data folder): which folder each journal's files were moved out of.
//! A journal lies in its quarantine, where whoever can write there can
//! edit it, so [`super::undo`] puts files back into the folder a journal
//! names only when the user names that folder too, or when this record
//! holds the journal as written for it. One JSON object a line, appended
//! and synced before the act moves a file; on unix only its owner may
//! read or write it.

use std::fs::OpenOptions;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{ActError, Result};

/// The record's file name in doppel's data folder.
pub const FILE_NAME: &str = "acts.jsonl";

/// The record of acts at one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActRecords {
    path: PathBuf,
}

/// One act: its journal (by file name and start time) and the folder it
/// moved files out of.
#[derive(Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Record {
    journal: String,
    at_ns: i64,
    root_hex: String,
}

impl Record {
    fn new(journal: &Path, at_ns: i64, root_hex: &str) -> Record {
        Record {
            journal: journal
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            at_ns,
            root_hex: root_hex.to_owned(),
        }
    }
}

impl ActRecords {
    /// The user's record, in the platform data folder
    /// (`~/.local/share/doppel/acts.jsonl` on Linux); `None` without a home.
    pub fn user() -> Option<ActRecords> {
        let dirs = directories::ProjectDirs::from("", "", "doppel")?;
        Some(ActRecords::at(dirs.data_dir().join(FILE_NAME)))
    }

    /// The record at `path`.
    pub fn at(path: impl Into<PathBuf>) -> ActRecords {
        ActRecords { path: path.into() }
    }

    /// Its file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Record that the journal at `journal`, started at `at_ns`, moves
    /// files out of the folder whose raw bytes are `root_hex`.
    pub(super) fn add(&self, journal: &Path, at_ns: i64, root_hex: &str) -> Result<()> {
        let fail = |context| ActError::io(context, &self.path);
        if let Some(folder) = self.path.parent() {
            std::fs::create_dir_all(folder).map_err(fail("record the act in"))?;
        }
        let mut options = OpenOptions::new();
        options.create(true).append(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let mut file = options
            .open(&self.path)
            .map_err(fail("record the act in"))?;
        let mut line =
            serde_json::to_vec(&Record::new(journal, at_ns, root_hex)).expect("records serialize");
        line.push(b'\n');
        file.write_all(&line)
            .and_then(|()| file.sync_all())
            .map_err(fail("record the act in"))
    }

    /// Whether an act recorded here wrote the journal at `journal`,
    /// started at `at_ns`, for the folder `root_hex` (a line that does
    /// not read vouches for nothing).
    pub(super) fn vouches_for(&self, journal: &Path, at_ns: i64, root_hex: &str) -> bool {
        let wanted = Record::new(journal, at_ns, root_hex);
        let Ok(file) = std::fs::File::open(&self.path) else {
            return false;
        };
        BufReader::new(file)
            .lines()
            .map_while(std::io::Result::ok)
            .filter_map(|line| serde_json::from_str::<Record>(&line).ok())
            .any(|record| record == wanted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_vouches_only_for_its_journal_and_folder() {
        let dir = tempfile::tempdir().unwrap();
        let records = ActRecords::at(dir.path().join("state").join(FILE_NAME));
        let journal = Path::new("/q/doppel-journal-1.jsonl");
        assert!(!records.vouches_for(journal, 1, "aa"), "no file yet");
        records.add(journal, 1, "aa").unwrap();
        assert!(records.vouches_for(journal, 1, "aa"));
        // Moved with its quarantine: the same journal.
        assert!(records.vouches_for(Path::new("/elsewhere/doppel-journal-1.jsonl"), 1, "aa"));
        assert!(!records.vouches_for(journal, 1, "bb"), "another folder");
        assert!(!records.vouches_for(journal, 2, "aa"), "another act");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(records.path())
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o077, 0, "only its owner reads it");
        }
    }
}
