//! Terminal setup and teardown, in one place: raw mode, the alternate
//! screen and mouse capture on entry; all three undone on every exit path —
//! normal return, error return (the guard's `Drop`), a panic on the UI
//! thread (the panic hook restores first, then chains to the previous
//! hook), and SIGTERM/SIGHUP/SIGINT (turned into a quit by the loop; a
//! second signal restores and exits at once). Ctrl+Z and SIGTSTP restore it
//! too before the process stops, and set it up again once continued
//! ([`suspend`]).
//!
//! A panic on another thread (the worker) must not restore the terminal
//! under a UI that keeps drawing: its message is kept for the log pane
//! and printed once the terminal is back.

use std::io::{self, stdout, Stdout};
use std::panic::PanicHookInfo;
use std::sync::{Arc, Mutex};
use std::thread::ThreadId;

use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use ratatui::crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use ratatui::crossterm::{cursor, execute};
use ratatui::Terminal;

type Hook = dyn Fn(&PanicHookInfo<'_>) + Sync + Send + 'static;

/// Panic messages from threads other than the UI's.
pub type Panics = Arc<Mutex<Vec<String>>>;

/// Undo everything [`Guard::enter`] did. Safe to call more than once and
/// when the terminal is gone (errors are ignored).
pub fn restore() {
    let _ = disable_raw_mode();
    let _ = execute!(
        stdout(),
        DisableMouseCapture,
        DisableBracketedPaste,
        LeaveAlternateScreen,
        cursor::Show
    );
}

/// Enter raw mode, the alternate screen, mouse capture and bracketed paste.
fn enter() -> io::Result<()> {
    enable_raw_mode()?;
    execute!(
        stdout(),
        EnterAlternateScreen,
        EnableMouseCapture,
        EnableBracketedPaste
    )
}

/// Ctrl+Z (or SIGTSTP): give the terminal back to the shell as it was,
/// stop the process as SIGTSTP's default action would (the shell's job
/// control takes over), and once continued (`fg`, SIGCONT) take the
/// terminal again. The caller draws the whole screen afresh.
pub fn suspend() -> io::Result<()> {
    restore();
    // Returns when the process is continued.
    signal_hook::low_level::emulate_default_handler(signal_hook::consts::SIGTSTP)?;
    enter()
}

/// The terminal in TUI mode; restores it when dropped.
pub struct Guard {
    /// The terminal, in the alternate screen and raw mode.
    pub terminal: Terminal<CrosstermBackend<Stdout>>,
    previous_hook: Arc<Hook>,
    /// Panics caught while the guard held the terminal.
    pub panics: Panics,
}

impl Guard {
    /// Install the panic hook, then enter raw mode, the alternate screen
    /// and mouse capture.
    pub fn enter() -> io::Result<Self> {
        let previous_hook: Arc<Hook> = Arc::from(std::panic::take_hook());
        let panics: Panics = Arc::default();
        install_hook(
            std::thread::current().id(),
            previous_hook.clone(),
            panics.clone(),
        );
        let setup = || -> io::Result<Terminal<CrosstermBackend<Stdout>>> {
            enter()?;
            Terminal::new(CrosstermBackend::new(stdout()))
        };
        match setup() {
            Ok(terminal) => Ok(Self {
                terminal,
                previous_hook,
                panics,
            }),
            Err(e) => {
                restore();
                let prev = previous_hook.clone();
                std::panic::set_hook(Box::new(move |info| prev(info)));
                Err(e)
            }
        }
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        restore();
        let prev = self.previous_hook.clone();
        std::panic::set_hook(Box::new(move |info| prev(info)));
        if let Ok(list) = self.panics.lock() {
            for message in list.iter() {
                eprintln!("doppel: a background thread panicked: {message}");
            }
        }
    }
}

fn install_hook(ui: ThreadId, previous: Arc<Hook>, panics: Panics) {
    std::panic::set_hook(Box::new(move |info| {
        // A format reader that catches its panics reports the file
        // damaged: nothing to restore, nothing to log.
        if doppel_formats::panic_is_caught() {
            return;
        }
        if std::thread::current().id() == ui {
            restore();
            previous(info);
        } else if let Ok(mut list) = panics.lock() {
            let name = std::thread::current()
                .name()
                .unwrap_or("unnamed")
                .to_owned();
            list.push(format!("{name}: {info}"));
        }
    }));
}
