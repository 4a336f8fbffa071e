//! Opening an index: creating it, checking it is a sound doppel index of
//! this schema ([`PendingCheck`] runs the check beside a large load), and
//! moving an unusable file aside ([`OpenReport`] says so); what the
//! [`Store`] contract asks of the file itself (checking it whole, its
//! WAL, an exclusive lock).

use std::fs;
use std::path::{Path, PathBuf};

use crate::Store;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{params, Connection, ErrorCode, OpenFlags, TransactionBehavior};

use super::error::Context;
use super::rows::collect_rows;
use super::schema::{KEEPER_FACTS, SCHEMA, VERDICTS_PER_CURATOR};
use super::{
    ensure_outside_root, index_file_name, now_ns, OpenProblem, Result, SqliteStore, StoreError,
    APPLICATION_ID, BUSY_TIMEOUT, SCHEMA_VERSION,
};

/// An unusable index file that [`SqliteStore::open`](crate::SqliteStore::open) renamed before creating a fresh one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MovedAside {
    /// What was wrong with it.
    pub problem: OpenProblem,
    /// Where the file now is.
    pub to: PathBuf,
    /// Its `-wal`/`-shm`/`-journal` companions, moved beside it.
    pub companions: Vec<PathBuf>,
}

/// What [`SqliteStore::open`](crate::SqliteStore::open) found and did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenReport {
    /// The index file.
    pub path: PathBuf,
    /// A fresh, empty index was created (first run, or after moving a bad file aside).
    pub created: bool,
    /// The unusable file moved aside first, if one was.
    pub moved_aside: Option<MovedAside>,
    /// Non-fatal problems (e.g. WAL unavailable on this file system).
    pub warnings: Vec<String>,
}

impl OpenReport {
    /// One line per thing the user should hear about (empty when all is well).
    pub fn messages(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(m) = &self.moved_aside {
            out.push(format!(
                "index {} was {}; moved it to {} and started a fresh index \
                 (the folder will be re-read)",
                self.path.display(),
                m.problem,
                m.to.display()
            ));
        }
        out.extend(self.warnings.iter().cloned());
        out
    }
}

enum OpenFailure {
    /// The file is unusable and may be moved aside.
    Bad(OpenProblem),
    Fatal(StoreError),
}

impl From<StoreError> for OpenFailure {
    fn from(e: StoreError) -> Self {
        OpenFailure::Fatal(e)
    }
}

/// Errors that mean "this file is not a (sound) database", as opposed to
/// "cannot get at it right now" (permissions, locks, I/O), which must never
/// cause a move.
fn classify(path: &Path, context: &str, error: rusqlite::Error) -> OpenFailure {
    match error.sqlite_error_code() {
        Some(ErrorCode::NotADatabase) => OpenFailure::Bad(OpenProblem::NotADatabase {
            detail: error.to_string(),
        }),
        Some(ErrorCode::DatabaseCorrupt) => OpenFailure::Bad(OpenProblem::Corrupt {
            detail: error.to_string(),
        }),
        _ => OpenFailure::Fatal(StoreError::Sqlite {
            path: path.to_path_buf(),
            context: context.to_string(),
            error,
        }),
    }
}

struct Probe {
    application_id: i32,
    user_version: i32,
    objects: i64,
}

fn probe(conn: &Connection, path: &Path) -> Result<Probe, OpenFailure> {
    let read = || -> rusqlite::Result<Probe> {
        Ok(Probe {
            application_id: conn.pragma_query_value(None, "application_id", |r| r.get(0))?,
            user_version: conn.pragma_query_value(None, "user_version", |r| r.get(0))?,
            objects: conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))?,
        })
    };
    read().map_err(|e| classify(path, "read the header", e))
}

fn quick_check(conn: &Connection, path: &Path) -> Result<Option<String>, OpenFailure> {
    let rows: Vec<String> = collect_rows(conn, "PRAGMA quick_check", [], |r| r.get(0))
        .map_err(|e| classify(path, "quick_check", e))?;
    if rows.len() == 1 && rows[0] == "ok" {
        Ok(None)
    } else {
        Ok(Some(rows.join("; ")))
    }
}

