//! How a worker is set up ([`WorkerConfig`]): the folder, the engine and
//! library configuration, where the index lives, and the front end's
//! settings the worker applies to its index and watcher.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::reading::ReadLimits;
use doppel_core::engine::EngineConfig;
use doppel_pairing::cluster::{ClusterBy, ClusterMode};
use doppel_pairing::library::LibraryConfig;
use doppel_store::{OpenReport, Store, StoreAddress};

/// How the worker is set up.
#[derive(Debug, Clone)]
pub struct WorkerConfig {
    /// The folder to index.
    pub root: PathBuf,
    /// The engine documents are fingerprinted and compared with.
    pub engine: EngineConfig,
    /// What the library keeps and how it finds candidates.
    pub library: LibraryConfig,
    /// Where the index lives: a file or a shared database (default: a
    /// file in the platform data folder).
    pub index: Option<StoreAddress>,
    /// Who the verdicts and keeper marks made here are recorded as (the
    /// configuration's `curator`; default: the login name).
    pub curator: String,
    /// The watcher's quiet period (see [`crate::watch`]).
    pub quiet: Duration,
    /// The safety-net full rescan interval; zero turns it off.
    pub rescan_every: Duration,
    /// Follow the folder (otherwise only `Rescan` commands read it again).
    pub watch: bool,
    /// Ignore globs besides the built-in ones (the config file's `ignore`).
    pub extra_ignores: Vec<String>,
    /// Which folders are read as books (the config file's `[books]`).
    pub page_folders: crate::collection::PageFolders,
    /// How big files are read (the config file's `[reading]`).
    pub read_limits: ReadLimits,
    /// The verdict and mode clusters start with (the first snapshot's).
    /// Default: fusion, components.
    pub cluster_by: ClusterBy,
    /// Components or star (the first snapshot's).
    pub cluster_mode: ClusterMode,
    /// The first wait after the index could not be written (disk full,
    /// busy); it doubles per failure in a row (see [`super::pause`]). Default: 1 s.
    pub storage_retry: Duration,
    /// Where quarantines made here are recorded, so `doppel undo` takes
    /// their journals' word for this folder ([`crate::act::ActRecords`];
    /// the binary gives the user's). Default: `None`, not recorded.
    pub act_records: Option<crate::act::ActRecords>,
    /// Opens the store the index is kept in, instead of the one `index`
    /// names (default: `None`, `index` is opened).
    pub store: Option<StoreOpener>,
}

/// Opens the store a worker keeps its index in, on the worker's thread,
/// in place of the one [`WorkerConfig::index`] names: for an embedder
/// that opens (or wraps) the store itself, e.g. a test whose store fails
/// as a full disk does. It gives the store and what opening it found (the
/// worker sends the report's messages as warnings); the worker loads the
/// index from it with [`crate::index::FolderIndex::open_with_store`], its verdicts
/// recorded as [`WorkerConfig::curator`]'s.
#[derive(Clone)]
pub struct StoreOpener(Arc<OpenStore>);

/// What a [`StoreOpener`] runs.
type OpenStore = dyn Fn() -> doppel_store::Result<(Box<dyn Store>, OpenReport)> + Send + Sync;

impl StoreOpener {
    /// An opener that runs `open` each time a worker starts.
    pub fn new(
        open: impl Fn() -> doppel_store::Result<(Box<dyn Store>, OpenReport)> + Send + Sync + 'static,
    ) -> Self {
        StoreOpener(Arc::new(open))
    }

    /// Open the store.
    pub fn open(&self) -> doppel_store::Result<(Box<dyn Store>, OpenReport)> {
        (self.0)()
    }
}

impl std::fmt::Debug for StoreOpener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StoreOpener")
    }
}

impl WorkerConfig {
    /// Defaults for `root`: every algorithm, default floors, the default
    /// index location, 200 ms quiet period, a rescan every 10 minutes,
    /// watching on.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self {
            root: root.into(),
            engine: EngineConfig::default(),
            library: LibraryConfig::default(),
            index: None,
            curator: doppel_store::login_name(),
            quiet: crate::watch::DEFAULT_QUIET,
            rescan_every: crate::watch::DEFAULT_RESCAN_EVERY,
            watch: true,
            extra_ignores: Vec::new(),
            page_folders: Default::default(),
            read_limits: ReadLimits::default(),
            cluster_by: ClusterBy::Fusion,
            cluster_mode: ClusterMode::Components,
            storage_retry: Duration::from_secs(1),
            act_records: None,
            store: None,
        }
    }
}
