//! Moving marked files into the quarantine and back. A file moves by a
//! hard link then the removal of its old name (never over an existing
//! file, mtime untouched), or, across devices or where links are not
//! supported, by a copy that is fsynced, read back and compared with the
//! recorded hash, given the recorded mtime, and only then put in place and
//! the original removed: no byte is lost on any path. The journal line of
//! a file reaches the disk before it moves.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::doc::{DocPath, FileIdentity};
use crate::runtime::store::{file_content_hash, now_ns, resolve_lenient};

use super::journal::{self, Entry, Writer, JOURNAL_PREFIX, JOURNAL_VERSION};
use super::plan::Plan;
use super::{ActError, Result};

/// A file moved to the quarantine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Moved {
    /// Its path relative to the folder (and to the quarantine).
    pub path: DocPath,
    /// Its size in bytes.
    pub size: u64,
}

/// What [`quarantine`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The journal `doppel undo` reads.
    pub journal: PathBuf,
    /// The files moved, in plan order.
    pub moved: Vec<Moved>,
    /// The files not moved and why, in words.
    pub problems: Vec<String>,
}

/// What [`undo`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndoReport {
    /// The journal read.
    pub journal: PathBuf,
    /// The files put back.
    pub restored: Vec<DocPath>,
    /// Files already back in their place (an earlier undo cut short).
    pub already_back: usize,
    /// The files left in the quarantine and why, in words.
    pub problems: Vec<String>,
}

/// What a file was when it was read: what a moved copy must match.
#[derive(Debug, Clone, Copy)]
struct Expected {
    size: u64,
    mtime_ns: i64,
    hash: u64,
}

/// The quarantine folder `dest` resolved, refused when it is the watched
/// folder `root` or inside it (after resolving symlinks).
pub fn quarantine_target(dest: &Path, root: &Path) -> Result<PathBuf> {
    let root = root.canonicalize().map_err(ActError::io("open", root))?;
    let resolved =
        resolve_lenient(dest).map_err(ActError::io("resolve the quarantine folder", dest))?;
    if resolved.starts_with(&root) {
        return Err(ActError::InsideFolder {
            quarantine: dest.to_path_buf(),
            root,
        });
    }
    Ok(resolved)
}

/// Move every ready file of `plan` from `root` into `dest` (see
/// [`quarantine_target`]), relative paths kept, journalled first.
pub fn quarantine(plan: &Plan, root: &Path, dest: &Path) -> Result<Outcome> {
    let dest = quarantine_target(dest, root)?;
    let root = root.canonicalize().map_err(ActError::io("open", root))?;
    fs::create_dir_all(&dest).map_err(ActError::io("create the quarantine folder", &dest))?;
    let started = now_ns();
    let mut journal = Writer::create(&dest.join(format!("{JOURNAL_PREFIX}{started:020}.jsonl")))?;
    journal.append(&Entry::Start {
        version: JOURNAL_VERSION,
        root_hex: journal::path_hex(&root),
        quarantine_hex: journal::path_hex(&dest),
        root: DocPath::from_relative(&root).to_string(),
        at_ns: started,
    })?;
    sync_dir(&dest).map_err(ActError::io("write the quarantine folder", &dest))?;
    let mut outcome = Outcome {
        journal: journal.path().to_path_buf(),
        moved: Vec::new(),
        problems: Vec::new(),
    };
    for marked in plan.ready() {
        let relative = marked.path.to_relative_path();
        let (from, to) = (root.join(&relative), dest.join(&relative));
        let expected = Expected {
            size: marked.size,
            mtime_ns: marked.mtime_ns,
            hash: marked.content_hash,
        };
        if let Err(why) = still_as_planned(&from, &expected) {
            outcome
                .problems
                .push(format!("{}: {why}; not moved", marked.path));
            continue;
        }
        if fs::symlink_metadata(&to).is_ok() {
            outcome.problems.push(format!(
                "{}: a file of that name is already in the quarantine; not moved",
                marked.path
            ));
            continue;
        }
        if let Some(parent) = to.parent() {
            if let Err(e) = fs::create_dir_all(parent) {
                outcome
                    .problems
                    .push(format!("{}: {e}; not moved", marked.path));
                continue;
            }
        }
        journal.append(&Entry::Move {
            doc_hex: hex::encode(marked.path.as_bytes()),
            doc: marked.path.to_string(),
            size: marked.size,
            mtime_ns: marked.mtime_ns,
            hash: format!("{:016x}", marked.content_hash),
        })?;
        match transfer(&from, &to, &expected, Transfer::IfNeeded) {
            Ok(()) => outcome.moved.push(Moved {
                path: marked.path.clone(),
                size: marked.size,
            }),
            Err(e) => outcome
                .problems
                .push(format!("{}: {e}; not moved", marked.path)),
        }
    }
    Ok(outcome)
}