/// When [`SqliteStore`]'s opening runs `PRAGMA quick_check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    /// Before the store is returned.
    Now,
    /// On another thread, see [`SqliteStore::open_checking_in_background`](crate::SqliteStore::open_checking_in_background).
    Background,
}

type CheckThread = std::thread::JoinHandle<Result<Option<String>, OpenFailure>>;

/// A `PRAGMA quick_check` of an index running on a read-only connection of
/// its own (see [`SqliteStore::open_checking_in_background`](crate::SqliteStore::open_checking_in_background)).
#[must_use = "an index is not known to be sound until its check has passed"]
pub struct PendingCheck {
    thread: Option<CheckThread>,
}

impl PendingCheck {
    fn start(path: &Path) -> Self {
        let path = path.to_path_buf();
        let thread = std::thread::spawn(move || {
            let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
            let conn = Connection::open_with_flags(&path, flags)
                .map_err(|e| classify(&path, "open read-only for quick_check", e))?;
            conn.busy_timeout(BUSY_TIMEOUT)
                .ctx(&path, "set busy_timeout")?;
            quick_check(&conn, &path)
        });
        PendingCheck {
            thread: Some(thread),
        }
    }

    /// Wait for the check: `true` when the index is sound (or new), `false`
    /// when it is corrupt. An error that proves nothing about the file
    /// (I/O, a lock held too long) is returned.
    pub fn passed(self) -> Result<bool> {
        let Some(thread) = self.thread else {
            return Ok(true);
        };
        match thread.join() {
            Ok(Ok(None)) => Ok(true),
            Ok(Ok(Some(_)) | Err(OpenFailure::Bad(_))) => Ok(false),
            Ok(Err(OpenFailure::Fatal(e))) => Err(e),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
}

/// `e` with the file system's reason when SQLite could not open or write
/// the index: SQLite says only "unable to open database file" or "attempt
/// to write a readonly database", whether the folder is on a read-only
/// file system, not ours to write, or the file itself is read-only.
fn with_file_system_cause(path: &Path, e: StoreError) -> StoreError {
    if !matches!(
        e.sqlite_code(),
        Some(ErrorCode::CannotOpen | ErrorCode::ReadOnly)
    ) {
        return e;
    }
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    // A file made and removed at once in the index folder (never the
    // folder doppel reads) asks the file system itself.
    let cause = match tempfile::Builder::new()
        .prefix(".doppel-write-check")
        .tempfile_in(dir)
    {
        Err(error) => (format!("write in its folder {}", dir.display()), error),
        Ok(_) => match fs::OpenOptions::new().read(true).write(true).open(path) {
            Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
                ("open it for writing".to_string(), error)
            }
            _ => return e,
        },
    };
    let (context, error) = cause;
    StoreError::Io {
        path: path.to_path_buf(),
        context,
        // The system's words alone, without the probe's file name.
        error: error
            .raw_os_error()
            .map_or(error, std::io::Error::from_raw_os_error),
    }
}

/// The first name `<name>.corrupt-<ts>[-n]` whose file and companions are all free.
fn aside_name(path: &Path, ts: u64) -> PathBuf {
    let base = path.as_os_str().to_os_string();
    (0u32..)
        .map(|n| {
            let mut name = base.clone();
            name.push(format!(".corrupt-{ts}"));
            if n > 0 {
                name.push(format!("-{n}"));
            }
            PathBuf::from(name)
        })
        .find(|candidate| {
            ["", "-wal", "-shm", "-journal"].iter().all(|suffix| {
                let mut p = candidate.as_os_str().to_os_string();
                p.push(suffix);
                fs::symlink_metadata(PathBuf::from(p)).is_err()
            })
        })
        .expect("a free name")
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_os_string();
    s.push(suffix);
    PathBuf::from(s)
}

fn move_aside(path: &Path, problem: OpenProblem) -> Result<MovedAside> {
    let ts = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let to = aside_name(path, ts);
    fs::rename(path, &to).map_err(|error| StoreError::Io {
        path: path.to_path_buf(),
        context: format!("move the unusable index aside to {}", to.display()),
        error,
    })?;
    let mut companions = Vec::new();
    for suffix in ["-wal", "-shm", "-journal"] {
        let from = with_suffix(path, suffix);
        if fs::symlink_metadata(&from).is_ok() {
            let dest = with_suffix(&to, suffix);
            fs::rename(&from, &dest).map_err(|error| StoreError::Io {
                path: from.clone(),
                context: format!("move aside to {}", dest.display()),
                error,
            })?;
            companions.push(dest);
        }
    }
    Ok(MovedAside {
        problem,
        to,
        companions,
    })
}

impl SqliteStore {
    /// Open (creating if needed) the index at `path`; a file there that is not
    /// a usable doppel index is moved aside and replaced by a fresh one, as
    /// the report says. Errors that do not prove the file bad (permissions,
    /// another process holding a lock, I/O) are returned and move nothing.
    pub fn open(path: &Path) -> Result<(SqliteStore, OpenReport)> {
        let (store, report, check) = Self::open_with(path, Check::Now)?;
        debug_assert!(check.thread.is_none(), "checked before returning");
        Ok((store, report))
    }

