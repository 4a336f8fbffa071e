//! Moving marked files into the quarantine and back. A file moves by a
//! hard link then the removal of its old name (never over an existing
//! file, mtime untouched), or, across devices or where links are not
//! supported, by a copy that is fsynced, read back and compared with the
//! recorded hash, given the recorded mtime, and only then put in place and
//! the original removed: no byte is lost on any path. The journal line of
//! a file reaches the disk before it moves.
//!
//! A journal is data, not authority: [`undo`] puts a file back only into
//! the folder the journal was written for when the user names that folder
//! too, or doppel's own record of its acts ([`ActRecords`]) holds the
//! journal as written for it; only to a path that stays inside it, through
//! real folders (no symbolic link on the way, in the folder or in the
//! quarantine); and only a regular file whose bytes hash as the journal
//! says. Every other entry is refused and named, and the rest undone.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use doppel_core::doc::{DocPath, FileIdentity};
use doppel_store::{file_content_hash, now_ns, resolve_lenient};

use super::journal::{self, Entry, Writer, JOURNAL_PREFIX, JOURNAL_VERSION};
use super::plan::Plan;
use super::records::ActRecords;
use super::{ActError, Result};

/// The suffix of a copy being made beside its target (a move across
/// devices copies first); one left in the quarantine by a move cut short
/// is cleaned by [`undo`].
pub const PARTIAL_SUFFIX: &str = ".doppel-partial";

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
    /// The files left in the quarantine, and the entries refused, and why,
    /// in words.
    pub problems: Vec<String>,
    /// The files whose partial copy (left in the quarantine by a move cut
    /// short) was removed, the file itself being safe elsewhere.
    pub partials_removed: Vec<DocPath>,
}

/// Which folder [`undo`] may put files back into. A journal names the
/// folder its files came from, but it lies in the quarantine, where
/// others may write: its word alone is never enough.
#[derive(Debug, Clone, Copy)]
pub enum UndoInto<'a> {
    /// The folder the user names (`doppel undo --folder`; the review
    /// screen's own): a journal written for another folder is refused.
    Folder(&'a Path),
    /// No folder named: the journal's, when doppel's record of its acts
    /// holds the journal as written for it (`None`, no record: every
    /// journal is refused, naming its folder).
    Recorded(Option<&'a ActRecords>),
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
/// [`quarantine_target`]), relative paths kept, journalled first. The act
/// is added to `records` (when given) before any file moves, so that
/// [`undo`] takes the journal's word for its folder without the user
/// naming it; a record that cannot be written stops the act there.
pub fn quarantine(
    plan: &Plan,
    root: &Path,
    dest: &Path,
    records: Option<&ActRecords>,
) -> Result<Outcome> {
    let dest = quarantine_target(dest, root)?;
    let root = root.canonicalize().map_err(ActError::io("open", root))?;
    fs::create_dir_all(&dest).map_err(ActError::io("create the quarantine folder", &dest))?;
    let started = now_ns();
    let mut journal = Writer::create(&dest.join(format!("{JOURNAL_PREFIX}{started:020}.jsonl")))?;
    let root_hex = journal::path_hex(&root);
    journal.append(&Entry::Start {
        version: JOURNAL_VERSION,
        root_hex: root_hex.clone(),
        quarantine_hex: journal::path_hex(&dest),
        root: DocPath::from_relative(&root).to_string(),
        at_ns: started,
    })?;
    sync_dir(&dest).map_err(ActError::io("write the quarantine folder", &dest))?;
    if let Some(records) = records {
        records.add(journal.path(), started, &root_hex)?;
    }
    let mut outcome = Outcome {
        journal: journal.path().to_path_buf(),
        moved: Vec::new(),
        problems: Vec::new(),
    };
    for marked in plan.ready() {
        let Some(relative) = marked.path.to_contained_path() else {
            outcome.problems.push(format!(
                "{}: not a path inside the folder; not moved",
                marked.path
            ));
            continue;
        };
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

/// Why one file is not moved, or not put back (or a journal's files not
/// at all): what an [`Outcome`]'s or an [`UndoReport`]'s problem says
/// after the file.
#[derive(Debug, thiserror::Error)]
enum Refusal {
    /// The file system refused (the file is gone, a folder cannot be
    /// made, the move failed).
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The file is no longer as planned.
    #[error("changed since the plan")]
    Changed,
    /// The journal's folder is not hex.
    #[error("its folder does not read ({0})")]
    FolderHex(#[source] hex::FromHexError),
    /// The folder the user named cannot be resolved.
    #[error("cannot open folder {}: {error}", folder.display())]
    NamedFolder {
        folder: PathBuf,
        #[source]
        error: io::Error,
    },
    /// The folder the user named is not the journal's.
    #[error("written for the folder {recorded}, not {named}")]
    OtherFolder { recorded: DocPath, named: DocPath },
    /// Nothing vouches for the journal's folder.
    #[error(
        "doppel has no record of moving these files out of {recorded} (a journal from \
         elsewhere, or edited); if that folder is yours, name it: doppel undo {} --folder \
         {recorded}",
        journal.display()
    )]
    NoRecord { recorded: DocPath, journal: PathBuf },
    /// The journal's folder is gone (or a link stands in its place).
    #[error("the folder {0} is not there")]
    FolderGone(DocPath),
    /// The file has left the quarantine.
    #[error("no longer in the quarantine")]
    NotInQuarantine,
    /// A file is at the old path again.
    #[error(
        "a file has reappeared at {home}; doppel never overwrites it, the quarantined copy \
         stays at {held}"
    )]
    Reappeared { home: DocPath, held: DocPath },
    /// The quarantined entry is a link or a folder.
    #[error("{0} is not a regular file (a link or a folder); left there")]
    NotAFile(DocPath),
    /// The quarantined file's bytes are not the journal's.
    #[error(
        "the quarantined file {0} changed since it was moved (its bytes are not the \
         journal's); left there"
    )]
    Altered(DocPath),
    /// A folder on the way is a link or a file.
    #[error("{0} is not a folder (a link or a file); nothing put back through it")]
    NotAFolder(DocPath),
}

