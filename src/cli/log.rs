//! The log: `tracing` events of the index and the worker, written where
//! `--log FILE` says and filtered by `DOPPEL_LOG`; off by default.

use std::path::Path;

use anyhow::{Context, Result};

/// The environment variable that filters the log (`tracing`'s
/// `EnvFilter` syntax).
const LOG_FILTER: &str = "DOPPEL_LOG";

/// Log to `file` when given, else to standard error when `DOPPEL_LOG` is
/// set (never under the terminal UI, which owns the screen); otherwise
/// nothing is logged.
pub fn init(file: Option<&Path>, under_tui: bool) -> Result<()> {
    use tracing_subscriber::EnvFilter;
    let filter = std::env::var(LOG_FILTER).ok();
    if file.is_none() && (filter.is_none() || under_tui) {
        return Ok(());
    }
    let filter = EnvFilter::try_new(filter.as_deref().unwrap_or("doppel=info"))
        .with_context(|| format!("{LOG_FILTER} is not a log filter"))?;
    // A span's close event says how long it took (`time.busy`): the stages
    // of a scan (reading, learning, committing, pairing) can be timed from
    // the log alone.
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_span_events(tracing_subscriber::fmt::format::FmtSpan::CLOSE)
        .with_ansi(false);
    match file {
        Some(path) => {
            let file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .with_context(|| format!("cannot open the log file {}", path.display()))?;
            builder.with_writer(std::sync::Mutex::new(file)).init();
        }
        None => builder.with_writer(std::io::stderr).init(),
    }
    Ok(())
}
