//! `doppel cluster scan DIR --local` (the `cluster` feature) prints what
//! `doppel scan DIR --no-index` prints, byte for byte in every format,
//! however its plans are cut; `--out` writes the three Parquet tables,
//! never inside the folder scanned.
#![cfg(feature = "cluster")]

mod common;
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
    let mut server = Server(
        doppel()
            .arg("cluster")
            .args(args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
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

/// The standard output of `command`, which must succeed within `limit`
/// (else it is killed and the test fails: a lost job must not hang CI).
fn stdout_within(command: &mut std::process::Command, limit: std::time::Duration) -> Vec<u8> {
    use std::io::Read;
    let mut child = Server(
        command
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let drain = |mut from: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            from.read_to_end(&mut bytes).map(|_| bytes)
        })
    };
    let stdout = drain(Box::new(child.0.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.0.stderr.take().unwrap()));
    let end = std::time::Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.0.try_wait().unwrap() {
            break status;
        }
        assert!(
            std::time::Instant::now() < end,
            "no answer within {limit:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    let stderr = stderr.join().unwrap().unwrap();
    assert!(status.success(), "{}", String::from_utf8_lossy(&stderr));
    stdout.join().unwrap().unwrap()
}

#[test]
fn a_scheduler_and_two_executors_print_what_one_machine_prints() {
    let fx = fixture();
    let scheduler_port = free_port();
    let scheduler = format!("127.0.0.1:{scheduler_port}");
    let _scheduler = serve(&["scheduler", "--bind", &scheduler], scheduler_port);
    let _executors: Vec<Server> = (0..2)
        .map(|_| {
            let (port, grpc) = (free_port(), free_port());
            let bind = format!("127.0.0.1:{port}");
            let grpc = grpc.to_string();
            let args = ["executor", "--scheduler", &scheduler, "--bind", &bind];
            serve(
                &[&args[..], &["--grpc-port", &grpc, "--tasks", "1"]].concat(),
                port,
            )
        })
        .collect();
    let one_machine = stdout_of(
        doppel()
            .args(["scan", "--no-index", "--format", "json"])
            .arg(&fx.folder),
    );
    let plans = stdout_within(
        doppel()
            .args(["cluster", "scan", "--scheduler", &scheduler])
            .args([
                "--partitions",
                "4",
                "--batch-files",
                "2",
                "--format",
                "json",
            ])
            .arg(&fx.folder),
        std::time::Duration::from_secs(300),
    );
    assert!(
        plans == one_machine,
        "on the cluster:\n{}",
        String::from_utf8_lossy(&plans)
    );
}