/// Whether the file at `from` still has the size and mtime it was planned
/// with (the plan may have waited for a confirmation).
fn still_as_planned(from: &Path, expected: &Expected) -> Result<(), Refusal> {
    let meta = fs::symlink_metadata(from)?;
    let now = FileIdentity::from_metadata(&meta);
    if !meta.file_type().is_file() || now.size != expected.size || now.mtime_ns != expected.mtime_ns
    {
        return Err(Refusal::Changed);
    }
    Ok(())
}

/// Put back every file the journal at `journal_path` moved, newest first,
/// from the folder that holds the journal, into the journal's folder as
/// `into` allows (see [`UndoInto`]; a journal it does not allow is
/// refused whole, named in the report's problems, nothing written).
/// Each entry is put back only to a path inside that folder
/// ([`DocPath::to_contained_path`]), through real folders, from a regular
/// file of the quarantine whose bytes are the journal's; any other is
/// refused and named, and the others are still put back. A file that has
/// reappeared at its old path is never overwritten: the quarantined one
/// stays and the problem says so. A partial copy a move cut short left in
/// the quarantine is removed when the file is safe (back, or still in the
/// quarantine whole), else named. A journal whose files are all back is
/// closed with an `undone` line. `Err` only when the journal cannot be read.
pub fn undo(journal_path: &Path, into: UndoInto<'_>) -> Result<UndoReport> {
    let (entries, unreadable) = journal::read_lenient(journal_path)?;
    let mut report = UndoReport {
        journal: journal_path.to_path_buf(),
        restored: Vec::new(),
        already_back: 0,
        problems: unreadable,
        partials_removed: Vec::new(),
    };
    let named = journal_path.display();
    let root = match entries.first() {
        Some((
            1,
            Entry::Start {
                root_hex, at_ns, ..
            },
        )) => match allowed_root(journal_path, root_hex, *at_ns, into) {
            Ok(root) => root,
            Err(why) => {
                report
                    .problems
                    .push(format!("{named}: {why}; nothing put back"));
                return Ok(report);
            }
        },
        _ => {
            report.problems.push(format!(
                "{named}: not a doppel journal (it does not begin with a start line); \
                 nothing put back"
            ));
            return Ok(report);
        }
    };
    // The journal lies at the top of its quarantine: a quarantine moved
    // elsewhere as a whole is still found.
    let dest = match journal_path.parent() {
        Some(folder) if !folder.as_os_str().is_empty() => folder.to_path_buf(),
        _ => PathBuf::from("."),
    };
    for (line, entry) in entries.iter().rev() {
        let Entry::Move {
            doc_hex,
            doc: shown,
            size,
            mtime_ns,
            hash,
        } = entry
        else {
            continue;
        };
        let (Ok(bytes), Ok(hash)) = (hex::decode(doc_hex), u64::from_str_radix(hash, 16)) else {
            report.problems.push(format!(
                "{named}, line {line}: {shown:?} is not a journal entry (its path or hash does \
                 not read); nothing put back for it"
            ));
            continue;
        };
        let doc = DocPath::from_bytes(bytes);
        let Some(relative) = doc.to_contained_path() else {
            report.problems.push(format!(
                "{doc}: not a relative path inside {} (an absolute path, `..`, or a root \
                 or drive component: the journal was edited); nothing put back there",
                root.display()
            ));
            continue;
        };
        let expected = Expected {
            size: *size,
            mtime_ns: *mtime_ns,
            hash,
        };
        let put = put_back(&dest, &root, &relative, &expected);
        let safe = match put {
            Ok(PutBack::Restored) => {
                report.restored.push(doc.clone());
                true
            }
            Ok(PutBack::AlreadyBack) => {
                report.already_back += 1;
                true
            }
            Err(ref why) => {
                report.problems.push(format!("{doc}: {why}"));
                [dest.join(&relative), root.join(&relative)]
                    .iter()
                    .any(|p| matches_bytes(p, &expected))
            }
        };
        clean_partial(&dest, &relative, &doc, safe, &mut report);
        if matches!(put, Ok(PutBack::Restored)) {
            remove_emptied_folders(&dest, &relative);
        }
    }
    if report.problems.is_empty() {
        Writer::reopen(journal_path)?.append(&Entry::Undone { at_ns: now_ns() })?;
    }
    Ok(report)
}