/// Whether the file at `from` still has the size and mtime it was planned
/// with (the plan may have waited for a confirmation).
fn still_as_planned(from: &Path, expected: &Expected) -> Result<(), String> {
    let meta = fs::symlink_metadata(from).map_err(|e| e.to_string())?;
    let now = FileIdentity::from_metadata(&meta);
    if !meta.file_type().is_file() || now.size != expected.size || now.mtime_ns != expected.mtime_ns
    {
        return Err("changed since the plan".into());
    }
    Ok(())
}

/// Put back every file the journal at `journal_path` moved, newest first,
/// from the folder that holds the journal.
/// A file that has reappeared at its old path is never overwritten: the
/// quarantined one stays and the problem says so. A journal whose files
/// are all back is closed with an `undone` line.
pub fn undo(journal_path: &Path) -> Result<UndoReport> {
    let entries = journal::read(journal_path)?;
    let bad = |line: usize, reason: &str| ActError::Journal {
        journal: journal_path.to_path_buf(),
        line,
        reason: reason.to_string(),
    };
    let Some(Entry::Start {
        root_hex,
        quarantine_hex,
        ..
    }) = entries.first()
    else {
        return Err(bad(1, "it does not begin with a start line"));
    };
    let root = journal::path_from_hex(root_hex).map_err(|e| bad(1, &e))?;
    // The journal lies at the top of its quarantine: a quarantine moved
    // elsewhere as a whole is still found; the recorded one only if the
    // journal's folder cannot be told.
    let dest = match journal_path.parent() {
        Some(folder) if !folder.as_os_str().is_empty() => folder.to_path_buf(),
        Some(_) => PathBuf::from("."),
        None => journal::path_from_hex(quarantine_hex).map_err(|e| bad(1, &e))?,
    };
    let mut report = UndoReport {
        journal: journal_path.to_path_buf(),
        restored: Vec::new(),
        already_back: 0,
        problems: Vec::new(),
    };
    for (n, entry) in entries.iter().enumerate().rev() {
        let Entry::Move {
            doc_hex,
            size,
            mtime_ns,
            hash,
            ..
        } = entry
        else {
            continue;
        };
        let doc = hex::decode(doc_hex)
            .map(DocPath::from_bytes)
            .map_err(|e| bad(n + 1, &e.to_string()))?;
        let hash = u64::from_str_radix(hash, 16).map_err(|e| bad(n + 1, &e.to_string()))?;
        let expected = Expected {
            size: *size,
            mtime_ns: *mtime_ns,
            hash,
        };
        let relative = doc.to_relative_path();
        let (home, held) = (root.join(&relative), dest.join(&relative));
        match put_back(&held, &home, &expected) {
            Ok(PutBack::Restored) => report.restored.push(doc),
            Ok(PutBack::AlreadyBack) => report.already_back += 1,
            Err(why) => report.problems.push(format!("{doc}: {why}")),
        }
    }
    if report.problems.is_empty() {
        Writer::reopen(journal_path)?.append(&Entry::Undone { at_ns: now_ns() })?;
    }
    Ok(report)
}

/// [`undo`] every journal in the quarantine folder not yet undone, newest
/// first.
pub fn undo_all(quarantine: &Path) -> Result<Vec<UndoReport>> {
    journal::open_journals(quarantine)?
        .iter()
        .map(|j| undo(j))
        .collect()
}

enum PutBack {
    Restored,
    AlreadyBack,
}

/// Move the quarantined `held` back to `home`, or say why not.
fn put_back(held: &Path, home: &Path, expected: &Expected) -> Result<PutBack, String> {
    let home_taken = fs::symlink_metadata(home).is_ok();
    if fs::symlink_metadata(held).is_err() {
        // Gone from the quarantine: back already if the file at home is it.
        if home_taken && matches_bytes(home, expected) {
            return Ok(PutBack::AlreadyBack);
        }
        return Err("no longer in the quarantine".into());
    }
    if home_taken {
        return Err(format!(
            "a file has reappeared at {}; doppel never overwrites it, the quarantined copy stays at {}",
            DocPath::from_relative(home),
            DocPath::from_relative(held)
        ));
    }
    if !matches_bytes(held, expected) {
        return Err(format!(
            "the quarantined file {} changed since it was moved; left there",
            DocPath::from_relative(held)
        ));
    }
    if let Some(parent) = home.parent() {
        fs::create_dir_all(parent).map_err(|e| e.to_string())?;
    }
    transfer(held, home, expected, Transfer::IfNeeded).map_err(|e| e.to_string())?;
    Ok(PutBack::Restored)
}

/// Whether the file at `path` has the expected size and content.
fn matches_bytes(path: &Path, expected: &Expected) -> bool {
    file_content_hash(path).is_ok_and(|(hash, len)| len == expected.size && hash == expected.hash)
}

/// How [`transfer`] may move a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Transfer {
    /// Link then unlink; copy only where that fails (another device).
    IfNeeded,
    /// Always copy (what a move across devices does).
    #[cfg(test)]
    Always,
}

