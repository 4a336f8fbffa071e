//! The terminal front end (`doppel [DIR]`): clusters, per-algorithm
//! scores, side-by-side diffs and live thresholds over a background worker.
//!
//! Shaped like ratatui's templates (The Elm Architecture):
//!
//! | module | owns |
//! |---|---|
//! | [`state`] | `AppState`, the model: plain data, no terminal, no clock |
//! | [`action`] | `Action`, every user intent and outside event |
//! | [`mod@update`] | `update(&mut AppState, Action) -> Vec<Command>`, the only place the model changes; drops stale worker answers |
//! | [`keymap`] | keys and mouse events → actions; the help table |
//! | [`layout`] | where things go, shared by drawing and mouse hit-testing |
//! | [`diff`] | the diff screen's model: the word diff laid out in rows per pane width (word or line view, folded or not), `n`/`N` jumps, search |
//! | [`ui`] | `render(&AppState, &mut Frame)`, a pure function of the model, one module per screen |
//! | [`text`] | sanitizing and fitting untrusted names and text |
//! | [`export`] | clusters and pairs to CSV, JSON and the HTML report, never into the watched folder |
//! | [`mod@run`] | the event loop (`tokio::select!` over terminal events, worker updates, a tick), generic over backend and event source |
//! | [`terminal`] | raw mode, alternate screen, mouse; restored on every exit path (panic hook, guard, signals) |
//!
//! [`run()`] (this module) wires them to the real terminal and a worker from
//! [`doppel_index::worker::spawn`]. Nothing in the engine imports this module; the
//! crates it uses (ratatui, crossterm, tokio, futures, signal-hook,
//! unicode-width) sit behind the `tui` feature.
pub mod acting;
pub mod action;
pub mod boilerplate;
pub mod diff;
pub mod documents;
mod error;
pub mod export;
pub mod keymap;
pub mod layout;
mod review;
pub mod run;
pub(crate) mod saving;
pub mod state;
pub mod terminal;
pub mod text;
pub mod ui;
pub mod update;

pub use action::Action;
pub use state::AppState;
pub use ui::render;
pub use update::update;

use std::time::Duration;

use error::io;
pub use error::{ExportError, Result, TuiError};

use doppel_index::config::ThemeName;
use doppel_index::worker::WorkerConfig;

/// Open the TUI on `config.root` with a worker (and watcher) behind it;
/// returns when the curator quits. The terminal is restored on every exit
/// path (see [`terminal`]).
pub fn run(config: WorkerConfig) -> Result<()> {
    run_with(config, &[], &Options::default())
}

/// How the review screen looks and where its tuning is saved.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The configured theme (`NO_COLOR` in the environment makes it
    /// monochrome).
    pub theme: ThemeName,
    /// The config file `S` saves tuned thresholds to.
    pub config_file: Option<std::path::PathBuf>,
    /// The config's `quarantine-dir` (`M` asks for one when unset).
    pub quarantine_dir: Option<std::path::PathBuf>,
}