    /// [`SqliteStore::open`], except that an existing index's `PRAGMA
    /// quick_check`, which reads the whole file (about a quarter of a second
    /// per GB), runs on a connection of its own while the caller reads the
    /// index. The caller writes nothing before [`PendingCheck::passed`], and
    /// when it fails, drops this store and calls [`SqliteStore::open`], which
    /// moves the file aside.
    pub fn open_checking_in_background(
        path: &Path,
    ) -> Result<(SqliteStore, OpenReport, PendingCheck)> {
        Self::open_with(path, Check::Background)
    }

    #[tracing::instrument(level = "info", name = "store.open", skip_all, fields(path = %path.display()))]
    fn open_with(path: &Path, check: Check) -> Result<(SqliteStore, OpenReport, PendingCheck)> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            fs::create_dir_all(dir).map_err(|error| StoreError::Io {
                path: path.to_path_buf(),
                context: format!("create the folder {}", dir.display()),
                error,
            })?;
        }
        let mut report = OpenReport {
            path: path.to_path_buf(),
            created: false,
            moved_aside: None,
            warnings: Vec::new(),
        };
        let (opened, pending) = match Self::try_open(path, &mut report, check) {
            Ok(opened) => opened,
            Err(OpenFailure::Fatal(e)) => return Err(with_file_system_cause(path, e)),
            Err(OpenFailure::Bad(problem)) => {
                tracing::warn!(%problem, "unusable index moved aside");
                report.moved_aside = Some(move_aside(path, problem)?);
                match Self::try_open(path, &mut report, Check::Now) {
                    Ok(opened) => opened,
                    Err(OpenFailure::Fatal(e)) => return Err(e),
                    Err(OpenFailure::Bad(problem)) => {
                        return Err(StoreError::NotAnIndex {
                            path: path.to_path_buf(),
                            problem,
                        })
                    }
                }
            }
        };
        Ok((opened, report, pending))
    }

    fn try_open(
        path: &Path,
        report: &mut OpenReport,
        check: Check,
    ) -> Result<(SqliteStore, PendingCheck), OpenFailure> {
        if create_atomically(path)? {
            report.created = true;
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn =
            Connection::open_with_flags(path, flags).map_err(|e| classify(path, "open", e))?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .ctx(path, "set busy_timeout")?;
        let p = probe(&conn, path)?;
        let fresh = p.application_id == 0 && p.user_version == 0 && p.objects == 0;
        if !fresh {
            if p.application_id != APPLICATION_ID {
                return Err(OpenFailure::Bad(OpenProblem::Foreign {
                    application_id: p.application_id,
                }));
            }
            if (2..SCHEMA_VERSION).contains(&p.user_version) {
                migrate_from(p.user_version, &conn, path)?;
            } else if p.user_version != SCHEMA_VERSION {
                return Err(OpenFailure::Bad(OpenProblem::UnknownSchema {
                    version: p.user_version,
                }));
            }
            if check == Check::Now {
                if let Some(detail) = quick_check(&conn, path)? {
                    return Err(OpenFailure::Bad(OpenProblem::Corrupt { detail }));
                }
            }
        }
        let mode: String = conn
            .pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))
            .map_err(|e| classify(path, "set journal_mode=WAL", e))?;
        if !mode.eq_ignore_ascii_case("wal") {
            report.warnings.push(format!(
                "index {}: write-ahead logging is unavailable here (journal_mode is {mode}); \
                 is it on a network file system? Updates will be slower.",
                path.display()
            ));
        }
        conn.pragma_update(None, "synchronous", "NORMAL")
            .ctx(path, "set synchronous=NORMAL")?;
        conn.pragma_update(None, "foreign_keys", true)
            .ctx(path, "set foreign_keys=ON")?;
        let fk: bool = conn
            .pragma_query_value(None, "foreign_keys", |r| r.get(0))
            .ctx(path, "read foreign_keys")?;
        if !fk {
            return Err(OpenFailure::Fatal(StoreError::Invalid {
                path: path.to_path_buf(),
                reason: "this SQLite build does not enforce foreign keys".into(),
            }));
        }
        let mut store = SqliteStore {
            conn,
            path: path.to_path_buf(),
            corrupt: Default::default(),
            curator: crate::login_name(),
        };
        if fresh {
            // Only where a file could not be created whole beside it first.
            report.created |= store.init_schema()?;
        }
        let pending = match check {
            Check::Background if !fresh => PendingCheck::start(path),
            _ => PendingCheck { thread: None },
        };
        Ok((store, pending))
    }

    /// Create the schema in one transaction; `false` if another process did
    /// it first.
    fn init_schema(&mut self) -> Result<bool> {
        let path = &self.path;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .ctx(path, "begin creating the schema")?;
        let app: i32 = tx
            .pragma_query_value(None, "application_id", |r| r.get(0))
            .ctx(path, "read application_id")?;
        if app == APPLICATION_ID {
            return Ok(false);
        }
        tx.execute_batch(SCHEMA).ctx(path, "create the schema")?;
        tx.pragma_update(None, "application_id", APPLICATION_ID)
            .ctx(path, "set application_id")?;
        tx.pragma_update(None, "user_version", SCHEMA_VERSION)
            .ctx(path, "set user_version")?;
        tx.execute(
            "INSERT INTO meta (key, value) VALUES ('created_by', ?1), ('created_at_ns', ?2)",
            params![
                format!("doppel {}", env!("CARGO_PKG_VERSION")),
                now_ns().to_string()
            ],
        )
        .ctx(path, "write meta")?;
        tx.commit().ctx(path, "commit the schema")?;
        Ok(true)
    }

    /// Open an existing index for reading only (the UI's connection). Never
    /// creates or moves anything; a file that is not a usable index is an error.
    pub fn open_read_only(path: &Path) -> Result<SqliteStore> {
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        Self::open_probed(
            path,
            flags,
            "open read-only",
            SCHEMA_VERSION..=SCHEMA_VERSION,
        )
    }

    /// Open an existing index with `flags`, never creating, moving or
    /// migrating anything: a file that is not a doppel index whose schema
    /// is one of `versions` is [`StoreError::NotAnIndex`].
    fn open_probed(
        path: &Path,
        flags: OpenFlags,
        verb: &str,
        versions: std::ops::RangeInclusive<i32>,
    ) -> Result<SqliteStore> {
        let fatal = |f: OpenFailure| match f {
            OpenFailure::Bad(problem) => StoreError::NotAnIndex {
                path: path.to_path_buf(),
                problem,
            },
            OpenFailure::Fatal(e) => e,
        };
        let conn =
            Connection::open_with_flags(path, flags).map_err(|e| fatal(classify(path, verb, e)))?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .ctx(path, "set busy_timeout")?;
        let p = probe(&conn, path).map_err(fatal)?;
        if p.application_id != APPLICATION_ID {
            return Err(fatal(OpenFailure::Bad(OpenProblem::Foreign {
                application_id: p.application_id,
            })));
        }
        if !versions.contains(&p.user_version) {
            return Err(fatal(OpenFailure::Bad(OpenProblem::UnknownSchema {
                version: p.user_version,
            })));
        }
        Ok(SqliteStore {
            conn,
            path: path.to_path_buf(),
            corrupt: Default::default(),
            curator: crate::login_name(),
        })
    }

    /// The default index file for `root`: in [`SqliteStore::default_dir`], named
    /// by [`index_file_name`]. The same folder, however it is spelled or
    /// linked to, gets the same file. Refused when it would lie inside `root`
    /// (e.g. when watching the home folder); pass an explicit path then.
    pub fn default_path(root: &Path) -> Result<PathBuf> {
        let canonical = root.canonicalize().map_err(|error| StoreError::Root {
            root: root.to_path_buf(),
            error,
        })?;
        let path = Self::default_dir()?.join(index_file_name(&canonical));
        ensure_outside_root(&path, root)?;
        Ok(path)
    }

    /// The folder of the indexes when the config file names none: the
    /// platform data directory's `indexes` (`$XDG_DATA_HOME/doppel/indexes`
    /// on Linux).
    pub fn default_dir() -> Result<PathBuf> {
        let dirs = directories::ProjectDirs::from("", "", "doppel").ok_or(StoreError::NoDataDir)?;
        Ok(dirs.data_dir().join("indexes"))
    }

    /// Open an existing index to look at it or remove it (`doppel_index::index_files`):
    /// read-write, so closing it removes the `-wal`/`-shm` that reading
    /// creates, but never creating, moving or writing anything. A file that is not a doppel index of this schema is
    /// [`StoreError::NotAnIndex`].
    pub fn open_existing(path: &Path) -> Result<SqliteStore> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        Self::open_probed(path, flags, "open", 2..=SCHEMA_VERSION)
    }
}

