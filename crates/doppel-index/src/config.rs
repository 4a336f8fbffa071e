//! The configuration file (TOML): every setting doppel has, with the
//! documented defaults built in from `assets/config.toml`.
//!
//! [`Config::load`] starts from the built-in defaults and merges the user's
//! file over them (`--config PATH`, else [`Config::default_path`] if it
//! exists): tables merge key by key, anything else replaces, so a partial
//! file changes only what it names. Unknown keys, at any depth, values
//! of the wrong type and values outside their range ([`Config::check`],
//! in `ranges`) are errors that name the file, the line and the key.
//! Command-line flags are applied on top by the binary, which checks the
//! result again.
//!
//! The file's layout is flat where the code nests: the engine's settings
//! (`enabled`, `[tokenizer]`, `[idf]`, `[thresholds]`, `[fusion]`,
//! `[algorithms.*]`) are top-level tables, the [`LibraryConfig`] is
//! `[library]`, and `ignore`, `index-dir`, `quarantine-dir`, `store`, `[clusters]`,
//! `[watch]`, `[reading]`, `[books]` and `[ui]` are the front ends' settings.
//! `tests/config.rs` holds the built-in file equal to
//! the compiled defaults ([`Config::default`]), so neither can drift.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

mod error;
mod ranges;
mod save;

use error::{line_of, origin_name, setting_error};
pub use error::{ConfigError, RedactedSyntax, SaveProblem};
pub use ranges::{threshold_range, Invalid, ThresholdRange};
pub use save::save_thresholds;

/// A configuration operation's result.
pub type Result<T, E = ConfigError> = std::result::Result<T, E>;

use crate::collection::PageFolders;
use crate::reading::ReadSettings;
use doppel_core::engine::algo::AlgorithmId;
use doppel_core::engine::stats::IdfSource;
use doppel_core::engine::text::TokenizerConfig;
use doppel_core::engine::{AlgorithmsConfig, EngineConfig, FusionConfig, Thresholds};
use doppel_pairing::boilerplate::BoilerplateConfig;
use doppel_pairing::cluster::{ClusterBy, ClusterMode};
use doppel_pairing::library::LibraryConfig;

/// The built-in configuration file: every setting with its default and what
/// it does (`doppel config --print-defaults`).
pub const DEFAULTS: &str = include_str!("../../../assets/config.toml");

/// Name of the user's file inside the config folder.
pub const FILE_NAME: &str = "config.toml";

/// Every setting, as the engine and the front ends use them. Its `Debug`
/// shows the `store` [`redacted`](doppel_store::redacted).
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "ConfigFile", into = "ConfigFile")]
pub struct Config {
    /// Tokenizer, algorithms, enabled set, IDF source, thresholds, fusion.
    pub engine: EngineConfig,
    /// Floors, containment floor, candidate generation.
    pub library: LibraryConfig,
    /// The folder holding the persistent indexes, one file per scanned
    /// folder ([`Config::index_path`]); `None`: the platform data folder.
    pub index_dir: Option<PathBuf>,
    /// Where `doppel act` moves the files it quarantines when no `--to`
    /// is given (never inside the folder acted on); `None`: `--to` needed.
    pub quarantine_dir: Option<PathBuf>,
    /// A PostgreSQL database (`postgres://user@host/db`) every folder's
    /// index is kept in, shared by a team, instead of a file per folder;
    /// `--index` or `--store` override it for one run. `None`: files.
    pub store: Option<String>,
    /// Who this user's verdicts and keeper marks are recorded as
    /// ([`Config::curator`]); `None`: the login name.
    pub curator: Option<String>,
    /// The watcher's quiet period and rescan interval.
    pub watch: WatchSettings,
    /// Ignore globs besides the built-in temporary-file ones (see
    /// [`crate::collection::list_files_with`]).
    pub ignore: Vec<String>,
    /// The verdict and mode clusters start with.
    pub clusters: ClusterSettings,
    /// How large files are read.
    pub reading: ReadSettings,
    /// Which folders are books (`[books]`).
    pub books: BookSettings,
    /// The review screen's look.
    pub ui: UiSettings,
}

