//! The team store's password: from the URL, `PGPASSWORD` or the password
//! file (`PGPASSFILE`), against a cluster that asks for one
//! (scram-sha-256), never printed; a wrong one, or a server that is not
//! there, is one line naming the address. The cluster is started here
//! from `initdb` (`DOPPEL_PG_BIN`, which `.ci/run` sets, else `PATH`,
//! else the Debian packages' folder); without it the test skips, unless
//! `DOPPEL_TEST_PG_REQUIRED=1`, when it fails.
#![cfg(all(feature = "postgres", unix))]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::doppel;

/// The password the cluster's superuser `postgres` has.
const PASSWORD: &str = "s3cret-horse";

/// The port the cluster's socket is named after (its folder is its own).
const PORT: u16 = 54386;

/// The folder holding `initdb` and `pg_ctl`, found as `.ci/run` finds it.
fn pg_bin() -> Option<PathBuf> {
    let has_both = |dir: &Path| dir.join("initdb").is_file() && dir.join("pg_ctl").is_file();
    let given = std::env::var_os("DOPPEL_PG_BIN").map(PathBuf::from);
    let on_path = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default();
    let mut debian: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|dirs| dirs.flatten().map(|d| d.path().join("bin")).collect())
        .unwrap_or_default();
    debian.sort();
    debian.reverse();
    given
        .into_iter()
        .chain(on_path)
        .chain(debian)
        .find(|dir| has_both(dir))
}

/// A throwaway cluster that asks for passwords, listening only on a Unix
/// socket in its own folder; stopped when dropped.
struct Cluster {
    dir: tempfile::TempDir,
    bin: PathBuf,
}

impl Cluster {
    /// Start one, or `None` (skip) when PostgreSQL is not installed and
    /// not required.
    fn start() -> Option<Cluster> {
        let required = std::env::var("DOPPEL_TEST_PG_REQUIRED").is_ok_and(|v| v == "1");
        let Some(bin) = pg_bin() else {
            assert!(
                !required,
                "DOPPEL_TEST_PG_REQUIRED=1 but initdb is not installed"
            );
            eprintln!("skipped: no initdb (set DOPPEL_PG_BIN to PostgreSQL's bin folder)");
            return None;
        };
        let dir = tempfile::tempdir().unwrap();
        let pwfile = dir.path().join("pwfile");
        std::fs::write(&pwfile, PASSWORD).unwrap();
        let cluster = Cluster { dir, bin };
        // initdb refuses to run as root: there the cluster is nobody's.
        if is_root() {
            let nobody = String::from_utf8(
                Command::new("id")
                    .args(["-u", "nobody"])
                    .output()
                    .unwrap()
                    .stdout,
            )
            .unwrap();
            let nobody: u32 = nobody.trim().parse().unwrap();
            std::os::unix::fs::chown(cluster.dir.path(), Some(nobody), None).unwrap();
            std::os::unix::fs::chown(&pwfile, Some(nobody), None).unwrap();
        }
        let data = cluster.dir.path().join("data");
        cluster.run(
            "initdb",
            &[
                "-D".as_ref(),
                data.as_os_str(),
                "-U".as_ref(),
                "postgres".as_ref(),
                "--auth=scram-sha-256".as_ref(),
                format!("--pwfile={}", pwfile.display()).as_ref(),
            ],
        );
        let options = format!(
            "-k {} -p {PORT} -c listen_addresses=''",
            cluster.dir.path().display()
        );
        cluster.run(
            "pg_ctl",
            &[
                "-D".as_ref(),
                data.as_os_str(),
                "-l".as_ref(),
                cluster.dir.path().join("log").as_os_str(),
                "-w".as_ref(),
                "-o".as_ref(),
                options.as_ref(),
                "start".as_ref(),
            ],
        );
        Some(cluster)
    }

