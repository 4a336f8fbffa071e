//! A file swapped after the folder was listed (issue 47): a listed file
//! replaced by a symbolic link to a file outside the folder, by a FIFO, by
//! another file, or a listed file's folder replaced by a link to a folder
//! outside. Whatever the swap, the scan neither hangs nor reads what is
//! not the listed file: the file is skipped as "changed while being read",
//! no pair or print holds the outside text, and an index looks at it again
//! on its next pass.
//!
//! The swap is made between the listing and the first read, through the
//! progress callback both a scan and a reconcile call once they have
//! listed the folder and before they read any file (`done == 0`): no race.
#![cfg(unix)]

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use doppel_core::doc::DocPath;
use doppel_core::engine::Engine;
use doppel_index::collection::Skip;
use doppel_index::index::{FolderIndex, ReadProgress};
use doppel_index::scan::{scan_folder_with, ScanHooks, ScanReport};
use doppel_pairing::cluster::ClusterSpec;
use doppel_pairing::library::LibraryConfig;

/// Only a guard against a hang (which would otherwise stop the test run
/// for ever), never a timing assertion.
const HANG_GUARD: Duration = Duration::from_secs(120);

/// How the listed file (or its folder) is swapped.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Swap {
    /// `victim.txt` becomes a symbolic link to the outside twin.
    LinkOutside,
    /// `victim.txt` becomes a FIFO nobody writes to.
    Fifo,
    /// `victim.txt` is replaced (renamed over) by another regular file,
    /// which holds the twin's text.
    OtherFile,
    /// `sub/`, where `sub/victim.txt` was listed, becomes a symbolic link
    /// to an outside folder holding a `victim.txt` with the twin's text.
    FolderLinkOutside,
}

/// A folder to scan (`root`) and an outside one (`outside`) holding
/// `twin.txt`, a copy of the folder's `keep.txt`: the twin read under the
/// victim's name would pair with `keep.txt`.
struct Setup {
    _dir: tempfile::TempDir,
    dir: PathBuf,
    root: PathBuf,
    outside: PathBuf,
    /// The victim's path relative to `root`.
    victim: &'static str,
}

fn sample(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("sample-corpus")
        .join(name);
    fs::read_to_string(path).unwrap()
}

fn setup(swap: Swap) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("folder");
    let outside = dir.path().join("outside");
    fs::create_dir_all(root.join("sub")).unwrap();
    fs::create_dir_all(&outside).unwrap();
    let twin = sample("moby/moby-dick-ch1.txt");
    fs::write(root.join("keep.txt"), &twin).unwrap();
    fs::write(outside.join("twin.txt"), &twin).unwrap();
    fs::write(root.join("other.txt"), sample("austen/emma-ch1.txt")).unwrap();
    let victim = match swap {
        Swap::FolderLinkOutside => "sub/victim.txt",
        _ => "victim.txt",
    };
    fs::write(root.join(victim), sample("misc/gettysburg.txt")).unwrap();
    fs::write(
        root.join("sub/also.txt"),
        sample("austen/persuasion-ch1.txt"),
    )
    .unwrap();
    Setup {
        dir: dir.path().to_path_buf(),
        _dir: dir,
        root,
        outside,
        victim,
    }
}

impl Setup {
    fn swap(&self, swap: Swap) {
        let victim = self.root.join(self.victim);
        match swap {
            Swap::LinkOutside => {
                let tmp = self.root.join("victim.tmp-link");
                std::os::unix::fs::symlink(self.outside.join("twin.txt"), &tmp).unwrap();
                fs::rename(&tmp, &victim).unwrap();
            }
            Swap::Fifo => {
                fs::remove_file(&victim).unwrap();
                let status = std::process::Command::new("mkfifo")
                    .arg(&victim)
                    .status()
                    .expect("mkfifo");
                assert!(status.success());
            }
            Swap::OtherFile => {
                let tmp = self.dir.join("replacement.txt");
                fs::copy(self.outside.join("twin.txt"), &tmp).unwrap();
                fs::rename(&tmp, &victim).unwrap();
            }
            Swap::FolderLinkOutside => {
                let elsewhere = self.outside.join("sub");
                fs::create_dir_all(&elsewhere).unwrap();
                fs::copy(self.outside.join("twin.txt"), elsewhere.join("victim.txt")).unwrap();
                fs::copy(self.root.join("sub/also.txt"), elsewhere.join("also.txt")).unwrap();
                fs::rename(self.root.join("sub"), self.dir.join("old-sub")).unwrap();
                std::os::unix::fs::symlink(&elsewhere, self.root.join("sub")).unwrap();
            }
        }
    }