impl Default for Config {
    /// The compiled-in defaults (equal to [`DEFAULTS`]).
    fn default() -> Self {
        Self {
            engine: EngineConfig::default(),
            library: LibraryConfig::default(),
            index_dir: None,
            quarantine_dir: None,
            store: None,
            curator: None,
            watch: WatchSettings::default(),
            ignore: Vec::new(),
            clusters: ClusterSettings::default(),
            reading: ReadSettings::default(),
            books: BookSettings::default(),
            ui: UiSettings::default(),
        }
    }
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Destructured without `..`: a new setting shows here too.
        let Config {
            engine,
            library,
            index_dir,
            quarantine_dir,
            store,
            curator,
            watch,
            ignore,
            clusters,
            reading,
            books,
            ui,
        } = self;
        f.debug_struct("Config")
            .field("engine", engine)
            .field("library", library)
            .field("index_dir", index_dir)
            .field("quarantine_dir", quarantine_dir)
            .field("store", &store.as_deref().map(doppel_store::redacted))
            .field("curator", curator)
            .field("watch", watch)
            .field("ignore", ignore)
            .field("clusters", clusters)
            .field("reading", reading)
            .field("books", books)
            .field("ui", ui)
            .finish()
    }
}

/// `[ui]`: the review screen's look.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct UiSettings {
    /// Default: `default` (`NO_COLOR` in the environment picks
    /// `monochrome` whatever this says).
    pub theme: ThemeName,
}

/// The review screen's styles: colours with modifiers, or modifiers and
/// glyphs only.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ThemeName {
    /// The 16 basic colours plus bold and reverse.
    #[default]
    Default,
    /// No colour: reverse, bold, underline, dim and glyphs.
    Monochrome,
}

/// `[watch]`: following a folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct WatchSettings {
    /// A changed file is read once it stayed unchanged this long. Default:
    /// 200 ([`crate::watch::DEFAULT_QUIET`]).
    pub quiet_ms: u64,
    /// Full rescan interval; 0 turns it off. Default: 10
    /// ([`crate::watch::DEFAULT_RESCAN_EVERY`]).
    pub rescan_minutes: u64,
}

impl Default for WatchSettings {
    fn default() -> Self {
        Self {
            quiet_ms: crate::watch::DEFAULT_QUIET.as_millis() as u64,
            rescan_minutes: crate::watch::DEFAULT_RESCAN_EVERY.as_secs() / 60,
        }
    }
}

impl WatchSettings {
    /// The quiet period as a duration.
    pub fn quiet(&self) -> Duration {
        Duration::from_millis(self.quiet_ms)
    }

    /// The rescan interval as a duration (zero: none).
    pub fn rescan_every(&self) -> Duration {
        Duration::from_secs(self.rescan_minutes.saturating_mul(60))
    }
}

/// `[clusters]`: how duplicate pairs become clusters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct ClusterSettings {
    /// `fusion` or an algorithm id. Default: fusion.
    #[serde(with = "cluster_by_name")]
    pub by: ClusterBy,
    /// Default: components.
    pub mode: ClusterMode,
}

impl Default for ClusterSettings {
    fn default() -> Self {
        Self {
            by: ClusterBy::Fusion,
            mode: ClusterMode::Components,
        }
    }
}

/// A name that is neither `fusion` nor an algorithm id; says the known
/// ones.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown verdict {name:?} (known: fusion, {})", known_ids())]
pub struct UnknownClusterBy {
    /// The name given.
    pub name: String,
}

/// Every algorithm id, comma-separated.
fn known_ids() -> String {
    let known: Vec<&str> = AlgorithmId::ALL.iter().map(|id| id.as_str()).collect();
    known.join(", ")
}

/// `fusion` or an algorithm id (the CLI's `--cluster-by` and the file's
/// `clusters.by`).
pub fn parse_cluster_by(s: &str) -> Result<ClusterBy, UnknownClusterBy> {
    if s == "fusion" {
        return Ok(ClusterBy::Fusion);
    }
    s.parse()
        .map(ClusterBy::Algorithm)
        .map_err(|_| UnknownClusterBy { name: s.to_owned() })
}

