//! The event loop: one `tokio::select!` over terminal events, actions from
//! other threads (worker updates bridged from their std channel, signals,
//! finished exports) and a tick. Each wake-up drains what else is waiting
//! (up to a cap, so input is never starved), applies it with
//! [`update`], sends the resulting commands, and draws once. Nothing here
//! blocks: ingest happens in the worker, exports on their own thread.
//!
//! Generic over the backend and the event stream, so tests drive it with
//! `TestBackend` and a scripted stream.

use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::Sender;
use futures::{Stream, StreamExt};
use ratatui::backend::Backend;
use ratatui::crossterm::event::Event;
use ratatui::Terminal;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

use super::action::Action;
use super::error::{self, Result, TuiError};
use super::export;
use super::keymap;
use super::state::{AppState, Effect, Level};
use super::ui::render;
use super::update::update;
use doppel_index::worker::{Command, Update, WorkerHandle};

/// How often the clock (spinner, log times) advances.
pub const TICK: Duration = Duration::from_millis(250);

/// Most queued actions applied before a redraw.
const DRAIN_CAP: usize = 512;

/// Where exports go and what they must avoid.
#[derive(Debug, Clone)]
pub struct ExportContext {
    /// Where a relative prefix is taken from.
    pub cwd: PathBuf,
    /// The watched folder, never written into.
    pub root: PathBuf,
    /// The settings the HTML report's diffs read documents with.
    pub engine: doppel_core::engine::EngineConfig,
}

/// In debug builds, with this variable set, `!` panics (for tests).
pub const PANIC_KEY_VAR: &str = "DOPPEL_DEBUG_PANIC_KEY";

fn is_panic_key(ev: &Event) -> bool {
    matches!(ev, Event::Key(k) if k.code == ratatui::crossterm::event::KeyCode::Char('!'))
}

/// Forward the worker's updates from their std channel into the loop's
/// channel on a plain thread that owns the handle; when the worker's
/// channel closes (or the UI is gone) it joins the worker, then says
/// [`Action::WorkerGone`].
pub fn bridge(worker: WorkerHandle, actions: UnboundedSender<Action>) {
    let _ = std::thread::Builder::new()
        .name("doppel-ui-bridge".into())
        .spawn(move || {
            while let Ok(u) = worker.updates.recv() {
                if actions.send(Action::Worker(u)).is_err() {
                    break;
                }
            }
            worker.join();
            let _ = actions.send(Action::WorkerGone);
        });
}

/// The actions for one terminal event.
pub fn event_actions(state: &AppState, event: Event) -> Vec<Action> {
    match event {
        Event::Key(k) => keymap::key(state, k).into_iter().collect(),
        Event::Mouse(m) => keymap::mouse(m).into_iter().collect(),
        Event::Resize(w, h) => vec![Action::Resize(w, h)],
        Event::Paste(text) if state.prompt.is_some() => text
            .chars()
            .filter(|c| !c.is_control())
            .map(Action::PromptChar)
            .collect(),
        _ => Vec::new(),
    }
}

/// Apply one action; send its commands; start its effects. Whether it
/// asks to suspend (which needs the terminal, so the loop does it).
fn apply(
    state: &mut AppState,
    action: Action,
    commands: &Sender<Command>,
    actions: &UnboundedSender<Action>,
    export_ctx: &ExportContext,
) -> bool {
    let mut suspend = false;
    for c in update(state, action) {
        if commands.send(c).is_err() && state.worker_running {
            state.worker_running = false;
            state.notify(Level::Error, "the worker is gone");
        }
    }
    for effect in std::mem::take(&mut state.effects) {
        match effect {
            Effect::Suspend => suspend = true,
            Effect::SaveThresholds { path, thresholds } => {
                // A small file: written here, its outcome read with the
                // next actions.
                let result = doppel_index::config::save_thresholds(&path, &thresholds)
                    .map(|()| path)
                    .map_err(Arc::new);
                let _ = actions.send(Action::ThresholdsSaved(result));
            }
            Effect::Export { prefix } => {
                let Some(snap) = export::as_seen(state) else {
                    state.notify(Level::Warn, "nothing to export yet");
                    continue;
                };
                let verdicts = state.verdicts.clone();
                let ctx = export_ctx.clone();
                let tx = actions.clone();
                let _ = std::thread::Builder::new()
                    .name("doppel-export".into())
                    .spawn(move || {
                        let result = export::write(&prefix, &ctx.cwd, &ctx.root, &snap, &verdicts)
                            .and_then(|mut written| {
                                // The page goes beside the CSV and JSON, under the
                                // prefix `write` found free (the .html counts).
                                written.files.push(export::write_html(
                                    &written.used,
                                    &ctx.cwd,
                                    &ctx.root,
                                    &snap,
                                    &verdicts,
                                    &ctx.engine,
                                )?);
                                Ok(written)
                            })
                            .map_err(Arc::new);
                        let _ = tx.send(Action::Exported(result));
                    });
            }
        }
    }
    suspend
}

