//! `doppel cluster scan DIR --local` (the `cluster` feature) prints what
//! `doppel scan DIR --no-index` prints, byte for byte in every format,
//! however its plans are cut, and so does a manifest of the folder's
//! files; `--out` writes the three Parquet tables, never inside the
//! folder scanned. On a scheduler and executors (127.0.0.1): the same
//! bytes, an executor killed while reading, `--allow`, no addresses.
#![cfg(feature = "cluster")]

mod common;
mod store_places;
use common::{doppel, fixture, stdout_of};

#[test]
fn cluster_scan_prints_what_scan_without_an_index_prints() {
    let fx = fixture();
    for format in ["json", "text", "csv"] {
        let one_machine = stdout_of(
            doppel()
                .args(["scan", "--no-index", "--format", format])
                .arg(&fx.folder),
        );
        for partitions in ["1", "3"] {
            let plans = stdout_of(
                doppel()
                    .args(["cluster", "scan", "--local", "--batch-files", "2"])
                    .args(["--partitions", partitions, "--format", format])
                    .arg(&fx.folder),
            );
            assert!(
                plans == one_machine,
                "{format} on {partitions} partitions:\n{}",
                String::from_utf8_lossy(&plans)
            );
        }
    }
}

/// A manifest in the folder (hidden, so a scan of the folder does not
/// read it) listing every file, as `find` lists them: the folder's report.
/// A path outside the folder is listed as not read, with why.
#[test]
fn a_manifest_gives_its_folders_report_and_reads_nothing_outside_it() {
    let fx = fixture();
    let one_machine = one_machine_json(&fx.folder);
    let mut listed = Vec::new();
    every_file(&fx.folder, &fx.folder, &mut listed);
    let manifest = fx.folder.join(".manifest");
    std::fs::write(&manifest, listed.join("\n")).unwrap();
    let plans = stdout_of(
        doppel()
            .args(["cluster", "scan", "--local", "--format", "json"])
            .arg(&manifest),
    );
    assert!(
        plans == one_machine,
        "of the manifest:\n{}",
        String::from_utf8_lossy(&plans)
    );

    let outside = fx.folder.parent().unwrap().join("secret.txt");
    std::fs::write(&outside, "not the library's").unwrap();
    listed.push("../secret.txt".to_owned());
    std::fs::write(&manifest, listed.join("\n")).unwrap();
    let json: serde_json::Value = serde_json::from_slice(&stdout_of(
        doppel()
            .args(["cluster", "scan", "--local", "--format", "json"])
            .arg(&manifest),
    ))
    .unwrap();
    let said = json.to_string();
    assert!(
        said.contains("outside the manifest's folder (not read)"),
        "{said}"
    );
}

/// Every file beneath `dir` as a path relative to `root`.
fn every_file(root: &std::path::Path, dir: &std::path::Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            every_file(root, &path, out);
        } else {
            out.push(path.strip_prefix(root).unwrap().display().to_string());
        }
    }
}

#[test]
fn out_writes_the_parquet_tables_and_never_inside_the_folder() {
    let fx = fixture();
    let inside = fx.folder.join("tables");
    let refused = doppel()
        .args(["cluster", "scan", "--local", "--out"])
        .arg(&inside)
        .arg(&fx.folder)
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("inside the folder scanned"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    assert!(!inside.exists(), "nothing written inside the folder");

    let out = tempfile::tempdir().unwrap();
    let tables = out.path().join("tables");
    stdout_of(
        doppel()
            .args(["cluster", "scan", "--local", "--format", "json", "--out"])
            .arg(&tables)
            .arg(&fx.folder),
    );
    for name in ["documents", "pairs", "clusters"] {
        let bytes = std::fs::read(tables.join(format!("{name}.parquet"))).unwrap();
        assert!(
            bytes.starts_with(b"PAR1") && bytes.ends_with(b"PAR1"),
            "{name}.parquet is a Parquet file"
        );
    }
}

#[test]
fn without_local_or_a_scheduler_the_command_says_what_it_needs() {
    let fx = fixture();
    let out = doppel()
        .args(["cluster", "scan"])
        .arg(&fx.folder)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "a usage error");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--local"));
}