/// The name [`parse_cluster_by`] reads.
pub fn cluster_by_name(by: ClusterBy) -> String {
    match by {
        ClusterBy::Fusion => "fusion".to_owned(),
        ClusterBy::Algorithm(id) => id.to_string(),
    }
}

/// The name of a cluster mode in the file and on the command line.
pub fn mode_name(mode: ClusterMode) -> &'static str {
    match mode {
        ClusterMode::Components => "components",
        ClusterMode::Star => "star",
    }
}

mod cluster_by_name {
    use serde::{de::Error, Deserialize, Deserializer, Serializer};

    use doppel_pairing::cluster::ClusterBy;

    pub fn serialize<S: Serializer>(by: &ClusterBy, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&super::cluster_by_name(*by))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<ClusterBy, D::Error> {
        let name = String::deserialize(d)?;
        super::parse_cluster_by(&name).map_err(D::Error::custom)
    }
}

/// `[books]`: which folders of page files are read as one book each.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct BookSettings {
    /// Which folders are books ([`PageFolders`]). Default: `auto`.
    pub page_folders: PageFolders,
}

/// The file's layout (see the module documentation).
#[derive(Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
struct ConfigFile {
    // Plain values first: TOML writes them before any table.
    enabled: BTreeSet<AlgorithmId>,
    ignore: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    index_dir: Option<PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    quarantine_dir: Option<PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    store: Option<String>,
    curator: Option<String>,
    tokenizer: TokenizerConfig,
    idf: IdfSource,
    thresholds: Thresholds,
    fusion: FusionConfig,
    clusters: ClusterSettings,
    algorithms: AlgorithmsConfig,
    library: LibraryConfig,
    boilerplate: BoilerplateConfig,
    watch: WatchSettings,
    reading: ReadSettings,
    books: BookSettings,
    ui: UiSettings,
}

impl Default for ConfigFile {
    fn default() -> Self {
        Config::default().into()
    }
}

impl From<Config> for ConfigFile {
    fn from(config: Config) -> Self {
        // Destructured without `..`: a new engine setting fails to compile
        // here until the file has a place for it.
        let Config {
            engine:
                EngineConfig {
                    tokenizer,
                    algorithms,
                    enabled,
                    idf,
                    thresholds,
                    fusion,
                },
            library,
            index_dir,
            quarantine_dir,
            store,
            curator,
            watch,
            ignore,
            clusters,
            reading,
            books,
            ui,
        } = config;
        Self {
            enabled,
            ignore,
            index_dir,
            quarantine_dir,
            store,
            curator,
            tokenizer,
            idf,
            thresholds,
            fusion,
            clusters,
            algorithms,
            boilerplate: library.boilerplate.clone(),
            library,
            watch,
            reading,
            books,
            ui,
        }
    }
}

impl From<ConfigFile> for Config {
    fn from(file: ConfigFile) -> Self {
        let ConfigFile {
            enabled,
            ignore,
            index_dir,
            quarantine_dir,
            store,
            curator,
            tokenizer,
            idf,
            thresholds,
            fusion,
            clusters,
            algorithms,
            mut library,
            boilerplate,
            watch,
            reading,
            books,
            ui,
        } = file;
        library.boilerplate = boilerplate;
        Self {
            engine: EngineConfig {
                tokenizer,
                algorithms,
                enabled,
                idf,
                thresholds,
                fusion,
            },
            library,
            index_dir,
            quarantine_dir,
            store,
            curator,
            watch,
            ignore,
            clusters,
            reading,
            books,
            ui,
        }
    }
}

/// Tables whose key `.1` tags an enum variant (`[idf] source`,
/// `[library.candidates.simhash-banding] mode`): one that names another
/// variant than the defaults replaces the default table instead of merging
/// into it, so the old variant's keys do not linger.
const VARIANT_TAGS: [(&str, &str); 2] = [("idf", "source"), ("simhash-banding", "mode")];