/// What the loop does for [`Action::Suspend`]: give the terminal back and
/// stop until continued (see [`super::terminal::suspend`]); tests pass a
/// stand-in.
pub type Suspend<'a, B> = &'a mut dyn FnMut(&mut Terminal<B>) -> io::Result<()>;

/// Run the UI until the curator quits (or the event stream ends).
///
/// `actions` carries worker updates (see [`bridge`]), signals and export
/// results; `actions_tx` is its sender, used for exports. After `suspend`
/// returns (the process was continued) the whole screen is drawn again.
#[allow(clippy::too_many_arguments)]
pub async fn run_loop<B, S>(
    terminal: &mut Terminal<B>,
    state: &mut AppState,
    mut events: S,
    commands: &Sender<Command>,
    actions_tx: &UnboundedSender<Action>,
    actions: &mut UnboundedReceiver<Action>,
    export_ctx: &ExportContext,
    suspend: Suspend<'_, B>,
) -> Result<()>
where
    B: Backend,
    B::Error: Send + Sync + 'static,
    S: Stream<Item = io::Result<Event>> + Unpin,
{
    let start = Instant::now();
    // Debug builds only: `!` panics on the UI thread when this is set, so
    // the terminal tests can check the panic hook restores the terminal.
    let panic_key = cfg!(debug_assertions) && std::env::var_os(PANIC_KEY_VAR).is_some();
    let draw_failed = |e: B::Error| TuiError::Draw(Box::new(e));
    let size = terminal.size().map_err(draw_failed)?;
    update(state, Action::Resize(size.width, size.height));
    terminal.draw(|f| render(state, f)).map_err(draw_failed)?;
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    loop {
        let first: Vec<Action> = tokio::select! {
            ev = events.next() => match ev {
                Some(Ok(ev)) => {
                    if panic_key && is_panic_key(&ev) {
                        panic!("doppel: panic requested with {PANIC_KEY_VAR} (a test)");
                    }
                    event_actions(state, ev)
                }
                Some(Err(e)) => return Err(error::io("read the terminal")(e)),
                // The terminal is gone (hang-up): leave.
                None => vec![Action::Quit],
            },
            a = actions.recv() => match a {
                Some(a) => vec![a],
                None => vec![Action::WorkerGone],
            },
            _ = tick.tick() => vec![Action::Tick(start.elapsed())],
        };
        let mut suspending = false;
        for a in first {
            suspending |= apply(state, a, commands, actions_tx, export_ctx);
        }
        // Drain a burst (worker updates arrive in runs) before drawing.
        let mut n = 0;
        while n < DRAIN_CAP {
            match actions.try_recv() {
                Ok(a) => suspending |= apply(state, a, commands, actions_tx, export_ctx),
                Err(_) => break,
            }
            n += 1;
        }
        if state.quit {
            return Ok(());
        }
        if suspending {
            suspend(terminal).map_err(error::io("suspend to the shell"))?;
            // The shell drew over the screen: forget what was on it.
            terminal.clear().map_err(draw_failed)?;
        }
        terminal.draw(|f| render(state, f)).map_err(draw_failed)?;
    }
}

/// After the loop: wait (bounded) for the worker to say it stopped.
pub async fn wait_stopped(actions: &mut UnboundedReceiver<Action>, limit: Duration) -> bool {
    let wait = async {
        while let Some(a) = actions.recv().await {
            if matches!(a, Action::Worker(Update::Stopped) | Action::WorkerGone) {
                return true;
            }
        }
        true
    };
    tokio::time::timeout(limit, wait).await.unwrap_or(false)
}