impl Store for SqliteStore {
    fn path(&self) -> &Path {
        &self.path
    }

    fn backend_name(&self) -> &'static str {
        "sqlite"
    }

    fn is_shared(&self) -> bool {
        false
    }

    fn integrity_check(&self) -> Result<bool> {
        let rows: Vec<String> =
            collect_rows(&self.conn, "PRAGMA integrity_check", [], |r| r.get(0))
                .ctx(&self.path, "integrity_check")?;
        Ok(rows.len() == 1 && rows[0] == "ok")
    }

    fn checkpoint(&self) -> Result<()> {
        self.conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .ctx(&self.path, "checkpoint")
    }

    fn lock_exclusively(&mut self) -> Result<bool> {
        let path = &self.path;
        self.conn
            .pragma_update(None, "locking_mode", "EXCLUSIVE")
            .ctx(path, "set locking_mode=EXCLUSIVE")?;
        // Any other connection, however briefly it holds its lock, means
        // the index is in use: no waiting.
        self.conn
            .busy_timeout(Duration::ZERO)
            .ctx(path, "set busy_timeout")?;
        let locked = self.conn.execute_batch("BEGIN EXCLUSIVE; COMMIT");
        self.conn
            .busy_timeout(BUSY_TIMEOUT)
            .ctx(path, "set busy_timeout")?;
        match locked {
            Ok(()) => Ok(true),
            Err(e)
                if matches!(
                    e.sqlite_error_code(),
                    Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
                ) =>
            {
                // Reads go on under the others' shared locks.
                self.conn
                    .pragma_update(None, "locking_mode", "NORMAL")
                    .ctx(path, "set locking_mode=NORMAL")?;
                Ok(false)
            }
            Err(e) => Err(e).ctx(path, "take an exclusive lock"),
        }
    }
}

