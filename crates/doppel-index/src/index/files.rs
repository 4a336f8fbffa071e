//! What the index knows of the folder's files without reading one: every
//! file the store has a row of, with the identity it was read with, and
//! the files listed as skipped with their reason. A reconcile and the
//! watcher's paths ask it which files are unchanged, gone or under a
//! folder, and what another process changed in a team store.

use std::collections::{BTreeMap, HashSet};

use super::FileChange;
use doppel_core::doc::{DocPath, FileIdentity};

/// The folder's files as the index holds them (see the module's text).
#[derive(Debug, Default)]
pub(super) struct FolderFiles {
    /// Every document the store has a row of, with the identity it was
    /// read with (`None`: read it again at the next look, its
    /// fingerprints are missing).
    stored: BTreeMap<DocPath, Option<FileIdentity>>,
    /// Skipped files and why: stored ones, and special files and
    /// unreadable folders the walk met (listed, not stored).
    skipped: BTreeMap<DocPath, String>,
}

impl FolderFiles {
    /// The files `stored` with the identity each was read with, and the
    /// `skipped` ones with their reason.
    pub(super) fn new(
        stored: BTreeMap<DocPath, Option<FileIdentity>>,
        skipped: BTreeMap<DocPath, String>,
    ) -> Self {
        Self { stored, skipped }
    }

    /// Whether the store has a row of `doc`.
    pub(super) fn is_stored(&self, doc: &DocPath) -> bool {
        self.stored.contains_key(doc)
    }

    /// The identity `doc` was read with: `None` when it is not stored,
    /// `Some(None)` when it is to be read again.
    pub(super) fn identity(&self, doc: &DocPath) -> Option<Option<FileIdentity>> {
        self.stored.get(doc).copied()
    }

    /// Whether `doc` was read as it is now (`identity`).
    pub(super) fn read_as(&self, doc: &DocPath, identity: &FileIdentity) -> bool {
        self.stored.get(doc) == Some(&Some(*identity))
    }

    /// Whether no file is stored.
    #[cfg(feature = "postgres")]
    pub(super) fn none_stored(&self) -> bool {
        self.stored.is_empty()
    }

    /// Note `doc` as stored, read with `identity` (`None`: to read again).
    pub(super) fn store(&mut self, doc: DocPath, identity: Option<FileIdentity>) {
        self.stored.insert(doc, identity);
    }

    /// Forget `doc`'s row.
    pub(super) fn unstore(&mut self, doc: &DocPath) {
        self.stored.remove(doc);
    }

    /// The stored files not `on_disk` any more, in path order.
    pub(super) fn gone(&self, on_disk: &HashSet<&DocPath>) -> Vec<DocPath> {
        self.stored
            .keys()
            .filter(|doc| !on_disk.contains(doc))
            .cloned()
            .collect()
    }

    /// `doc` and every stored file under it (were it a folder), in path
    /// order.
    pub(super) fn tree(&self, doc: &DocPath) -> Vec<DocPath> {
        let mut prefix = doc.as_bytes().to_vec();
        prefix.push(b'/');
        let prefix = DocPath::from_bytes(prefix);
        self.stored
            .get_key_value(doc)
            .map(|(k, _)| k)
            .into_iter()
            .chain(
                self.stored
                    .range(prefix.clone()..)
                    .map(|(k, _)| k)
                    .take_while(|k| k.as_bytes().starts_with(prefix.as_bytes())),
            )
            .cloned()
            .collect()
    }