/// A `doppel cluster` server process, stopped when dropped.
struct Server(std::process::Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A port free on 127.0.0.1 now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Start `doppel cluster ARGS` and wait (at most a minute) until it
/// listens on `port`.
fn serve(args: &[&str], port: u16) -> Server {
    serve_logged(args, port, std::process::Stdio::null())
}

/// `serve`, its log (doppel_cluster's, at info) written to `log`.
fn serve_logged(args: &[&str], port: u16, log: std::process::Stdio) -> Server {
    let mut server = Server(
        doppel()
            .arg("cluster")
            .args(args)
            .env("DOPPEL_LOG", "doppel_cluster=info")
            .stdout(std::process::Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap(),
    );
    let end = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Some(status) = server.0.try_wait().unwrap() {
            panic!("`doppel cluster {}` ended: {status}", args.join(" "));
        }
        assert!(std::time::Instant::now() < end, "nothing listens on {port}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    server
}

/// An executor of the scheduler at `scheduler` that reads beneath
/// `allow`, one task at a time, beating every second, its log written to
/// `log`.
fn executor(scheduler: &str, allow: &std::path::Path, log: std::process::Stdio) -> Server {
    executor_with(scheduler, allow, log, &[])
}

/// [`executor`], started with `extra` options too.
fn executor_with(
    scheduler: &str,
    allow: &std::path::Path,
    log: std::process::Stdio,
    extra: &[&str],
) -> Server {
    let (port, grpc) = (free_port(), free_port());
    let bind = format!("127.0.0.1:{port}");
    let grpc = grpc.to_string();
    let allow = allow.to_str().unwrap();
    let args = ["executor", "--scheduler", scheduler, "--bind", &bind];
    let rest = ["--grpc-port", &grpc, "--tasks", "1", "--heartbeat", "1"];
    serve_logged(
        &[&args[..], &rest[..], &["--allow", allow], extra].concat(),
        port,
        log,
    )
}

/// `doppel scan --no-index --format json FOLDER`: one machine's report.
fn one_machine_json(folder: &std::path::Path) -> Vec<u8> {
    stdout_of(
        doppel()
            .args(["scan", "--no-index", "--format", "json"])
            .arg(folder),
    )
}

/// A scheduler on a free port of 127.0.0.1, started with `extra`
/// options: its address and the process.
fn scheduler(extra: &[&str]) -> (String, Server) {
    let port = free_port();
    let address = format!("127.0.0.1:{port}");
    let args = ["scheduler", "--bind", &address];
    let server = serve(&[&args[..], extra].concat(), port);
    (address, server)
}

/// `cluster scan --scheduler` of `folder` on four partitions, in JSON,
/// as several jobs of at most 12 documents.
fn scan_on(scheduler: &str, folder: &std::path::Path) -> std::process::Command {
    let mut command = doppel();
    command
        .args(["cluster", "scan", "--scheduler", scheduler])
        .args(["--partitions", "4", "--batch-files", "2"])
        .args(["--job-files", "12", "--format", "json"])
        .arg(folder);
    command
}

/// The standard output of `command`, which must succeed within `limit`
/// (else it is killed and the test fails: a lost job must not hang CI).
fn stdout_within(command: &mut std::process::Command, limit: std::time::Duration) -> Vec<u8> {
    let out = output_within(command, limit);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// What `command` printed and how it ended, within `limit` (else it is
/// killed and the test fails).
fn output_within(
    command: &mut std::process::Command,
    limit: std::time::Duration,
) -> std::process::Output {
    let mut child = Server(
        command
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let stdout = drained(child.0.stdout.take().unwrap());
    let stderr = drained(child.0.stderr.take().unwrap());
    std::process::Output {
        status: ended_within(&mut child, limit),
        stdout: stdout.join().unwrap().unwrap(),
        stderr: stderr.join().unwrap().unwrap(),
    }
}

/// Everything `from` gives until it ends, read on a thread of its own (so
/// a child never blocks on a full pipe).
fn drained(
    mut from: impl std::io::Read + Send + 'static,
) -> std::thread::JoinHandle<std::io::Result<Vec<u8>>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        from.read_to_end(&mut bytes).map(|_| bytes)
    })
}

/// How `process` ended, within `limit` (else it is killed and the test
/// fails).
fn ended_within(process: &mut Server, limit: std::time::Duration) -> std::process::ExitStatus {
    let end = std::time::Instant::now() + limit;
    loop {
        if let Some(status) = process.0.try_wait().unwrap() {
            return status;
        }
        assert!(
            std::time::Instant::now() < end,
            "no answer within {limit:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// A scheduler no executor ever joined: the scan gives up once its wait
/// for one is over, says so and how to start one, without the
/// scheduler's address (a job queued there would wait forever).
#[test]
fn a_scheduler_without_executors_fails_the_scan_after_its_wait() {
    let fx = fixture();
    let (scheduler, _scheduler) = scheduler(&[]);
    let out = output_within(
        scan_on(&scheduler, &fx.folder).args(["--wait-for-executors", "2"]),
        std::time::Duration::from_secs(60),
    );
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("no executor served the scheduler for 2 s"),
        "{said}"
    );
    assert!(said.contains("doppel cluster executor"), "{said}");
    let port = scheduler.rsplit(':').next().unwrap();
    assert!(
        !said.contains(port) && !said.contains("127.0.0.1"),
        "{said}"
    );
}

/// A scan sent before any executor joined waits (saying so in its log),
/// and the first executor to join runs it as one machine would.
#[test]
fn a_scan_waits_for_the_first_executor_to_join() {
    let fx = fixture();
    let one_machine = one_machine_json(&fx.folder);
    let (scheduler, _scheduler) = scheduler(&[]);
    let mut scan = Server(
        scan_on(&scheduler, &fx.folder)
            .env("DOPPEL_LOG", "doppel_cluster=warn")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let printed = drained(scan.0.stdout.take().unwrap());
    told_when(&mut scan, "waits for one to join")
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("the scan says it waits for an executor");
    let _executor = executor(&scheduler, &fx.folder, std::process::Stdio::null());
    let ended = ended_within(&mut scan, std::time::Duration::from_secs(300));
    assert!(ended.success(), "{ended}");
    let plans = printed.join().unwrap().unwrap();
    assert!(plans == one_machine, "{}", String::from_utf8_lossy(&plans));
}

/// A scheduler nobody answers at: the scan fails saying so, and names
/// neither its host nor its port.
#[test]
fn a_scheduler_that_cannot_be_reached_is_said_without_its_address() {
    let fx = fixture();
    let port = free_port();
    let out = output_within(
        &mut scan_on(&format!("127.0.0.1:{port}"), &fx.folder),
        std::time::Duration::from_secs(120),
    );
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("cannot be reached"), "{said}");
    assert!(
        !said.contains(&port.to_string()) && !said.contains("127.0.0.1"),
        "{said}"
    );
}

#[test]
fn a_scheduler_and_two_executors_print_what_one_machine_prints() {
    let fx = fixture();
    let (scheduler, _scheduler) = scheduler(&[]);
    let logs = tempfile::tempdir().unwrap();
    let log_of = |at: usize| logs.path().join(format!("executor-{at}.log"));
    let _executors: Vec<Server> = (0..2)
        .map(|at| {
            let log = std::fs::File::create(log_of(at)).unwrap();
            executor(&scheduler, &fx.folder, log.into())
        })
        .collect();
    let one_machine = one_machine_json(&fx.folder);
    let plans = stdout_within(
        &mut scan_on(&scheduler, &fx.folder),
        std::time::Duration::from_secs(300),
    );
    assert!(
        plans == one_machine,
        "on the cluster:\n{}",
        String::from_utf8_lossy(&plans)
    );
    // The reading was shared: each executor read batches.
    let logs: Vec<String> = (0..2)
        .map(|at| std::fs::read_to_string(log_of(at)).unwrap())
        .collect();
    for (at, log) in logs.iter().enumerate() {
        assert!(
            log.contains("reading a batch"),
            "executor {at} read nothing"
        );
    }
    // The bodies of the three licence-wrapped e-texts were made there
    // too, once the licence was learned: the client read no document.
    let bodies: usize = logs
        .iter()
        .map(|log| documents_logged(log, "making the bodies of a batch"))
        .sum();
    assert_eq!(bodies, 3, "{logs:?}");
}

/// Told when `executor` (its log piped) starts reading its first batch.
fn first_batch(executor: &mut Server) -> std::sync::mpsc::Receiver<()> {
    told_when(executor, "reading a batch")
}

/// Told when `process` (its log piped) first logs a line holding `what`;
/// the rest of its log is read and dropped.
fn told_when(process: &mut Server, what: &'static str) -> std::sync::mpsc::Receiver<()> {
    use std::io::BufRead;
    let log = process.0.stderr.take().unwrap();
    let (saying, said) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut lines = std::io::BufReader::new(log).lines();
        if lines.any(|line| line.is_ok_and(|l| l.contains(what))) {
            let _ = saying.send(());
        }
        lines.for_each(drop);
    });
    said
}

/// The fault a cluster must survive: an executor killed while it reads.
/// It is the only executor when the scan starts (so it is given the
/// reading); killed as it starts a batch, it stops beating, the scheduler
/// takes it for lost and runs its tasks on an executor started after the
/// kill, and the report is still one machine's.
#[test]
fn an_executor_killed_while_reading_changes_nothing() {
    let fx = fixture();
    let one_machine = one_machine_json(&fx.folder);
    let (scheduler, _scheduler) = scheduler(&["--executor-timeout", "3"]);
    let mut doomed = executor(&scheduler, &fx.folder, std::process::Stdio::piped());

    // Its log says when it starts reading a batch.
    let read = first_batch(&mut doomed);
    let mut command = scan_on(&scheduler, &fx.folder);
    let scan = std::thread::spawn(move || {
        stdout_within(&mut command, std::time::Duration::from_secs(300))
    });
    read.recv_timeout(std::time::Duration::from_secs(120))
        .expect("the only executor reads");
    doomed.0.kill().unwrap();
    assert!(!scan.is_finished(), "the scan waits for the lost reading");
    let _survivor = executor(&scheduler, &fx.folder, std::process::Stdio::null());
    let plans = scan.join().unwrap();
    assert!(
        plans == one_machine,
        "with an executor lost:\n{}",
        String::from_utf8_lossy(&plans)
    );
}

/// An executor reads only beneath its `--allow` folders: a scan naming
/// another fails with that reason, and it reads nothing there.
#[test]
fn an_executor_refuses_a_folder_it_was_not_allowed() {
    let fx = fixture();
    let elsewhere = tempfile::tempdir().unwrap();
    let (scheduler, _scheduler) = scheduler(&[]);
    let mut executor = executor(&scheduler, elsewhere.path(), std::process::Stdio::piped());
    let out = output_within(
        &mut scan_on(&scheduler, &fx.folder),
        std::time::Duration::from_secs(120),
    );
    assert!(
        !out.status.success(),
        "the scan of a folder not allowed fails"
    );
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("only beneath its --allow folders"), "{said}");
    // The reason alone, not Ballista's job, stage and task around it.
    assert!(!said.contains("DataFusionError"), "{said}");
    executor.0.kill().unwrap();
    let mut log = String::new();
    std::io::Read::read_to_string(&mut executor.0.stderr.take().unwrap(), &mut log).unwrap();
    assert!(!log.contains("reading a batch"), "it read nothing:\n{log}");
}

/// The server processes say why they cannot start, naming the option,
/// never the address: a port already taken, a scheduler nobody answers at.
#[test]
fn servers_that_cannot_start_say_why_without_addresses() {
    let (address, _scheduler) = scheduler(&[]);
    let port = address.rsplit_once(':').unwrap().1.to_owned();
    let refused = |args: &[&str], why: &str| {
        let out = output_within(
            doppel().arg("cluster").args(args),
            std::time::Duration::from_secs(120),
        );
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} started");
        assert!(said.contains(why), "{args:?}: {said}");
        assert!(
            !said.contains(&port) && !said.contains("127.0.0.1"),
            "{said}"
        );
    };
    refused(
        &["scheduler", "--bind", &address],
        "cannot listen at --bind",
    );
    let allow = std::env::temp_dir();
    let allow = allow.to_str().unwrap();
    let executor = ["executor", "--allow", allow, "--scheduler", &address];
    refused(
        &[&executor[..], &["--bind", &address]].concat(),
        "cannot listen at --bind",
    );
    // Port 1: nothing listens there.
    let (free, grpc) = (
        format!("127.0.0.1:{}", free_port()),
        free_port().to_string(),
    );
    let nobody = ["executor", "--allow", allow, "--scheduler", "127.0.0.1:1"];
    let listening = ["--bind", &free, "--grpc-port", &grpc];
    refused(&[&nobody[..], &listening[..]].concat(), "cannot be reached");
}

