//! How an index reads its folder and commits what it read, beyond the
//! engine's and the library's configuration: the ignore globs and reading
//! limits of the configuration file, the sizes a reconcile works in, where
//! file bytes come from, and a hook told of a reconcile's phases. The
//! defaults unless a caller sets them ([`FolderIndex::set_options`]); none
//! of them changes what the index stores for a folder, only how it gets
//! there (`on_phase` may stop a reconcile part way, as a kill would).
//!
//! [`FolderIndex::set_options`]: super::FolderIndex::set_options

use std::ops::ControlFlow;
use std::path::Path;
use std::sync::Arc;

use super::elsewhere::ReadsElsewhere;
use crate::collection::{PageFolders, Skip};
use crate::reading::{ReadLimits, CHUNK_FILES};
use doppel_core::doc::FileIdentity;

/// Reads one file whole under a size cap (bytes), identity-checked:
/// [`crate::collection::read_bytes`]'s contract, which is what an
/// index reads with unless [`IndexOptions::file_reader`] says otherwise.
/// An `Err(Skip::Changed)` is a file that changed while it was read: it is
/// not committed, and reported as [`super::FileChange::Retry`].
pub type FileReader =
    Arc<dyn Fn(&Path, u64) -> std::result::Result<(Vec<u8>, FileIdentity), Skip> + Send + Sync>;

/// The phases of a reconcile that [`IndexOptions::on_phase`] hears of, as
/// each begins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Phase {
    /// A reconcile into an empty library (a fresh index, or one whose
    /// configuration changed) has read and committed every file, filed
    /// unpaired: they are paired next, all at once, and a one-shot scan
    /// ([`super::FolderIndex::set_one_shot`]) learns their boilerplate at
    /// once. Stopping here leaves the index as a process killed here
    /// leaves it: the files stay committed and the stored pairs read as
    /// out of date, so the next open of the index pairs the documents
    /// and settles their boilerplate (drop this index and open it again
    /// to have that done).
    Pairing,
}

/// Told of each [`Phase`] as it begins; [`ControlFlow::Break`] stops the
/// reconcile there, which then returns with
/// [`super::ReconcileReport::cancelled`] set.
pub type PhaseHook = Arc<dyn Fn(Phase) -> ControlFlow<()> + Send + Sync>;

/// How an index reads and commits ([`super::FolderIndex::set_options`]).
#[derive(Clone)]
pub struct IndexOptions {
    /// Ignore globs besides the built-in ones (the configuration file's
    /// `ignore`, see [`crate::collection::list_files_with`]):
    /// indexed files they match are forgotten by the next reconcile or
    /// sync. Default: none.
    pub extra_ignores: Vec<String>,
    /// Which folders are read as books (`[books] page-folders`, see
    /// [`crate::collection::PageFolders`]). Default: `Auto`.
    pub page_folders: PageFolders,
    /// How big files are read (`[reading]`). Default:
    /// [`ReadLimits::default`].
    pub read_limits: ReadLimits,
    /// The most files a reconcile reads and commits together, in one
    /// store transaction (a chunk also stops at
    /// [`crate::reading::CHUNK_BYTES`]; at least one file).
    /// Default: [`CHUNK_FILES`].
    pub chunk_files: usize,
    /// The candidate-table slots (4 bytes each) of a fresh reconcile's
    /// documents held in memory until they are paired; the others' are
    /// read back from the store then. Default:
    /// [`doppel_pairing::candidates::SPILL_AFTER_SLOTS`].
    pub spill_after_slots: usize,
    /// A one-shot scan learns its boilerplate at once beside the pairing,
    /// on a thread of its own, up to this many samples (~30 bytes each);
    /// past them, before the pairing, so that the two are not in memory
    /// together. Default: [`IndexOptions::LEARN_BESIDE_PAIRING_SAMPLES`].
    pub learn_beside_pairing: usize,
    /// The most documents pairing a fresh index and gathering candidates
    /// again handle between two asks of the stop check (`None`, the
    /// default: slices sized by memory,
    /// [`doppel_pairing::library::Library::set_batch_docs`]).
    /// Smaller batches stop sooner.
    pub batch_docs: Option<usize>,
    /// Read files through this instead of the file system (`None`, the
    /// default: [`crate::collection::read_bytes`] of the file
    /// still listed): a caller with its own access to the folder's bytes,
    /// or a test making a file change while it is read.
    pub file_reader: Option<FileReader>,
    /// Told of a reconcile's phases, and may stop it at one. Default:
    /// none.
    pub on_phase: Option<PhaseHook>,
    /// Read files there instead of in this process (a cluster's
    /// executors), each as this process would; `file_reader` is then not
    /// used. Default: none.
    pub elsewhere: Option<Arc<dyn ReadsElsewhere>>,
}