/// Bring a version-2 to -7 index to this schema: a checksum column
/// beside the fingerprint blobs (3), a table of each document's part in
/// boilerplate learning (4), one of kept texts (5), verdicts per curator
/// with their history (6, [`VERDICTS_PER_CURATOR`]), the learner's
/// samples packed beside the fingerprints (7,
/// [`super::boilerplate::split_rows_of_schema_6`]) and each document's
/// keeper facts (8, [`KEEPER_FACTS`]), in one transaction.
/// Rows written before 3 have no checksum and read as missing (their
/// fingerprints are of another configuration key anyway: it names the
/// schema, so every file is read again and keeps its text then).
fn migrate_from(
    version: i32,
    conn: &Connection,
    path: &Path,
) -> std::result::Result<(), OpenFailure> {
    let checksum = match version < 3 {
        true => "ALTER TABLE document_prints ADD COLUMN checksum INTEGER;",
        false => "",
    };
    let verdicts = match version < 6 {
        true => VERDICTS_PER_CURATOR,
        false => "",
    };
    let samples = match version < 7 {
        true => "ALTER TABLE document_prints ADD COLUMN samples BLOB;",
        false => "",
    };
    let steps = || -> rusqlite::Result<()> {
        conn.execute_batch(&format!(
            "{checksum} \
             CREATE TABLE IF NOT EXISTS document_boilerplate ( \
                 id          INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE, \
                 boilerplate BLOB NOT NULL \
             ) STRICT; \
             CREATE TABLE IF NOT EXISTS document_texts ( \
                 id       INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE, \
                 text     BLOB NOT NULL, \
                 checksum INTEGER NOT NULL \
             ) STRICT; \
             {verdicts} \
             {samples} \
             {KEEPER_FACTS}"
        ))?;
        if version < 7 {
            super::boilerplate::split_rows_of_schema_6(conn)?;
        }
        conn.execute_batch(&format!("PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;"))
    };
    conn.execute_batch("BEGIN IMMEDIATE")
        .and_then(|()| steps())
        .map_err(|e| {
            let _ = conn.execute_batch("ROLLBACK");
            classify(
                path,
                &format!("migrate the schema from version {version}"),
                e,
            )
        })
}