    /// Put a regular file back where the victim was (its folder too).
    fn restore(&self, swap: Swap) {
        if swap == Swap::FolderLinkOutside {
            fs::remove_file(self.root.join("sub")).unwrap();
            fs::rename(self.dir.join("old-sub"), self.root.join("sub")).unwrap();
        } else {
            fs::remove_file(self.root.join(self.victim)).unwrap();
            fs::write(self.root.join(self.victim), sample("misc/gettysburg.txt")).unwrap();
        }
    }
}

/// `run` on a thread of its own: its result, or a panic if it hangs (the
/// bug this file is about; a FIFO then blocks `open` for ever).
fn unhung<T: Send + 'static>(what: &str, run: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(run());
    });
    match rx.recv_timeout(HANG_GUARD) {
        Ok(result) => result,
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("{what} hung on a swapped file"),
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("{what} panicked"),
    }
}

/// A one-shot scan (`scan --no-index`) of `setup.root` with `swap` made
/// once the folder is listed, before any file is read.
fn scan_swapped(setup: Setup, swap: Swap) -> (Setup, ScanReport) {
    unhung("the scan", move || {
        let engine = Engine::default();
        let spec = ClusterSpec::from_engine(&engine);
        let swapped = AtomicBool::new(false);
        let progress = |p: ReadProgress| {
            if p.done == 0 && !swapped.swap(true, Ordering::SeqCst) {
                setup.swap(swap);
            }
        };
        let hooks = ScanHooks {
            progress: Some(&progress),
            // A file at a time: the swap could not wait for another's read.
            read_chunk_files: Some(1),
            ..ScanHooks::default()
        };
        let weights = engine.reference_weights();
        let report = scan_folder_with(
            &setup.root,
            &engine,
            weights,
            LibraryConfig::default(),
            spec,
            &hooks,
        )
        .expect("scan");
        assert!(swapped.load(Ordering::SeqCst), "the swap was never made");
        (setup, report)
    })
}

fn skip_of(report: &ScanReport, doc: &str) -> Option<Skip> {
    let doc = DocPath::from_relative(Path::new(doc));
    report
        .docs
        .iter()
        .find(|d| d.path == doc)
        .unwrap_or_else(|| panic!("{doc} is not listed"))
        .skipped
        .clone()
}

fn pairs(report: &ScanReport) -> Vec<(String, String)> {
    report
        .pairs()
        .iter()
        .map(|p| (p.a.to_string(), p.b.to_string()))
        .collect()
}

/// What a user must see after a swap: the victim skipped as changed, not
/// in the library, in no pair (`keep.txt` pairs with nothing: only the
/// outside twin would be its copy); every other file indexed.
fn assert_swapped_file_skipped(report: &ScanReport, victim: &str, swap: Swap) {
    assert_eq!(
        skip_of(report, victim),
        Some(Skip::Changed),
        "{swap:?}: {victim} must be skipped as changed while being read"
    );
    let doc = DocPath::from_relative(Path::new(victim));
    assert!(
        report.library.id_of(&doc).is_none(),
        "{swap:?}: {victim} was indexed (the outside file's text under its name)"
    );
    assert_eq!(pairs(report), Vec::<(String, String)>::new(), "{swap:?}");
    for other in ["keep.txt", "other.txt"] {
        assert_eq!(skip_of(report, other), None, "{swap:?}: {other}");
    }
}

#[test]
fn a_one_shot_scan_skips_a_file_swapped_for_a_link_outside() {
    let (setup, report) = scan_swapped(setup(Swap::LinkOutside), Swap::LinkOutside);
    assert_swapped_file_skipped(&report, setup.victim, Swap::LinkOutside);
}

#[test]
fn a_one_shot_scan_skips_a_file_swapped_for_a_fifo_without_hanging() {
    let (setup, report) = scan_swapped(setup(Swap::Fifo), Swap::Fifo);
    assert_swapped_file_skipped(&report, setup.victim, Swap::Fifo);
}