/// The documents the lines of `log` saying `what` count.
fn documents_logged(log: &str, what: &str) -> usize {
    log.lines()
        .filter(|line| line.contains(what))
        .filter_map(|line| line.split("documents=").nth(1))
        .map(|n| n.trim().parse::<usize>().unwrap())
        .sum()
}

/// `cluster scan` into an index (an SQLite file, and the team's
/// PostgreSQL store when a test server is given) commits what `doppel
/// scan` commits: the reports are the same bytes, read here and then on
/// a scheduler's executor. After a file is added and one changed, the
/// executor reads only those two, and the reports still agree.
#[test]
fn cluster_scan_into_an_index_equals_scan_and_reads_only_what_changed() {
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str| {
        vec![
            "--index".to_owned(),
            dir.path().join(name).display().to_string(),
        ]
    };
    let mut stores = vec![(file("one.sqlite"), file("plans.sqlite"))];
    #[cfg(feature = "postgres")]
    if let (Some(one), Some(plans)) = (
        store_places::postgres_url("cluster_scan_one_machine"),
        store_places::postgres_url("cluster_scan_plans"),
    ) {
        stores.push((
            vec!["--store".to_owned(), one],
            vec!["--store".to_owned(), plans],
        ));
    }
    for (one, plans) in stores {
        let fx = fixture();
        let scan = |store: &[String]| {
            stdout_of(
                doppel()
                    .args(["scan", "--format", "json"])
                    .args(store)
                    .arg(&fx.folder),
            )
        };
        let here = stdout_of(
            doppel()
                .args(["cluster", "scan", "--local", "--format", "json"])
                .args(["--partitions", "2", "--batch-files", "3"])
                .args(&plans)
                .arg(&fx.folder),
        );
        assert!(here == scan(&one), "{}: first scan differs", one[0]);

        std::fs::write(fx.folder.join("new.txt"), "A short new text about ships.").unwrap();
        let changed = fx.folder.join("misc/gettysburg.txt");
        let text = std::fs::read_to_string(&changed).unwrap();
        std::fs::write(&changed, format!("{text}\nA line added since.\n")).unwrap();
        let (scheduler, _scheduler) = scheduler(&[]);
        let log = dir.path().join("executor.log");
        let _executor = executor(
            &scheduler,
            &fx.folder,
            std::fs::File::create(&log).unwrap().into(),
        );
        let again = stdout_within(
            scan_on(&scheduler, &fx.folder).args(&plans),
            std::time::Duration::from_secs(300),
        );
        assert!(
            again == scan(&one),
            "{}: the scan after a change differs",
            one[0]
        );
        let log = std::fs::read_to_string(&log).unwrap();
        assert_eq!(
            documents_logged(&log, "reading a batch"),
            2,
            "only the new and the changed file: {log}"
        );
    }
}