/// Create a new index at `path` whole, if there is none: its schema is
/// written to a file of its own beside it, which is then linked to `path`,
/// so no other process ever sees a half-created index (it would take it
/// for another application's file and move it aside, or fail on its
/// locks). `true` when this call created it; `false` when a file is there
/// already (another process may have just linked its own), or the file
/// system cannot link (the caller then creates it in place).
fn create_atomically(path: &Path) -> std::result::Result<bool, OpenFailure> {
    if fs::symlink_metadata(path).is_ok() {
        return Ok(false);
    }
    // Two threads of one process may read the same clock to the
    // nanosecond (a VM's clock is coarse): a counter keeps their files
    // apart, or one would remove the other's half-built index.
    static BUILDS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let unique = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let build = BUILDS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let building = path.with_file_name(format!(
        ".{name}.creating-{}-{unique}-{build}",
        std::process::id()
    ));
    // Linked only if nothing is there; an existing file (another
    // process's, just linked) or a file system without hard links (some
    // network or FAT ones: the caller creates it in place) is not ours.
    let result = build_new_index(&building).map(|()| fs::hard_link(&building, path).is_ok());
    for companion in ["", "-wal", "-shm", "-journal"] {
        let mut file = building.clone().into_os_string();
        file.push(companion);
        let _ = fs::remove_file(file);
    }
    result
}

/// A complete, empty index at `building`, in WAL mode where the file
/// system allows it (so the opens that follow change nothing), closed.
fn build_new_index(building: &Path) -> std::result::Result<(), OpenFailure> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(building, flags)
        .map_err(|e| OpenFailure::Fatal(classify_fatal(building, "create", e)))?;
    let mut store = SqliteStore {
        conn,
        path: building.to_path_buf(),
        corrupt: Default::default(),
        curator: crate::login_name(),
    };
    store.init_schema().map_err(OpenFailure::Fatal)?;
    // Where WAL is unavailable, the open that follows says so.
    let _ = store
        .conn
        .pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get::<_, String>(0));
    drop(store);
    Ok(())
}

/// A failure creating a file of our own: never a reason to move one aside.
fn classify_fatal(path: &Path, context: &str, error: rusqlite::Error) -> StoreError {
    StoreError::Sqlite {
        path: path.to_path_buf(),
        context: context.to_owned(),
        error,
    }
}