/// Move `from` to `to`, never over an existing `to`, the mtime kept.
fn transfer(from: &Path, to: &Path, expected: &Expected, how: Transfer) -> io::Result<()> {
    if how == Transfer::IfNeeded {
        match fs::hard_link(from, to) {
            Ok(()) => {
                if let Err(e) = fs::remove_file(from) {
                    // Leave one name, the original.
                    let _ = fs::remove_file(to);
                    return Err(e);
                }
                sync_parent(to)?;
                return sync_parent(from);
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Err(e),
            // Another device, or links not supported: copy.
            Err(_) => {}
        }
    }
    copy_across(from, to, expected)
}

/// Copy `from` beside `to`, fsync, read back and compare, give it the
/// recorded mtime, put it in place and only then remove `from`.
fn copy_across(from: &Path, to: &Path, expected: &Expected) -> io::Result<()> {
    let mut partial = to.as_os_str().to_owned();
    partial.push(".doppel-partial");
    let partial = PathBuf::from(partial);
    let result = (|| {
        let mut source = File::open(from)?;
        let mut copy = File::options()
            .write(true)
            .create_new(true)
            .open(&partial)?;
        io::copy(&mut source, &mut copy)?;
        copy.set_modified(system_time(expected.mtime_ns))?;
        copy.sync_all()?;
        drop(copy);
        let (hash, len) = file_content_hash(&partial)?;
        if len != expected.size || hash != expected.hash {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "the copy does not match the file's recorded bytes",
            ));
        }
        if fs::symlink_metadata(to).is_ok() {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                "a file of that name appeared meanwhile",
            ));
        }
        fs::rename(&partial, to)?;
        sync_parent(to)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&partial);
        return result;
    }
    fs::remove_file(from)?;
    sync_parent(from)
}

/// Unix ns as a time.
fn system_time(ns: i64) -> SystemTime {
    let magnitude = Duration::from_nanos(ns.unsigned_abs());
    if ns >= 0 {
        UNIX_EPOCH + magnitude
    } else {
        UNIX_EPOCH - magnitude
    }
}

/// Make a rename or removal in the folder holding `path` durable.
fn sync_parent(path: &Path) -> io::Result<()> {
    match path.parent() {
        Some(parent) => sync_dir(parent),
        None => Ok(()),
    }
}

/// fsync a folder (a no-op where folders cannot be opened, off unix).
fn sync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        File::open(dir)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::store::content_hash;

    fn expected_of(path: &Path) -> Expected {
        let meta = fs::metadata(path).unwrap();
        Expected {
            size: meta.len(),
            mtime_ns: FileIdentity::from_metadata(&meta).mtime_ns,
            hash: content_hash(&fs::read(path).unwrap()),
        }
    }

    fn write_old(path: &Path, bytes: &[u8]) {
        fs::write(path, bytes).unwrap();
        let when = UNIX_EPOCH + Duration::new(1_200_000_000, 987_654_321);
        File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(when)
            .unwrap();
    }

    #[test]
    fn a_move_across_devices_copies_every_byte_and_the_mtime() {
        let dir = tempfile::tempdir().unwrap();
        let (from, to) = (dir.path().join("a.txt"), dir.path().join("b.txt"));
        write_old(&from, b"every byte counts\n");
        let expected = expected_of(&from);
        let mtime = fs::metadata(&from).unwrap().modified().unwrap();
        transfer(&from, &to, &expected, Transfer::Always).unwrap();
        assert!(!from.exists());
        assert_eq!(fs::read(&to).unwrap(), b"every byte counts\n");
        assert_eq!(fs::metadata(&to).unwrap().modified().unwrap(), mtime);
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no partial file left"
        );
    }

    #[test]
    fn a_copy_that_does_not_match_the_record_leaves_the_original() {
        let dir = tempfile::tempdir().unwrap();
        let (from, to) = (dir.path().join("a.txt"), dir.path().join("b.txt"));
        write_old(&from, b"the bytes on disk");
        let recorded = Expected {
            hash: content_hash(b"other bytes, once"),
            ..expected_of(&from)
        };
        let err = transfer(&from, &to, &recorded, Transfer::Always).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert_eq!(fs::read(&from).unwrap(), b"the bytes on disk");
        assert!(!to.exists());
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no partial file left"
        );
    }

    #[test]
    fn a_move_never_overwrites_the_target() {
        let dir = tempfile::tempdir().unwrap();
        let (from, to) = (dir.path().join("a.txt"), dir.path().join("b.txt"));
        write_old(&from, b"moving");
        fs::write(&to, b"already here").unwrap();
        let expected = expected_of(&from);
        for how in [Transfer::IfNeeded, Transfer::Always] {
            let err = transfer(&from, &to, &expected, how).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
            assert_eq!(fs::read(&to).unwrap(), b"already here");
            assert_eq!(fs::read(&from).unwrap(), b"moving");
        }
    }
}