/// Every executor lost while reading into an index: the scan fails once
/// the scheduler's timeout and the scan's wait for an executor are over,
/// says that the next run reads the rest, and commits nothing half-read;
/// the next run (here) leaves the index as `doppel scan` makes it.
#[test]
fn every_executor_lost_fails_the_scan_and_the_next_one_reads_the_rest() {
    let fx = fixture();
    let dir = tempfile::tempdir().unwrap();
    let (one, plans) = (
        dir.path().join("one.sqlite"),
        dir.path().join("plans.sqlite"),
    );
    let (scheduler, _scheduler) = scheduler(&["--executor-timeout", "2"]);
    let mut doomed = executor(&scheduler, &fx.folder, std::process::Stdio::piped());
    let read = first_batch(&mut doomed);
    let mut command = scan_on(&scheduler, &fx.folder);
    command.arg("--index").arg(&plans);
    command.args(["--wait-for-executors", "2"]);
    let scan = std::thread::spawn(move || {
        output_within(&mut command, std::time::Duration::from_secs(120))
    });
    read.recv_timeout(std::time::Duration::from_secs(120))
        .expect("the only executor reads");
    doomed.0.kill().unwrap();
    let failed = scan.join().unwrap();
    let said = String::from_utf8_lossy(&failed.stderr);
    assert!(!failed.status.success(), "{said}");
    assert!(
        said.contains("the next `cluster scan` reads the rest"),
        "{said}"
    );

    let one_machine = stdout_of(
        doppel()
            .args(["scan", "--format", "json", "--index"])
            .arg(&one)
            .arg(&fx.folder),
    );
    let resumed = stdout_of(
        doppel()
            .args(["cluster", "scan", "--local", "--format", "json", "--index"])
            .arg(&plans)
            .arg(&fx.folder),
    );
    assert!(
        resumed == one_machine,
        "{}",
        String::from_utf8_lossy(&resumed)
    );
}

