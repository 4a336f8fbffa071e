//! The curator's "not boilerplate" on the folder index: overruling one
//! licence reads again only its own documents; an overrule and its restore
//! apply at once from the texts the index keeps (no file opened) and equal
//! a fresh index ruled from the start; a kept text failing its checksum is
//! read from its file instead; a document arriving under an overrule keeps
//! its text too. Reads the books of `tests/data/corpus/` (the small
//! generated library is made from them).

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::atomic::Ordering;

use doppel_core::doc::DocPath;
use doppel_core::engine::Engine;
use doppel_eval::library::LibraryCollection;
use doppel_index::index::FolderIndex;
use doppel_pairing::library::LibraryConfig;

mod common;
use common::boilerplate::{counted, indexed, longest_passage, scan, seen, small, state, write};

/// A fresh index of a copy of `library` written under `tmp`, `passage`
/// overruled before any file is read.
fn fresh_with_overruled(
    library: &LibraryCollection,
    tmp: &Path,
    passage: &doppel_index::boilerplate::PassageSummary,
) -> FolderIndex {
    let copy = tmp.join("copy");
    write(library, &copy, |_| true);
    let (mut fresh, _) = counted(&copy, &tmp.join("fresh.sqlite"));
    fresh.overrule_passage(passage, true).unwrap();
    fresh.reconcile().unwrap();
    fresh
}

/// Apply a ruling while the folder is moved away: a file opened by any
/// path at all would be missing (moving the folder stops root, which
/// file modes do not), and reading one changes what the index holds.
fn ruled_without_the_folder(
    index: &mut FolderIndex,
    dir: &Path,
    passage: &doppel_index::boilerplate::PassageSummary,
    overrule: bool,
) -> Vec<doppel_index::index::FileChange> {
    let away = dir.with_file_name("away");
    std::fs::rename(dir, &away).unwrap();
    let changes = index.overrule_passage(passage, overrule);
    std::fs::rename(&away, dir).unwrap();
    changes.unwrap()
}

/// The curator's "not boilerplate" on one licence reads again only the
/// documents that carry it: the generated licences share many sentences,
/// and those stay boilerplate in the other licences' documents.
#[test]
fn overruling_one_licence_respans_only_its_own_documents() {
    use doppel_index::index::FileChange;
    let library = small();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("folder");
    write(library, &dir, |_| true);
    let engine = Engine::default();
    let (mut index, _) = FolderIndex::open(
        &dir,
        engine,
        LibraryConfig::default(),
        Some(&tmp.path().join("index.sqlite")),
    )
    .unwrap();
    index.reconcile().unwrap();
    let before = index.boilerplate_report().unwrap();
    let longest = longest_passage(&index);
    assert!(longest.documents >= 3, "{longest:?}");
    let changes = index.overrule_passage(&longest, true).unwrap();
    let read: BTreeSet<DocPath> = changes
        .into_iter()
        .filter_map(|c| match c {
            FileChange::Reprinted { path } => Some(path),
            _ => None,
        })
        .collect();
    let members: BTreeSet<DocPath> = longest.members.iter().cloned().collect();
    assert!(!read.is_empty());
    assert!(
        read.is_subset(&members),
        "read again beyond the licence's {} documents: {read:?}",
        members.len()
    );
    let after = index.boilerplate_report().unwrap();
    assert!(after.passages.iter().any(|p| p.overruled));
    assert!(
        after.learned().count() + 1 >= before.passages.len(),
        "other licences were lost: {} learned before, {} after",
        before.passages.len(),
        after.learned().count()
    );
}

