//! The boilerplate screen, an overlay `b` opens from anywhere: the
//! passages left out of every document (licences, notices, the user's own
//! boilerplate folder), from the snapshot's boilerplate report, with their
//! document counts, words, first words and source, then the passages the
//! curator overruled. `o` on the selected passage sends the curator's
//! ruling (not boilerplate, or boilerplate again) to the worker, tagged
//! with the snapshot's generation, which applies it and publishes a new
//! snapshot: the clusters follow. Esc or `b` closes it.
//!
//! The ruling shows at once, before the worker's answer (the row's mark,
//! the counts here and in the status bar), and the cursor stays on the
//! ruled passage when the new list moves it among the overruled ones.

use super::action::Action;
use super::state::{AppState, Level};
use doppel_index::boilerplate::PassageSummary;
use doppel_index::worker::Command;

/// The open overlay: the selected passage and the first row shown.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BoilerplateView {
    /// The selected passage (an index into the snapshot's list).
    pub selected: usize,
    /// The list's first row shown.
    pub offset: usize,
    /// The ruling sent and not yet in a snapshot.
    pub pending: Option<Ruling>,
}

/// A ruling the worker has not answered yet, by the passage it is on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ruling {
    /// The passage's first words: what names it across snapshots (its
    /// place in the list moves when it is overruled).
    pub first_words: String,
    /// Overruled (not boilerplate) or restored (boilerplate again).
    pub overrule: bool,
}

/// Whether `passage` is overruled as the curator sees it: the pending
/// ruling on it, else the snapshot's.
pub fn overruled(view: Option<&BoilerplateView>, passage: &PassageSummary) -> bool {
    match view.and_then(|v| v.pending.as_ref()) {
        Some(r) if r.first_words == passage.first_words => r.overrule,
        _ => passage.overruled,
    }
}

/// The passages left out and those overruled, as the curator sees them
/// (the overlay's title and the status bar say the same).
pub fn counts(state: &AppState) -> (usize, usize) {
    let view = state.boilerplate.as_ref();
    let list = passages(state);
    let overruled = list.iter().filter(|p| overruled(view, p)).count();
    (list.len() - overruled, overruled)
}

/// A new snapshot arrived (`state.snapshot` is already it) after one whose
/// selected passage began with `selected_words`: keep the cursor on that
/// passage wherever the new list put it, and drop the pending ruling the
/// snapshot now shows.
pub fn follow(state: &mut AppState, selected_words: Option<String>) {
    let Some(snapshot) = state.snapshot.clone() else {
        return;
    };
    let Some(view) = state.boilerplate.as_mut() else {
        return;
    };
    let list = &snapshot.boilerplate.passages;
    if let Some(i) = selected_words.and_then(|w| list.iter().position(|p| p.first_words == w)) {
        view.selected = i;
    }
    let done = view.pending.as_ref().is_some_and(|r| {
        list.iter()
            .find(|p| p.first_words == r.first_words)
            .is_none_or(|p| p.overruled == r.overrule)
    });
    if done {
        view.pending = None;
    }
}

/// The first words of the selected passage, to find it in the next list.
pub fn selected_words(state: &AppState) -> Option<String> {
    let view = state.boilerplate.as_ref()?;
    passages(state)
        .get(view.selected)
        .map(|p| p.first_words.clone())
}

/// The passages listed: the snapshot's, learned first, then overruled.
pub fn passages(state: &AppState) -> &[PassageSummary] {
    state
        .snapshot
        .as_deref()
        .map_or(&[], |s| s.boilerplate.passages.as_slice())
}

/// Whether `action` is the overlay's: `b` always, and while it is open
/// (and no help over it) every key it knows, before the screen below.
pub fn takes(state: &AppState, action: &Action) -> bool {
    matches!(action, Action::ToggleBoilerplate)
        || (state.boilerplate.is_some()
            && state.help.is_none()
            && matches!(
                action,
                Action::ToggleOverrule
                    | Action::Back
                    | Action::Up
                    | Action::Down
                    | Action::PageUp
                    | Action::PageDown
                    | Action::Home
                    | Action::End
            ))
}

/// Apply one of the overlay's actions.
pub fn on_view(state: &mut AppState, action: Action, out: &mut Vec<Command>) {
    if let Action::ToggleBoilerplate = action {
        state.boilerplate = match state.boilerplate {
            Some(_) => None,
            None => Some(BoilerplateView::default()),
        };
        return;
    }
    let len = passages(state).len();
    let page = usize::from(state.height.saturating_sub(10)).max(1) as isize;
    let Some(view) = state.boilerplate.as_mut() else {
        return;
    };
    let step = match action {
        Action::Up => -1,
        Action::Down => 1,
        Action::PageUp => -page,
        Action::PageDown => page,
        Action::Home => isize::MIN / 2,
        Action::End => isize::MAX / 2,
        Action::Back => {
            state.boilerplate = None;
            return;
        }
        Action::ToggleOverrule => {
            rule(state, out);
            return;
        }
        _ => return,
    };
    let last = len.saturating_sub(1) as isize;
    view.selected = (view.selected as isize).saturating_add(step).clamp(0, last) as usize;
}

/// `o`: the curator's ruling on the selected passage.
fn rule(state: &mut AppState, out: &mut Vec<Command>) {
    let Some(snapshot) = state.snapshot.clone() else {
        state.notify(Level::Warn, "no boilerplate yet: wait for the scan");
        return;
    };
    // The list may have shrunk since the selection was made (the overlay
    // shows the last passage then).
    let len = snapshot.boilerplate.passages.len();
    let selected = state
        .boilerplate
        .as_ref()
        .map_or(0, |v| v.selected)
        .min(len.saturating_sub(1));
    let Some(passage) = snapshot.boilerplate.passages.get(selected) else {
        state.notify(Level::Warn, "no passage selected");
        return;
    };
    if passage.source == "user" && !passage.overruled {
        state.notify(
            Level::Warn,
            "this passage comes from your boilerplate folder: take its file out of the folder \
             instead",
        );
        return;
    }
    let overrule = !passage.overruled;
    if let Some(view) = state.boilerplate.as_mut() {
        view.pending = Some(Ruling {
            first_words: passage.first_words.clone(),
            overrule,
        });
    }
    out.push(Command::SetBoilerplateOverruled {
        generation: snapshot.generation,
        passage: selected,
        overrule,
    });
    let words = crate::text::sanitize_line(&passage.first_words).into_owned();
    state.event(
        Level::Info,
        match overrule {
            true => format!("not boilerplate: \"{words}\" (its documents are fingerprinted again)"),
            false => {
                format!("boilerplate again: \"{words}\" (its documents are fingerprinted again)")
            }
        },
    );
}