    /// The documents another process changed: those `in_store` (the
    /// store's identities now) whose size or modification time differs
    /// from what this process read (or that it does not hold), and those
    /// it holds that the store no longer has. Other machines see other
    /// inodes, so nothing else is compared.
    pub(super) fn changed_in<'a>(
        &'a self,
        in_store: &'a BTreeMap<DocPath, FileIdentity>,
    ) -> HashSet<&'a DocPath> {
        let differs =
            |a: &FileIdentity, b: &FileIdentity| a.size != b.size || a.mtime_ns != b.mtime_ns;
        let mut docs: HashSet<&DocPath> = in_store
            .iter()
            .filter(|(doc, theirs)| match self.stored.get(*doc) {
                Some(Some(ours)) => differs(ours, theirs),
                _ => true,
            })
            .map(|(doc, _)| doc)
            .collect();
        docs.extend(
            self.stored
                .keys()
                .filter(|doc| !in_store.contains_key(*doc)),
        );
        docs
    }

    /// Skipped files and their reasons.
    pub(super) fn skipped(&self) -> &BTreeMap<DocPath, String> {
        &self.skipped
    }

    /// List `doc` as skipped for `reason`; whether that is news.
    pub(super) fn skip(&mut self, doc: &DocPath, reason: &str) -> bool {
        if self.skipped.get(doc).map(String::as_str) == Some(reason) {
            return false;
        }
        self.skipped.insert(doc.clone(), reason.to_owned());
        true
    }

    /// `doc` is no longer skipped.
    pub(super) fn unskip(&mut self, doc: &DocPath) {
        self.skipped.remove(doc);
    }

    /// The skipped files that are `doc` or under it.
    pub(super) fn skipped_within(&self, doc: &DocPath) -> Vec<DocPath> {
        self.skipped
            .keys()
            .filter(|p| p.is_within(doc))
            .cloned()
            .collect()
    }

    /// List afresh what the walk met and did not store (`problems`:
    /// special files, unreadable folders) beside the stored skipped files;
    /// the changes: problems new or with another reason, and listed ones
    /// now gone.
    pub(super) fn relist(&mut self, problems: Vec<(DocPath, String)>) -> Vec<FileChange> {
        let mut changes = Vec::new();
        let (stored, listed): (BTreeMap<_, _>, BTreeMap<_, _>) = std::mem::take(&mut self.skipped)
            .into_iter()
            .partition(|(doc, _)| self.stored.contains_key(doc));
        self.skipped = stored;
        for (doc, reason) in problems {
            if listed.get(&doc) != Some(&reason) {
                changes.push(FileChange::Skipped {
                    path: doc.clone(),
                    reason: reason.clone(),
                });
            }
            self.skipped.insert(doc, reason);
        }
        for doc in listed.into_keys() {
            if !self.skipped.contains_key(&doc) {
                changes.push(FileChange::Removed { path: doc });
            }
        }
        changes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(size: u64, mtime_ns: i64, inode: u64) -> FileIdentity {
        FileIdentity {
            size,
            mtime_ns,
            inode,
            ..FileIdentity::default()
        }
    }

    fn files(stored: &[&str]) -> FolderFiles {
        FolderFiles::new(
            stored
                .iter()
                .map(|p| (DocPath::from(*p), Some(id(1, 1, 1))))
                .collect(),
            BTreeMap::new(),
        )
    }

    fn paths(docs: &[DocPath]) -> Vec<String> {
        docs.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_tree_is_the_file_or_everything_under_the_folder_and_nothing_beside() {
        let f = files(&["a", "a b", "a-1/x", "a/x", "a/y/z", "a0", "ab/x", "b"]);
        assert_eq!(paths(&f.tree(&DocPath::from("a"))), ["a", "a/x", "a/y/z"]);
        assert_eq!(paths(&f.tree(&DocPath::from("a/y"))), ["a/y/z"]);
        assert_eq!(paths(&f.tree(&DocPath::from("b"))), ["b"]);
        assert!(f.tree(&DocPath::from("c")).is_empty());
    }

    #[test]
    fn a_file_is_unchanged_only_as_read_and_gone_only_when_not_on_disk() {
        let mut f = files(&["kept.txt", "gone.txt"]);
        f.store(DocPath::from("unread.txt"), None);
        let kept = DocPath::from("kept.txt");
        assert!(f.read_as(&kept, &id(1, 1, 1)));
        assert!(!f.read_as(&kept, &id(1, 1, 2)), "another inode: read again");
        assert!(!f.read_as(&DocPath::from("unread.txt"), &id(1, 1, 1)));
        assert!(!f.read_as(&DocPath::from("new.txt"), &id(1, 1, 1)));
        let unread = DocPath::from("unread.txt");
        let on_disk: HashSet<&DocPath> = [&kept, &unread].into_iter().collect();
        assert_eq!(paths(&f.gone(&on_disk)), ["gone.txt"]);
        f.unstore(&DocPath::from("gone.txt"));
        assert!(f.gone(&on_disk).is_empty());
    }

    #[test]
    fn what_another_process_changed_is_told_by_size_and_mtime_alone() {
        let mut f = files(&["same.txt", "grown.txt", "touched.txt", "dropped.txt"]);
        f.store(DocPath::from("unread.txt"), None);
        let in_store: BTreeMap<DocPath, FileIdentity> = [
            ("same.txt", id(1, 1, 77)),
            ("grown.txt", id(2, 1, 1)),
            ("touched.txt", id(1, 2, 1)),
            ("unread.txt", id(1, 1, 1)),
            ("theirs.txt", id(1, 1, 1)),
        ]
        .into_iter()
        .map(|(p, i)| (DocPath::from(p), i))
        .collect();
        let mut changed: Vec<String> = f
            .changed_in(&in_store)
            .into_iter()
            .map(ToString::to_string)
            .collect();
        changed.sort();
        assert_eq!(
            changed,
            [
                "dropped.txt",
                "grown.txt",
                "theirs.txt",
                "touched.txt",
                "unread.txt"
            ]
        );
    }

    #[test]
    fn relisting_reports_new_moved_and_vanished_problems_and_keeps_stored_skips() {
        let mut f = files(&["empty.txt"]);
        assert!(f.skip(&DocPath::from("empty.txt"), "empty"));
        assert!(!f.skip(&DocPath::from("empty.txt"), "empty"), "no news");
        f.skip(&DocPath::from("fifo"), "not a regular file (fifo)");
        f.skip(&DocPath::from("locked"), "unreadable folder");
        f.skip(&DocPath::from("sock"), "not a regular file (socket)");
        let changes = f.relist(vec![
            (
                DocPath::from("fifo"),
                "not a regular file (fifo)".to_owned(),
            ),
            (
                DocPath::from("locked"),
                "unreadable folder: denied".to_owned(),
            ),
            (
                DocPath::from("new"),
                "not a regular file (socket)".to_owned(),
            ),
        ]);
        let said: Vec<String> = changes
            .iter()
            .map(|c| match c {
                FileChange::Skipped { path, reason } => format!("skipped {path}: {reason}"),
                FileChange::Removed { path } => format!("removed {path}"),
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(
            said,
            [
                "skipped locked: unreadable folder: denied",
                "skipped new: not a regular file (socket)",
                "removed sock",
            ]
        );
        assert_eq!(
            f.skipped()
                .keys()
                .map(ToString::to_string)
                .collect::<Vec<_>>(),
            ["empty.txt", "fifo", "locked", "new"]
        );
        assert_eq!(
            paths(&f.skipped_within(&DocPath::from("locked"))),
            ["locked"]
        );
        f.unskip(&DocPath::from("locked"));
        assert!(f.skipped_within(&DocPath::from("locked")).is_empty());
    }
}
