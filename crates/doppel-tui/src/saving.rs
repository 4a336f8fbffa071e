//! Thresholds tuned on screen outlive the session only when saved: `S`
//! writes them into the config file (by the loop, see
//! [`Effect::SaveThresholds`]), the thresholds panel says while they are
//! unsaved, and `q` asks once before quitting without them.

use std::path::PathBuf;
use std::sync::Arc;

use super::state::{AppState, Effect, Level};
use super::ui::curators;
use doppel_index::config::ConfigError;
use doppel_index::worker::Command;
use doppel_store::SharedThresholds;

/// Whether the thresholds on screen differ from those the session started
/// with (the config file's, or the command line's) or last saved.
pub fn unsaved(state: &AppState) -> bool {
    state.thresholds.thresholds != state.defaults
}

/// `S`: ask the loop to write the thresholds into the config file, and
/// the worker to save them for the team (on a team store; a file index
/// ignores it).
pub fn save(state: &mut AppState, out: &mut Vec<Command>) {
    out.push(Command::ShareThresholds {
        thresholds: state.thresholds.thresholds.clone(),
    });
    let Some(path) = state.config_file.clone() else {
        state.notify(
            Level::Warn,
            "no config file to save to: this platform has no config folder (give --config PATH)",
        );
        return;
    };
    state.effects.push(Effect::SaveThresholds {
        path,
        thresholds: state.thresholds.thresholds.clone(),
    });
}

/// The loop's answer to [`save`]: the file written, or why not.
pub fn saved(state: &mut AppState, result: Result<PathBuf, Arc<ConfigError>>) {
    match result {
        Ok(path) => {
            state.defaults = state.thresholds.thresholds.clone();
            state.notify(
                Level::Info,
                format!("thresholds saved to {}", path.display()),
            );
        }
        Err(e) => state.notify(Level::Error, format!("thresholds not saved: {e}")),
    }
}

/// Thresholds saved for the team on a team store: through this screen
/// (`by_you`), or by another curator, or found saved when the worker
/// started, in which case the worker clusters by them and the screen
/// shows them. Either way they are what the screen's thresholds are
/// unsaved against.
pub fn team_saved(state: &mut AppState, saved: &SharedThresholds, by_you: bool) {
    state.defaults = saved.thresholds.clone();
    if by_you {
        state.notify(Level::Info, "thresholds saved for the team");
        return;
    }
    let t = &mut state.thresholds;
    if t.thresholds != saved.thresholds {
        t.thresholds = saved.thresholds.clone();
        // The worker applies them: the next snapshot has them.
        t.awaiting = true;
    }
    state.notify(
        Level::Info,
        format!(
            "the team's thresholds, saved by {} {}, apply",
            curators::name(&saved.curator),
            curators::when(saved.at_ns)
        ),
    );
}

/// `q`: quit, unless tuned thresholds are unsaved and this is the first
/// `q` — then say so, and the next `q` quits.
pub fn ask_quit(state: &mut AppState, out: &mut Vec<Command>) {
    if unsaved(state) && !state.quit_asked {
        state.quit_asked = true;
        let to = state
            .config_file
            .as_ref()
            .map_or(String::new(), |p| format!(" to {}", p.display()));
        state.notify(
            Level::Warn,
            format!(
                "tuned thresholds are not saved: q again quits without them, \
                 S on the thresholds screen (4) saves them{to}"
            ),
        );
        return;
    }
    state.quit = true;
    out.push(Command::Quit);
}