/// The folder the journal at `journal` (started at `at_ns`) was written
/// for, `root_hex`, if `into` allows files back into it; else why not.
fn allowed_root(
    journal: &Path,
    root_hex: &str,
    at_ns: i64,
    into: UndoInto<'_>,
) -> Result<PathBuf, Refusal> {
    let root = journal::path_from_hex(root_hex).map_err(Refusal::FolderHex)?;
    let shown = DocPath::from_relative(&root);
    match into {
        UndoInto::Folder(folder) => {
            let named = folder
                .canonicalize()
                .map_err(|error| Refusal::NamedFolder {
                    folder: folder.to_path_buf(),
                    error,
                })?;
            if named != root {
                return Err(Refusal::OtherFolder {
                    recorded: shown,
                    named: DocPath::from_relative(&named),
                });
            }
        }
        UndoInto::Recorded(records) => {
            if !records.is_some_and(|r| r.vouches_for(journal, at_ns, root_hex)) {
                return Err(Refusal::NoRecord {
                    recorded: shown,
                    journal: journal.to_path_buf(),
                });
            }
        }
    }
    // Recorded canonical: a folder gone, or a link put in its place since,
    // is not where the files came from.
    if root.canonicalize().ok().as_deref() != Some(root.as_path()) || !root.is_dir() {
        return Err(Refusal::FolderGone(shown));
    }
    Ok(root)
}

/// Remove the folders of the quarantine `dest` that held `relative` and
/// are empty now it is back, deepest first, so an undone act leaves no
/// tree of empty folders behind. Only empty real folders go (`remove_dir`
/// refuses anything else), never `dest` itself, and the first that stays
/// ends the walk.
fn remove_emptied_folders(dest: &Path, relative: &Path) {
    let mut folder = relative.parent();
    while let Some(part) = folder.filter(|f| !f.as_os_str().is_empty()) {
        if fs::remove_dir(dest.join(part)).is_err() {
            break;
        }
        folder = part.parent();
    }
}