/// Merge `over` into `base`: tables key by key (recursively), every other
/// value replaced.
fn merge(base: &mut toml::Table, over: toml::Table) {
    for (key, value) in over {
        match (base.get_mut(&key), value) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => {
                let switches = VARIANT_TAGS.iter().any(|&(table, tag)| {
                    table == key && o.get(tag).is_some_and(|t| b.get(tag) != Some(t))
                });
                if switches {
                    *b = o;
                } else {
                    merge(b, o);
                }
            }
            (_, value) => {
                base.insert(key, value);
            }
        }
    }
}

/// Whether `user` has a key (depth first, by name) that `known` — the
/// configuration read back — does not: a key some part of the configuration
/// ignored (an enum's fields of another variant). `path` then holds it.
fn ignored_key(user: &toml::Table, known: &toml::Table, path: &mut Vec<String>) -> bool {
    for (key, value) in user {
        path.push(key.clone());
        let ignored = match (value, known.get(key)) {
            (_, None) => true,
            (toml::Value::Table(u), Some(toml::Value::Table(k))) => ignored_key(u, k, path),
            _ => false,
        };
        if ignored {
            return true;
        }
        path.pop();
    }
    false
}

impl Config {
    /// Read the configuration: the built-in defaults, then the user's file
    /// over them — `path` if given (it must exist), else
    /// [`Config::default_path`] if that file exists. Errors name the file
    /// and the problem.
    pub fn load(path: Option<&Path>) -> Result<Config> {
        match path {
            Some(path) => Self::load_file(path),
            None => match Self::default_path() {
                Some(path) if path.exists() => Self::load_file(&path),
                _ => Ok(Self::defaults()),
            },
        }
    }

    /// The user's file: `$XDG_CONFIG_HOME/doppel/config.toml` when
    /// `XDG_CONFIG_HOME` is set (an absolute path), else `config.toml` in the
    /// platform config folder (`~/.config/doppel` on Linux,
    /// `~/Library/Application Support/doppel` on macOS,
    /// `%APPDATA%\doppel\config` on Windows).
    pub fn default_path() -> Option<PathBuf> {
        if let Some(xdg) = std::env::var_os("XDG_CONFIG_HOME") {
            let xdg = PathBuf::from(xdg);
            if xdg.is_absolute() {
                return Some(xdg.join("doppel").join(FILE_NAME));
            }
        }
        let dirs = directories::ProjectDirs::from("", "", "doppel")?;
        Some(dirs.config_dir().join(FILE_NAME))
    }

    /// The built-in defaults, read from [`DEFAULTS`].
    pub fn defaults() -> Config {
        Self::from_toml(DEFAULTS, None).expect("the built-in config file is valid")
    }

    /// The defaults with the file at `path` merged over them.
    pub fn load_file(path: &Path) -> Result<Config> {
        let text = std::fs::read_to_string(path).map_err(|error| ConfigError::Read {
            path: path.to_path_buf(),
            error,
        })?;
        Self::from_toml(&text, Some(path))
    }