/// [`run()`], sending `initial` commands to the worker first — for settings
/// that live in the cluster spec rather than the engine configuration,
/// e.g. `Command::SetClusterBy` and `Command::SetMode` from the command
/// line (thresholds go in `config.engine.thresholds`); `options` for the
/// screen.
pub fn run_with(
    config: WorkerConfig,
    initial: &[doppel_index::worker::Command],
    options: &Options,
) -> Result<()> {
    let root = config
        .root
        .canonicalize()
        .map_err(|error| TuiError::Folder {
            root: config.root.clone(),
            error,
        })?;
    if !root.is_dir() {
        return Err(TuiError::NotAFolder { root });
    }
    let cwd = std::env::current_dir().unwrap_or_else(|_| std::env::temp_dir());
    let mut state = AppState::new(root.display().to_string(), &config.engine);
    state.theme = ui::Theme::resolve(options.theme, std::env::var_os("NO_COLOR").as_deref());
    state.config_file = options.config_file.clone();
    state.act.quarantine_dir = options.quarantine_dir.clone();
    state.export_prefix = export::default_prefix(&cwd, &root);
    let export_ctx = run::ExportContext {
        cwd,
        root: root.clone(),
        engine: config.engine.clone(),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .map_err(io("start the UI runtime"))?;
    let (actions_tx, mut actions) = tokio::sync::mpsc::unbounded_channel();
    let signals = signals(actions_tx.clone())?;

    let mut guard = terminal::Guard::enter().map_err(io("set up the terminal"))?;
    let worker = doppel_index::worker::spawn(config);
    let commands = worker.commands.clone();
    for c in initial {
        use doppel_index::worker::Command;
        let t = &mut state.thresholds;
        match c {
            Command::SetClusterBy(by) => t.by = *by,
            Command::SetMode(mode) => t.mode = *mode,
            Command::SetThreshold { id, value } => t.thresholds.set(*id, *value),
            _ => {}
        }
        t.awaiting |= matches!(
            c,
            Command::SetClusterBy(_) | Command::SetMode(_) | Command::SetThreshold { .. }
        );
        let _ = commands.send(c.clone());
    }
    run::bridge(worker, actions_tx.clone());

    let result = runtime.block_on(async {
        let events = ratatui::crossterm::event::EventStream::new();
        run::run_loop(
            &mut guard.terminal,
            &mut state,
            events,
            &commands,
            &actions_tx,
            &mut actions,
            &export_ctx,
            &mut |_| terminal::suspend(),
        )
        .await
    });
    // Whatever happened, ask the worker to stop, restore the terminal,
    // then give the worker a moment to close the index cleanly.
    let _ = commands.send(doppel_index::worker::Command::Quit);
    drop(guard);
    signals.close();
    if state.worker_running {
        runtime.block_on(run::wait_stopped(&mut actions, Duration::from_secs(5)));
    }
    result
}

/// How long after a first SIGTERM, SIGHUP, SIGINT or SIGQUIT the process
/// waits for the worker to close the index before it exits anyway.
const SIGNAL_GRACE: Duration = Duration::from_millis(750);

/// SIGTERM, SIGHUP, SIGINT and SIGQUIT ask the loop to quit (so the
/// terminal is restored and the index closed), the process ending within
/// [`SIGNAL_GRACE`] regardless; a second one restores the terminal and
/// exits at once. SIGTSTP (`kill -TSTP`; Ctrl+Z is a key in
/// raw mode) asks the loop to suspend, which restores the terminal first.
fn signals(
    actions: tokio::sync::mpsc::UnboundedSender<Action>,
) -> Result<signal_hook::iterator::Handle> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGTSTP};
    let mut signals =
        signal_hook::iterator::Signals::new([SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGTSTP])
            .map_err(io("install signal handlers"))?;
    let handle = signals.handle();
    std::thread::Builder::new()
        .name("doppel-signals".into())
        .spawn(move || {
            let mut seen = 0;
            for signal in signals.forever() {
                if signal == SIGTSTP {
                    if actions.send(Action::Suspend).is_err() {
                        // No loop to restore the terminal: stop as is.
                        let _ = signal_hook::low_level::emulate_default_handler(SIGTSTP);
                    }
                    continue;
                }
                seen += 1;
                if seen > 1 || actions.send(Action::Quit).is_err() {
                    terminal::restore();
                    std::process::exit(128 + signal);
                }
                // The loop quits at once; closing the index may not: the
                // process ends within a second of the signal whatever the
                // worker is doing (its index as a kill leaves it).
                let _ = std::thread::Builder::new()
                    .name("doppel-signal-deadline".into())
                    .spawn(move || {
                        std::thread::sleep(SIGNAL_GRACE);
                        terminal::restore();
                        std::process::exit(128 + signal);
                    });
            }
        })
        .map_err(io("start the signal thread"))?;
    Ok(handle)
}