    /// Run one of PostgreSQL's programs (as nobody when root); it must
    /// succeed.
    fn run(&self, program: &str, args: &[&std::ffi::OsStr]) -> Output {
        let program = self.bin.join(program);
        let mut command = if is_root() {
            let mut c = Command::new("runuser");
            c.args(["-u", "nobody", "--"]).arg(program);
            c
        } else {
            Command::new(program)
        };
        let out = command.args(args).output().unwrap();
        assert!(
            out.status.success(),
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// The URL of its `postgres` database as `user_info@` gives it.
    fn url(&self, user_info: &str, port: u16) -> String {
        let folder = self.dir.path().display().to_string().replace('/', "%2F");
        format!("postgres://{user_info}@{folder}:{port}/postgres")
    }

    /// How every message names it (never with a password).
    fn named(&self, port: u16) -> String {
        format!(
            "postgres://postgres@{}:{port}/postgres",
            self.dir.path().display()
        )
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let data = self.dir.path().join("data");
        let _ = self.run(
            "pg_ctl",
            &[
                "-D".as_ref(),
                data.as_os_str(),
                "-m".as_ref(),
                "immediate".as_ref(),
                "-w".as_ref(),
                "stop".as_ref(),
            ],
        );
    }
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0")
}

/// `doppel scan --store URL` of a one-file folder, with no password in
/// its environment but `env`'s (and a home without a password file).
fn scan(url: &str, env: &[(&str, &std::ffi::OsStr)]) -> Output {
    let home = tempfile::tempdir().unwrap();
    let folder = home.path().join("books");
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(folder.join("a.txt"), "it was the best of times").unwrap();
    let mut command = doppel();
    command
        .args(["scan", "--format", "json", "--store", url])
        .arg(&folder)
        .env("HOME", home.path())
        .env_remove("PGPASSWORD")
        .env_remove("PGPASSFILE");
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().unwrap()
}

/// The run succeeded (it connected and logged in).
fn assert_in(out: &Output, how: &str) {
    assert!(
        out.status.success(),
        "{how}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The run failed with one line on standard error naming `named`, saying
/// `says`, and holding no password.
fn assert_one_line(out: &Output, named: &str, says: &str) -> String {
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr).trim_end().to_owned();
    assert!(!stderr.contains('\n'), "one line: {stderr}");
    assert!(stderr.contains(named), "names {named}: {stderr}");
    assert!(stderr.contains(says), "says {says}: {stderr}");
    assert!(
        !stderr.contains(PASSWORD) && !stderr.contains("not-it"),
        "{stderr}"
    );
    stderr
}

#[test]
fn the_password_comes_from_the_url_pgpassword_or_the_password_file_and_is_never_shown() {
    let Some(cluster) = Cluster::start() else {
        return;
    };
    let plain = cluster.url("postgres", PORT);
    let in_url = cluster.url(&format!("postgres:{PASSWORD}"), PORT);
    assert_in(&scan(&in_url, &[]), "the URL's password");
    assert_in(
        &scan(&plain, &[("PGPASSWORD", PASSWORD.as_ref())]),
        "PGPASSWORD",
    );
    let passfile = cluster.dir.path().join("pgpass");
    std::fs::write(
        &passfile,
        format!("# host:port:database:user:password\nelsewhere:*:*:*:nope\nlocalhost:{PORT}:postgres:postgres:{PASSWORD}\n"),
    )
    .unwrap();
    let mode = |m| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&passfile, std::fs::Permissions::from_mode(m)).unwrap()
    };
    mode(0o600);
    assert_in(
        &scan(&plain, &[("PGPASSFILE", passfile.as_os_str())]),
        "the password file",
    );
    // A password file others may read is ignored, as libpq ignores it.
    mode(0o644);
    let ignored = scan(&plain, &[("PGPASSFILE", passfile.as_os_str())]);
    assert!(
        !ignored.status.success(),
        "a readable password file is used"
    );

    // A wrong password: one line naming the address, never the password.
    let wrong = scan(&cluster.url("postgres:not-it", PORT), &[]);
    assert_one_line(
        &wrong,
        &cluster.named(PORT),
        "password authentication failed",
    );
    // A wrong PGPASSWORD is as clear.
    let wrong = scan(&plain, &[("PGPASSWORD", "not-it".as_ref())]);
    assert_one_line(
        &wrong,
        &cluster.named(PORT),
        "password authentication failed",
    );
}

#[test]
fn a_server_that_is_not_there_is_one_line_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().display().to_string();
    let url = format!(
        "postgres://postgres:{PASSWORD}@{}:1/postgres",
        folder.replace('/', "%2F")
    );
    let out = scan(&url, &[]);
    let line = assert_one_line(
        &out,
        &format!("postgres://postgres@{folder}:1/postgres"),
        "connect",
    );
    assert!(line.starts_with("doppel: "), "{line}");
}