impl IndexOptions {
    /// [`IndexOptions::learn_beside_pairing`]'s default: memory then stays
    /// under ~60 MB on top of the pairing's (13k short texts are 1.2
    /// million samples; 110k texts are ~10 million, learned first).
    pub const LEARN_BESIDE_PAIRING_SAMPLES: usize = 2_000_000;

    /// Whether [`IndexOptions::on_phase`] stops the reconcile at `phase`
    /// (telling it of the phase).
    pub(super) fn stops_at(&self, phase: Phase) -> bool {
        self.on_phase
            .as_ref()
            .is_some_and(|hook| hook(phase).is_break())
    }

    /// [`IndexOptions::chunk_files`], at least one.
    pub(super) fn chunk_files(&self) -> usize {
        self.chunk_files.max(1)
    }
}

impl Default for IndexOptions {
    fn default() -> Self {
        Self {
            extra_ignores: Vec::new(),
            page_folders: PageFolders::default(),
            read_limits: ReadLimits::default(),
            chunk_files: CHUNK_FILES,
            spill_after_slots: doppel_pairing::candidates::SPILL_AFTER_SLOTS,
            learn_beside_pairing: Self::LEARN_BESIDE_PAIRING_SAMPLES,
            batch_docs: None,
            file_reader: None,
            on_phase: None,
            elsewhere: None,
        }
    }
}

impl std::fmt::Debug for IndexOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IndexOptions")
            .field("extra_ignores", &self.extra_ignores)
            .field("page_folders", &self.page_folders)
            .field("read_limits", &self.read_limits)
            .field("chunk_files", &self.chunk_files)
            .field("spill_after_slots", &self.spill_after_slots)
            .field("batch_docs", &self.batch_docs)
            .field("learn_beside_pairing", &self.learn_beside_pairing)
            .field("file_reader", &self.file_reader.is_some())
            .field("on_phase", &self.on_phase.is_some())
            .field("elsewhere", &self.elsewhere.is_some())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn the_phase_hook_hears_each_phase_and_alone_decides_to_stop() {
        let options = IndexOptions::default();
        assert!(!options.stops_at(Phase::Pairing), "no hook: never stops");
        let heard = Arc::new(Mutex::new(Vec::new()));
        let going_on = IndexOptions {
            on_phase: Some({
                let heard = heard.clone();
                Arc::new(move |phase| {
                    heard.lock().unwrap().push(phase);
                    ControlFlow::Continue(())
                })
            }),
            ..IndexOptions::default()
        };
        assert!(!going_on.stops_at(Phase::Pairing));
        assert_eq!(*heard.lock().unwrap(), [Phase::Pairing]);
        let stopping = IndexOptions {
            on_phase: Some(Arc::new(|_| ControlFlow::Break(()))),
            ..IndexOptions::default()
        };
        assert!(stopping.stops_at(Phase::Pairing));
    }

    #[test]
    fn a_chunk_holds_one_file_at_least() {
        let options = IndexOptions {
            chunk_files: 0,
            ..IndexOptions::default()
        };
        assert_eq!(options.chunk_files(), 1);
        assert_eq!(IndexOptions::default().chunk_files(), CHUNK_FILES);
    }
}