#[test]
fn a_one_shot_scan_skips_a_file_swapped_for_another_file() {
    let (setup, report) = scan_swapped(setup(Swap::OtherFile), Swap::OtherFile);
    assert_swapped_file_skipped(&report, setup.victim, Swap::OtherFile);
}

#[test]
fn a_one_shot_scan_skips_a_file_whose_folder_became_a_link_outside() {
    let swap = Swap::FolderLinkOutside;
    let (setup, report) = scan_swapped(setup(swap), swap);
    assert_swapped_file_skipped(&report, setup.victim, swap);
    // The other file of the swapped folder was listed there too: it is no
    // more read through the link than the victim.
    assert_eq!(skip_of(&report, "sub/also.txt"), Some(Skip::Changed));
}

/// One reconcile of the index at `index` over `root`, with `swap` (if
/// any) made once the folder is listed; its report.
fn reconcile(setup: Setup, index: PathBuf, swap: Option<Swap>) -> (Setup, ScanReport) {
    unhung("the reconcile", move || {
        let engine = Engine::default();
        let spec = ClusterSpec::from_engine(&engine);
        let (mut folder, _) =
            FolderIndex::open(&setup.root, engine, LibraryConfig::default(), Some(&index)).unwrap();
        let mut swapped = swap.is_none();
        let reconciled = folder
            .reconcile_with(&mut |p| {
                if p.done == 0 && !swapped {
                    swapped = true;
                    setup.swap(swap.unwrap());
                }
                true
            })
            .unwrap();
        assert!(swapped, "the swap was never made");
        let report = ScanReport::from_index(folder, spec, &reconciled).unwrap();
        (setup, report)
    })
}

/// An index's pass skips the swapped file as changed (nothing of it
/// stored), its next pass looks at it again (`next`: what it now is, as
/// `listed` says), and once it is a regular file again the pass after that
/// indexes it.
fn index_looks_again(swap: Swap, listed: &str, next: Option<Skip>) {
    let setup = setup(swap);
    let index = setup.dir.join("state/index.sqlite");
    let victim = setup.victim;
    let (setup, first) = reconcile(setup, index.clone(), Some(swap));
    assert_swapped_file_skipped(&first, victim, swap);
    let (setup, second) = reconcile(setup, index.clone(), None);
    assert_eq!(skip_of(&second, listed), next, "{swap:?}: the next pass");
    assert_eq!(pairs(&second), Vec::<(String, String)>::new(), "{swap:?}");
    setup.restore(swap);
    let (_setup, third) = reconcile(setup, index, None);
    assert_eq!(skip_of(&third, victim), None, "{swap:?}: restored");
    assert_eq!(pairs(&third), Vec::<(String, String)>::new(), "{swap:?}");
}

fn recorded(reason: &str) -> Option<Skip> {
    Some(Skip::Recorded {
        reason: reason.to_owned(),
    })
}

#[test]
fn an_index_skips_a_file_swapped_for_a_link_outside_and_looks_again() {
    index_looks_again(
        Swap::LinkOutside,
        "victim.txt",
        recorded("not a regular file (symbolic link (not followed))"),
    );
}

#[test]
fn an_index_skips_a_file_swapped_for_a_fifo_and_looks_again() {
    index_looks_again(
        Swap::Fifo,
        "victim.txt",
        recorded("not a regular file (FIFO)"),
    );
}

#[test]
fn an_index_skips_a_file_swapped_for_another_file_and_reads_it_next_time() {
    let swap = Swap::OtherFile;
    let setup = setup(swap);
    let index = setup.dir.join("state/index.sqlite");
    let victim = setup.victim;
    let (setup, first) = reconcile(setup, index.clone(), Some(swap));
    assert_swapped_file_skipped(&first, victim, swap);
    // The replacement is a regular file of the folder now: read, and a
    // copy of keep.txt.
    let (_setup, second) = reconcile(setup, index, None);
    assert_eq!(skip_of(&second, victim), None);
    assert_eq!(
        pairs(&second),
        vec![("keep.txt".to_owned(), victim.to_owned())]
    );
}

#[test]
fn an_index_skips_a_file_whose_folder_became_a_link_outside_and_looks_again() {
    // The link itself is listed next time; what it points to is not read.
    index_looks_again(
        Swap::FolderLinkOutside,
        "sub",
        recorded("not a regular file (symbolic link (not followed))"),
    );
}