/// An executor keeps its tasks' results in a folder of its own inside
/// `--work-dir` until they are fetched, and removes that folder when it is
/// stopped (SIGTERM): a stopped executor leaves nothing behind.
#[test]
fn a_stopped_executor_leaves_no_results_behind() {
    let fx = fixture();
    let work = tempfile::tempdir().unwrap();
    let (scheduler, _scheduler) = scheduler(&[]);
    let work_dir = ["--work-dir", work.path().to_str().unwrap()];
    let mut executor = executor_with(
        &scheduler,
        &fx.folder,
        std::process::Stdio::null(),
        &work_dir,
    );
    let plans = stdout_within(
        &mut scan_on(&scheduler, &fx.folder),
        std::time::Duration::from_secs(300),
    );
    assert!(plans == one_machine_json(&fx.folder));
    let held: Vec<_> = std::fs::read_dir(work.path()).unwrap().flatten().collect();
    assert_eq!(held.len(), 1, "one folder of its own");
    assert!(
        std::fs::read_dir(held[0].path()).unwrap().next().is_some(),
        "the results are kept there until the scheduler has them removed"
    );

    let stopped = std::process::Command::new("kill")
        .args(["-TERM", &executor.0.id().to_string()])
        .status()
        .unwrap();
    assert!(stopped.success());
    let end = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while executor.0.try_wait().unwrap().is_none() {
        assert!(std::time::Instant::now() < end, "SIGTERM did not stop it");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let left: Vec<_> = std::fs::read_dir(work.path()).unwrap().flatten().collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}
