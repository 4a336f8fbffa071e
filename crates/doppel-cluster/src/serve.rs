//! The two processes of a Ballista cluster that runs doppel's plans, both
//! the `doppel` binary: the scheduler (`doppel cluster scheduler`), which
//! plans each scan, and executors (`doppel cluster executor`), which run
//! its tasks. Both know the read stage's functions (`doppel_read`,
//! `doppel_read_for_index`), so a plan that names one is planned and run
//! with doppel's own reading code. Each runs
//! until it is stopped.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use ballista_core::registry::BallistaFunctionRegistry;
use ballista_core::utils::default_session_builder;
use ballista_executor::executor_process::{start_executor_process, ExecutorProcessConfig};
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::SchedulerConfig;
use ballista_scheduler::scheduler_process::start_server;
use datafusion::execution::FunctionRegistry;
use datafusion::logical_expr::ScalarUDF;

use crate::read_stage::{Kind, ReadFunction, Readable};
use crate::ClusterError;

/// The read function of `kind`, as a process registers it, reading what
/// `readable` permits.
fn read_function(kind: Kind, readable: Readable) -> Arc<ScalarUDF> {
    Arc::new(ScalarUDF::from(ReadFunction::reading(kind, readable)))
}

/// Whether this process may listen at `address` (named `option` in what
/// is said, never the address itself): Ballista's own failure to bind is
/// worded as an I/O error, and an executor's Flight service failing to
/// bind ended the process quietly.
fn may_listen(option: &'static str, address: SocketAddr) -> Result<(), ClusterError> {
    std::net::TcpListener::bind(address)
        .map(drop)
        .map_err(|source| ClusterError::Listen { option, source })
}

/// A runtime for a server process.
fn runtime() -> Result<tokio::runtime::Runtime, ClusterError> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("doppel-cluster")
        .build()
        .map_err(ClusterError::Runtime)
}

/// Where a scheduler listens and when it gives up on a silent executor.
#[derive(Debug, Clone)]
pub struct SchedulerOptions {
    /// Where it listens.
    pub bind: SocketAddr,
    /// Seconds without an executor's heartbeat after which the executor
    /// is taken for lost and its tasks (and the shuffle output it held)
    /// are run again elsewhere. Longer than the executors' heartbeat.
    pub executor_timeout_secs: u64,
}

/// Run a scheduler as `options` say until the process is stopped.
pub fn run_scheduler(options: SchedulerOptions) -> Result<(), ClusterError> {
    let bind = options.bind;
    may_listen("--bind", bind)?;
    let timeout = options.executor_timeout_secs.max(1);
    let config = SchedulerConfig {
        bind_host: bind.ip().to_string(),
        bind_port: bind.port(),
        external_host: bind.ip().to_string(),
        executor_timeout_seconds: timeout,
        // Looked for four times within the timeout, and at least every
        // 15 s (Ballista's default interval).
        expire_dead_executor_interval_seconds: (timeout / 4).clamp(1, 15),
        // With every executor lost, running jobs fail after this long
        // instead of waiting for one to come back forever.
        no_executors_grace_period_seconds: timeout,
        ..SchedulerConfig::default()
    }
    .with_override_session_builder(Arc::new(|config| {
        let mut state = default_session_builder(config)?;
        // The scheduler only plans: it reads nothing.
        for kind in Kind::ALL {
            state.register_udf(read_function(kind, Readable::Any))?;
        }
        Ok(state)
    }));
    runtime()?.block_on(async {
        let cluster = BallistaCluster::new_from_config(&config).await?;
        start_server(cluster, bind, Arc::new(config)).await
    })?;
    Ok(())
}

/// Where an executor listens and whom it serves.
#[derive(Debug, Clone)]
pub struct ExecutorOptions {
    /// The scheduler's host and port.
    pub scheduler: (String, u16),
    /// Where the executor's Arrow Flight service (results and shuffles)
    /// listens; its gRPC service listens on `grpc_port`.
    pub bind: SocketAddr,
    /// The executor's gRPC port.
    pub grpc_port: u16,
    /// Tasks it runs at once.
    pub concurrent_tasks: usize,
    /// Seconds between its heartbeats to the scheduler (shorter than the
    /// scheduler's executor timeout).
    pub heartbeat_secs: u64,
    /// The folders a job may name for it to read (canonical paths).
    pub allowed: Vec<PathBuf>,
    /// The folder inside which it makes the one it keeps its tasks'
    /// results in (`None`: the system's temporary folder).
    pub work_dir: Option<PathBuf>,
}

/// Run an executor serving the scheduler of `options` until the process
/// is stopped.
pub fn run_executor(options: ExecutorOptions) -> Result<(), ClusterError> {
    may_listen("--bind", options.bind)?;
    let grpc = SocketAddr::new(options.bind.ip(), options.grpc_port);
    may_listen("--grpc-port", grpc)?;
    let (host, port) = (options.scheduler.0.as_str(), options.scheduler.1);
    if !answers(host, port) {
        return Err(ClusterError::Unreachable);
    }
    // Ballista's own default forgets its temporary folder, and every
    // executor stopped left its tasks' results behind: a folder of its
    // own, removed when it returns (on Ctrl-C or SIGTERM, after its tasks).
    let mut named = tempfile::Builder::new();
    named.prefix("doppel-executor-");
    let work_dir = match &options.work_dir {
        Some(inside) => named.tempdir_in(inside),
        None => named.tempdir(),
    }
    .map_err(ClusterError::WorkDir)?;
    let mut functions = BallistaFunctionRegistry::default();
    for kind in Kind::ALL {
        let readable = Readable::Beneath(options.allowed.clone());
        functions
            .scalar_functions
            .insert(kind.name().to_owned(), read_function(kind, readable));
    }
    let host = options.bind.ip().to_string();
    let config = ExecutorProcessConfig {
        bind_host: host.clone(),
        external_host: Some(host),
        port: options.bind.port(),
        grpc_port: options.grpc_port,
        scheduler_host: options.scheduler.0,
        scheduler_port: options.scheduler.1,
        vcores: options.concurrent_tasks.max(1),
        print_thread_info: false,
        executor_heartbeat_interval_seconds: options.heartbeat_secs.max(1),
        override_function_registry: Some(Arc::new(functions)),
        work_dir: Some(work_dir.path().to_string_lossy().into_owned()),
        // Results older than a day go even while it runs (the scheduler
        // has them removed five minutes after their job ends).
        job_data_clean_up_interval_seconds: 600,
        job_data_ttl_seconds: 24 * 60 * 60,
        ..ExecutorProcessConfig::default()
    };
    runtime()?.block_on(start_executor_process(Arc::new(config)))?;
    drop(work_dir);
    Ok(())
}

/// Whether anything answers at `host:port` within 20 seconds.
fn answers(host: &str, port: u16) -> bool {
    use std::net::ToSocketAddrs;
    let timeout = std::time::Duration::from_secs(20);
    (host, port).to_socket_addrs().is_ok_and(|mut addresses| {
        addresses.any(|address| std::net::TcpStream::connect_timeout(&address, timeout).is_ok())
    })
}