    /// The defaults with `text` merged over them. `origin` is the file
    /// `text` came from: it names the file in errors, and a relative
    /// `index-dir` and `quarantine-dir` are taken from its folder.
    pub fn from_toml(text: &str, origin: Option<&Path>) -> Result<Config> {
        let name = origin_name(origin);
        let user: toml::Table = text.parse().map_err(|e| ConfigError::Syntax {
            origin: name.clone(),
            error: error::RedactedSyntax(Box::new(e)),
        })?;
        let read = |user: &toml::Table| {
            let mut merged: toml::Table = DEFAULTS
                .parse()
                .expect("the built-in config file is valid TOML");
            merge(&mut merged, user.clone());
            serde_path_to_error::deserialize::<_, Config>(toml::Value::Table(merged))
        };
        let fails = |user: &toml::Table| read(user).err().map(|e| e.to_string());
        let mut config =
            read(&user).map_err(|e| setting_error(name.clone(), e, text, &user, &fails))?;
        // Keys some part of the configuration accepted but ignored.
        if let Ok(known) = toml::Table::try_from(&config) {
            let mut path = Vec::new();
            if ignored_key(&user, &known, &mut path) {
                let field = path.pop().unwrap_or_default();
                return Err(ConfigError::Setting {
                    origin: name,
                    line: line_of(text, &[path.clone(), vec![field.clone()]].concat()),
                    message: format!("unknown field `{field}`"),
                    table: path,
                });
            }
        }
        if let Err(e) = config.check() {
            let key: Vec<String> = e.key.split('.').map(str::to_owned).collect();
            return Err(ConfigError::Setting {
                origin: name,
                line: line_of(text, &key),
                message: e.to_string(),
                table: Vec::new(),
            });
        }
        if let Some(dir) = &config.index_dir {
            config.index_dir = Some(resolve(dir, origin));
        }
        if let Some(dir) = &config.quarantine_dir {
            config.quarantine_dir = Some(resolve(dir, origin));
        }
        if let Some(dir) = &config.library.boilerplate.user_dir {
            config.library.boilerplate.user_dir = Some(resolve(dir, origin));
        }
        config.fit_floors();
        Ok(config)
    }

    /// Set a threshold (`--threshold`), lowering the algorithm's floor when
    /// the threshold is looser, so the candidates it needs are gathered.
    pub fn set_threshold(&mut self, id: AlgorithmId, value: f64) {
        self.engine.thresholds.set(id, value);
        if !self.library.floors.allows(id, value) {
            self.library.floors.set(id, value);
        }
    }

    /// Lower every floor a threshold is looser than (a threshold below its
    /// floor would miss pairs the floor never kept), and the containment
    /// floor to `related` pairs' containment: a related pair the floor did
    /// not keep would be reported only when another floor happened to keep
    /// it.
    pub fn fit_floors(&mut self) {
        let related = self.engine.fusion.related_containment;
        if related < self.library.containment_floor {
            self.library.containment_floor = related;
        }
        let thresholds: Vec<(AlgorithmId, f64)> = self
            .engine
            .thresholds
            .0
            .iter()
            .map(|(&id, &value)| (id, value))
            .collect();
        for (id, value) in thresholds {
            self.set_threshold(id, value);
        }
    }

    /// Who this user's verdicts and keeper marks are recorded as: the
    /// `curator` setting, else the login name.
    pub fn curator(&self) -> String {
        self.curator
            .clone()
            .unwrap_or_else(doppel_store::login_name)
    }

    /// The index file of the folder `root` when `index-dir` is set: in that
    /// folder, named as in the platform data folder (a hash of the
    /// canonical path), so every folder keeps its own index. `None` leaves
    /// the choice to [`doppel_store::SqliteStore::default_path`].
    pub fn index_path(&self, root: &Path) -> Result<Option<PathBuf>> {
        let Some(dir) = &self.index_dir else {
            return Ok(None);
        };
        let canonical = root.canonicalize().map_err(|error| ConfigError::Folder {
            root: root.to_path_buf(),
            error,
        })?;
        Ok(Some(dir.join(doppel_store::index_file_name(&canonical))))
    }

    /// The configuration as a TOML file (`doppel config`), the `store`'s
    /// password left out ([`doppel_store::redacted`]).
    pub fn to_toml(&self) -> Result<String> {
        let mut shown = self.clone();
        shown.store = shown.store.as_deref().map(doppel_store::redacted);
        Ok(toml::to_string(&shown)?)
    }
}

/// `path` from the config file: `~/` is the home folder, a relative path is
/// taken from the file's folder.
fn resolve(path: &Path, origin: Option<&Path>) -> PathBuf {
    if let Ok(rest) = path.strip_prefix("~") {
        if let Some(dirs) = directories::BaseDirs::new() {
            return dirs.home_dir().join(rest);
        }
    }
    match origin.and_then(Path::parent) {
        Some(folder) if path.is_relative() => folder.join(path),
        _ => path.to_path_buf(),
    }
}