/// Issue 14: an overrule, and its restore, apply at once without reading
/// a file (the documents that move are fingerprinted again from the texts
/// the index keeps), and leave the index exactly as a fresh index that had
/// the passage overruled from the start (then as a fresh scan).
#[test]
fn overruling_and_restoring_a_passage_reads_no_file_and_equals_a_fresh_index() {
    use doppel_index::index::FileChange;
    let library = small();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("folder");
    let at = tmp.path().join("index.sqlite");
    write(library, &dir, |_| true);
    let (mut index, _) = counted(&dir, &at);
    index.reconcile().unwrap();
    drop(index);
    // Reopened as `doppel boilerplate DIR --overrule N` does: the learner
    // is built from the store.
    let (mut index, reads) = counted(&dir, &at);
    assert_eq!(index.reconcile().unwrap().read, 0);
    let before = state(&index);
    let longest = longest_passage(&index);
    let changes = ruled_without_the_folder(&mut index, &dir, &longest, true);
    assert_eq!(reads.load(Ordering::SeqCst), 0, "files read: {changes:?}");
    assert!(
        !changes.is_empty()
            && changes
                .iter()
                .all(|c| matches!(c, FileChange::Reprinted { .. })),
        "{changes:?}"
    );
    // A fresh index of a copy, the passage overruled before a file is read.
    let fresh = fresh_with_overruled(library, tmp.path(), &longest);
    let overruled = state(&index);
    assert_ne!(overruled, before);
    assert_eq!(overruled, state(&fresh));
    // Restored: back to what it was, still without reading a file.
    let changes = ruled_without_the_folder(&mut index, &dir, &longest, false);
    assert_eq!(reads.load(Ordering::SeqCst), 0, "files read: {changes:?}");
    assert!(!changes.is_empty());
    assert_eq!(state(&index), before);
    // What was written is what a fresh scan gives.
    drop(index);
    let (report, read) = indexed(&dir, &at);
    assert_eq!(read, 0);
    assert_eq!(seen(&report), seen(&scan(&dir, LibraryConfig::default())));
}

/// A kept text that fails its checksum is not used: that document is read
/// from its file (the others still are not), and the result is the same.
#[test]
fn a_corrupt_kept_text_is_read_from_its_file_instead() {
    let library = small();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("folder");
    let at = tmp.path().join("index.sqlite");
    write(library, &dir, |_| true);
    let (mut index, _) = counted(&dir, &at);
    index.reconcile().unwrap();
    let longest = longest_passage(&index);
    drop(index);
    let victim = longest.members[0].clone();
    rusqlite::Connection::open(&at)
        .unwrap()
        .execute(
            "UPDATE document_texts SET checksum = checksum + 1 \
             WHERE id = (SELECT id FROM documents WHERE path = ?1)",
            [victim.as_bytes()],
        )
        .unwrap();
    let (mut index, reads) = counted(&dir, &at);
    index.reconcile().unwrap();
    index.overrule_passage(&longest, true).unwrap();
    assert_eq!(reads.load(Ordering::SeqCst), 1, "only {victim} is read");
    let fresh = fresh_with_overruled(library, tmp.path(), &longest);
    assert_eq!(state(&index), state(&fresh));
}

/// A document that arrives while the passages it carries are overruled
/// (so it has no boilerplate) keeps its text too: restoring them moves it,
/// and still reads no file.
#[test]
fn a_document_arriving_under_an_overrule_is_restored_without_reading_it() {
    use doppel_index::index::FileChange;
    let library = small();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("folder");
    let at = tmp.path().join("index.sqlite");
    write(library, &dir, |_| true);
    let (mut index, reads) = counted(&dir, &at);
    index.reconcile().unwrap();
    let passages = index.boilerplate_report().unwrap().passages;
    let late = passages.iter().max_by_key(|p| p.words).unwrap().members[0].clone();
    // Overrule what `late` holds until it has no boilerplate left (the
    // licences' shared sentences come up as passages of their own).
    let mut overruled = Vec::new();
    for _ in 0..5 {
        let holding: Vec<_> = index
            .boilerplate_report()
            .unwrap()
            .learned()
            .filter(|p| p.members.contains(&late))
            .cloned()
            .collect();
        for passage in &holding {
            index.overrule_passage(passage, true).unwrap();
        }
        overruled.extend(holding);
    }
    let file = dir.join(late.to_relative_path());
    let text = std::fs::read(&file).unwrap();
    std::fs::remove_file(&file).unwrap();
    index.reconcile().unwrap();
    std::fs::write(&file, text).unwrap();
    index.reconcile().unwrap();
    let report = index.boilerplate_report().unwrap();
    assert!(
        !report.documents.contains_key(&late),
        "{late} has no boilerplate now: {overruled:#?}"
    );
    let read = reads.load(Ordering::SeqCst);
    let mut moved = false;
    for passage in overruled.iter().rev() {
        let changes = ruled_without_the_folder(&mut index, &dir, passage, false);
        assert_eq!(
            reads.load(Ordering::SeqCst),
            read,
            "files read: {changes:?}"
        );
        moved |= changes
            .iter()
            .any(|c| matches!(c, FileChange::Reprinted { path } if *path == late));
    }
    assert!(moved, "{late} has its boilerplate back");
    drop(index);
    let (report, read) = indexed(&dir, &at);
    assert_eq!(read, 0);
    assert_eq!(seen(&report), seen(&scan(&dir, LibraryConfig::default())));
}
