//! No secret leaves the process: a store address's password (in the URL's
//! `user:password@`, as a `password=` or `sslpassword=` parameter, or in a
//! libpq `key=value` string) never shows on stdout, stderr or the log of
//! the real binary, whatever path the address takes: `doppel config`,
//! `index list`, a `--store` that is refused, a server that is not there
//! (a Unix socket in an empty temporary folder: nothing touches the
//! network), `watch --jsonl` and `--log FILE`. A `--store` that is neither
//! a `postgres://` URL nor an SQLite index file is a usage error (exit 2)
//! that makes no file.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

/// The password every test hides.
const CANARY: &str = "CANARY-s3cr3t";

/// A folder to scan, a folder to run in, and an empty folder standing for
/// a server's socket folder (no server listens there).
struct Place {
    dir: tempfile::TempDir,
}

impl Place {
    fn new() -> Place {
        let place = Place {
            dir: tempfile::tempdir().unwrap(),
        };
        for sub in ["docs", "cwd", "socket", "indexes", "data"] {
            std::fs::create_dir(place.path(sub)).unwrap();
        }
        std::fs::write(place.path("docs/a.txt"), "one small text\n").unwrap();
        place
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// The socket folder as a URL's host (percent-encoded slashes).
    fn socket_host(&self) -> String {
        self.path("socket")
            .display()
            .to_string()
            .replace('/', "%2F")
    }

    /// A config file holding `store = "<store>"` and an index folder of
    /// its own.
    fn config(&self, store: &str) -> PathBuf {
        let path = self.path("config.toml");
        std::fs::write(
            &path,
            format!(
                "store = \"{store}\"\nindex-dir = \"{}\"\n",
                self.path("indexes").display()
            ),
        )
        .unwrap();
        path
    }

    /// `doppel ARGS…` run in the `cwd` folder, with no password from the
    /// environment or a password file.
    fn doppel(&self, args: &[&str]) -> Output {
        common::doppel()
            .current_dir(self.path("cwd"))
            .env_remove("PGPASSWORD")
            .env("PGPASSFILE", self.path("no-pgpass"))
            .env("XDG_DATA_HOME", self.path("data"))
            .env_remove("DOPPEL_LOG")
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    }

    fn docs(&self) -> String {
        self.path("docs").display().to_string()
    }
}

/// stdout and stderr of `out`, failing if either holds the canary.
fn without_canary(out: &Output) -> (String, String) {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        !stdout.contains(CANARY) && !stderr.contains(CANARY),
        "the password was printed:\nstdout: {stdout}\nstderr: {stderr}"
    );
    (stdout, stderr)
}

/// The names in `dir`.
fn names(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn doppel_config_shows_the_store_without_its_password() {
    let p = Place::new();
    for store in [
        format!("postgres://doppel:{CANARY}@db.example/library"),
        format!("postgresql://doppel@db.example:6543/library?password={CANARY}&sslmode=require"),
    ] {
        let config = p.config(&store);
        let out = p.doppel(&["--config", config.to_str().unwrap(), "config"]);
        assert!(out.status.success(), "{out:?}");
        let (stdout, _) = without_canary(&out);
        assert!(
            stdout.contains("store = \"postgres") && stdout.contains("doppel@db.example"),
            "the store is still shown: {stdout}"
        );
    }
    // A file that is not TOML: the parser's message quotes the line.
    let config = p.path("broken.toml");
    std::fs::write(
        &config,
        format!("store = \"postgres://doppel:{CANARY}@db.example/library\n"),
    )
    .unwrap();
    let out = p.doppel(&["--config", config.to_str().unwrap(), "config"]);
    let (_, stderr) = without_canary(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("doppel@db.example"), "{stderr}");
}

#[test]
fn a_bad_store_url_is_a_usage_error_without_its_password() {
    let p = Place::new();
    for store in [
        format!("postgres://doppel@db.example/library?password={CANARY}&sslmode=bogus"),
        format!("postgres://doppel:{CANARY}@db.example:notaport/library"),
        format!("postgres://doppel@db.example/library?sslpassword={CANARY}"),
    ] {
        let out = p.doppel(&["scan", &p.docs(), "--store", &store]);
        let (_, stderr) = without_canary(&out);
        assert_eq!(out.status.code(), Some(2), "a usage error: {stderr}");
        assert!(stderr.contains("--store"), "names the flag: {stderr}");
        assert!(
            stderr.contains("postgres://doppel@db.example"),
            "names the address: {stderr}"
        );
        // The same through the config file: refused as every bad setting
        // of the file is (exit 1, naming the file).
        let config = p.config(&store);
        let out = p.doppel(&["--config", config.to_str().unwrap(), "scan", &p.docs()]);
        let (_, stderr) = without_canary(&out);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains("config.toml"), "{stderr}");
    }
}