/// Remove the partial copy of `relative` a move cut short left in the
/// quarantine `dest` when the file is `safe` (back in its place, or whole
/// in the quarantine); else name it.
fn clean_partial(dest: &Path, relative: &Path, doc: &DocPath, safe: bool, report: &mut UndoReport) {
    let mut partial = dest.join(relative).into_os_string();
    partial.push(PARTIAL_SUFFIX);
    let partial = PathBuf::from(partial);
    // Only through real folders of the quarantine: never a file elsewhere.
    if !matches!(real_folders(dest, relative, false), Ok(true))
        || !fs::symlink_metadata(&partial).is_ok_and(|m| m.is_file())
    {
        return;
    }
    let shown = DocPath::from_relative(&partial);
    if !safe {
        report.problems.push(format!(
            "{doc}: a partial copy, {shown}, is left in the quarantine by a move cut short; \
             the file is neither back nor whole in the quarantine, so it stays"
        ));
        return;
    }
    match fs::remove_file(&partial) {
        Ok(()) => report.partials_removed.push(doc.clone()),
        Err(e) => report.problems.push(format!(
            "{doc}: cannot remove the partial copy {shown}: {e}"
        )),
    }
}

/// [`undo`] every journal in the quarantine folder not yet undone, newest
/// first; one that cannot be read is a report naming why, and the others
/// are still undone.
pub fn undo_all(quarantine: &Path, into: UndoInto<'_>) -> Result<Vec<UndoReport>> {
    Ok(journal::open_journals(quarantine)?
        .iter()
        .map(|j| {
            undo(j, into).unwrap_or_else(|e| UndoReport {
                journal: j.clone(),
                restored: Vec::new(),
                already_back: 0,
                problems: vec![e.to_string()],
                partials_removed: Vec::new(),
            })
        })
        .collect())
}

enum PutBack {
    Restored,
    AlreadyBack,
}

/// Move the quarantined `dest/relative` back to `root/relative`, or say
/// why not.
fn put_back(
    dest: &Path,
    root: &Path,
    relative: &Path,
    expected: &Expected,
) -> Result<PutBack, Refusal> {
    let (held, home) = (dest.join(relative), root.join(relative));
    let home_taken = fs::symlink_metadata(&home).is_ok();
    let in_quarantine = real_folders(dest, relative, false)? && fs::symlink_metadata(&held).is_ok();
    if !in_quarantine {
        // Gone from the quarantine: back already if the file at home is it.
        if home_taken && matches_bytes(&home, expected) {
            return Ok(PutBack::AlreadyBack);
        }
        return Err(Refusal::NotInQuarantine);
    }
    if home_taken {
        return Err(Refusal::Reappeared {
            home: DocPath::from_relative(&home),
            held: DocPath::from_relative(&held),
        });
    }
    if !fs::symlink_metadata(&held).is_ok_and(|m| m.is_file()) {
        return Err(Refusal::NotAFile(DocPath::from_relative(&held)));
    }
    if !matches_bytes(&held, expected) {
        return Err(Refusal::Altered(DocPath::from_relative(&held)));
    }
    real_folders(root, relative, true)?;
    transfer(&held, &home, expected, Transfer::IfNeeded)?;
    Ok(PutBack::Restored)
}

/// Whether every folder between `base` and `relative`'s file is a real
/// folder (not a symbolic link, which could lead out of `base`): `false`
/// when one is missing, unless `create` makes it; an error naming one
/// that is a link or a file.
fn real_folders(base: &Path, relative: &Path, create: bool) -> Result<bool, Refusal> {
    let mut folder = base.to_path_buf();
    let parents = relative.parent().into_iter().flat_map(Path::components);
    for part in parents {
        folder.push(part);
        match fs::symlink_metadata(&folder) {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => return Err(Refusal::NotAFolder(DocPath::from_relative(&folder))),
            Err(e) if e.kind() == io::ErrorKind::NotFound && create => {
                fs::create_dir(&folder)?;
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
            Err(e) => return Err(e.into()),
        }
    }
    Ok(true)
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
    partial.push(PARTIAL_SUFFIX);
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
    use doppel_store::content_hash;

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