#[test]
fn a_libpq_connection_string_is_refused_and_makes_no_file() {
    let p = Place::new();
    let socket = p.path("socket");
    for store in [
        format!("host={} password={CANARY} dbname=library", socket.display()),
        format!("dbname=library password='{CANARY} with spaces' user=doppel"),
    ] {
        for command in ["scan", "watch"] {
            let mut args = vec![command, "--store", &store];
            let docs = p.docs();
            args.insert(1, &docs);
            if command == "watch" {
                args.extend(["--jsonl", "--until-eof"]);
            }
            let out = p.doppel(&args);
            let (stdout, stderr) = without_canary(&out);
            assert_eq!(out.status.code(), Some(2), "{stdout}{stderr}");
            assert!(
                stderr.contains("postgres://") && stderr.contains(".sqlite"),
                "says what is expected: {stderr}"
            );
            assert!(names(&p.path("cwd")).is_empty(), "no file made");
            assert!(names(&socket).is_empty(), "no file made");
        }
        // In the config file: refused naming the file, the password left out.
        let config = p.config(&store.replace('\'', ""));
        let out = p.doppel(&["--config", config.to_str().unwrap(), "scan", &p.docs()]);
        let (_, stderr) = without_canary(&out);
        assert!(!out.status.success(), "{stderr}");
        assert!(names(&p.path("cwd")).is_empty(), "no file made");
    }
}

#[test]
fn a_store_that_is_no_url_nor_index_file_is_a_usage_error() {
    let p = Place::new();
    for store in ["library", "state/index", "mysql://db.example/library"] {
        let out = p.doppel(&["scan", &p.docs(), "--store", store]);
        let (_, stderr) = without_canary(&out);
        assert_eq!(out.status.code(), Some(2), "{store}: {stderr}");
        assert!(stderr.contains(".sqlite"), "{stderr}");
    }
    assert!(names(&p.path("cwd")).is_empty(), "no file made");
    // An index file, as documented, still works.
    for name in ["index.sqlite", "index.db", "index.sqlite3"] {
        let out = p.doppel(&["scan", &p.docs(), "--store", name]);
        assert!(out.status.success(), "{name}: {out:?}");
        assert!(p.path("cwd").join(name).is_file(), "{name}");
    }
}

#[test]
fn index_list_names_the_configured_store_without_its_password() {
    let p = Place::new();
    for store in [
        format!("postgres://doppel:{CANARY}@db.example/library"),
        format!("postgres://doppel@db.example/library?password={CANARY}"),
    ] {
        let config = p.config(&store);
        let out = p.doppel(&["--config", config.to_str().unwrap(), "index", "list"]);
        assert!(out.status.success(), "{out:?}");
        let (_, stderr) = without_canary(&out);
        assert!(stderr.contains("doppel@db.example"), "{stderr}");
    }
}

#[test]
fn an_unreachable_server_is_one_line_without_the_password_in_output_and_log() {
    let p = Place::new();
    let host = p.socket_host();
    let log = p.path("doppel.log");
    for store in [
        format!("postgres://doppel:{CANARY}@{host}/library"),
        format!("postgres://doppel@{host}/library?password={CANARY}"),
    ] {
        let out = common::doppel()
            .current_dir(p.path("cwd"))
            .env_remove("PGPASSWORD")
            .env("PGPASSFILE", p.path("no-pgpass"))
            .env("DOPPEL_LOG", "doppel=trace")
            .args(["--log", log.to_str().unwrap(), "scan", &p.docs()])
            .args(["--store", &store])
            .output()
            .unwrap();
        let (_, stderr) = without_canary(&out);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains("doppel@"), "names the address: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        // The same through the config file, and from watch's JSON lines.
        let config = p.config(&store);
        let config = config.to_str().unwrap();
        let out = p.doppel(&["--config", config, "scan", &p.docs()]);
        let (_, stderr) = without_canary(&out);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        let out = p.doppel(&[
            "--config",
            config,
            "watch",
            &p.docs(),
            "--jsonl",
            "--until-eof",
        ]);
        let (stdout, _) = without_canary(&out);
        assert!(stdout.contains("\"event\":\"error\""), "{stdout}");
    }
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(
        logged.contains("store.open"),
        "the log was written: {logged}"
    );
    assert!(
        !logged.contains(CANARY),
        "the password was logged: {logged}"
    );
}
