//! Keys and mouse events to [`Action`]s, given what is on screen. Pure; the
//! help overlay is drawn from [`HELP`], and a test checks that every key
//! listed there does something.

use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};

use super::action::Action;
use super::state::{AppState, Screen};
use doppel_core::doc::CuratorVerdict;

/// (section, keys, what they do) — the help overlay, in order.
pub const HELP: &[(&str, &str, &str)] = &[
    (
        "Anywhere",
        "q",
        "quit (asks first if thresholds are unsaved)",
    ),
    ("Anywhere", "Ctrl+C", "quit at once"),
    ("Anywhere", "Ctrl+Z", "suspend to the shell (fg resumes)"),
    ("Anywhere", "?", "this help (Esc or ? closes it)"),
    (
        "Anywhere",
        "1 … 7",
        "clusters, pair, diff, thresholds, skipped, log, documents",
    ),
    ("Anywhere", "t", "thresholds panel"),
    (
        "Anywhere",
        "D",
        "documents: every file, its facts and neighbours",
    ),
    ("Anywhere", "Esc", "close, cancel, or back to the clusters"),
    ("Anywhere", "j k  ↓ ↑", "move / scroll"),
    ("Anywhere", "PgDn PgUp  Ctrl+D Ctrl+U", "page down / up"),
    ("Anywhere", "g G  Home End", "first / last"),
    ("Anywhere", "u", "undo the last review action"),
    ("Anywhere", "e", "export clusters and pairs (CSV + JSON)"),
    ("Anywhere", "R", "rescan the whole folder"),
    ("Anywhere", "U", "undo this session's last quarantine"),
    (
        "Anywhere",
        "b",
        "boilerplate: passages left out of documents",
    ),
    (
        "Clusters",
        "Tab  h l  ← →",
        "switch between clusters and members",
    ),
    ("Clusters", "Enter", "open members, then the pair detail"),
    ("Clusters", "s", "sort by size / weakest link / newest"),
    (
        "Clusters",
        "/",
        "filter by file name (Enter keeps, Esc clears)",
    ),
    ("Clusters", "p  d", "pair detail / side-by-side diff"),
    ("Clusters", "M", "quarantine the duplicates (asks first)"),
    (
        "Clusters",
        "a",
        "pairs from this member, not the representative (a: toggle)",
    ),
    (
        "Clusters",
        "Y  X",
        "the whole cluster: every member duplicate / not (u undoes)",
    ),
    (
        "Review (clusters, pair, diff)",
        "y",
        "mark the pair duplicate",
    ),
    (
        "Review (clusters, pair, diff)",
        "x",
        "mark the pair not duplicate",
    ),
    (
        "Review (clusters, pair, diff)",
        "Space",
        "keep / unkeep the selected member",
    ),
    (
        "Pair",
        "j k",
        "select an algorithm (its reason shows below)",
    ),
    (
        "Pair",
        "J K",
        "scroll the reason when it is longer than its panel",
    ),
    (
        "Pair",
        "v",
        "every curator's verdict on the pair, set and cleared (and back)",
    ),
    ("Pair", "d  Enter", "side-by-side diff of the pair"),
    (
        "Diff",
        "n N",
        "next / previous change (search match while searching)",
    ),
    (
        "Diff",
        "] [",
        "next / previous page of a paged side (PDF, ALTO, …)",
    ),
    ("Diff", "/", "search both sides (Enter jumps; Esc clears)"),
    (
        "Diff",
        "f",
        "fold identical stretches, keeping changes in context",
    ),
    ("Diff", "w", "word view (re-flowed, in step) / line view"),
    ("Diff", "p", "pair detail"),
    (
        "Documents",
        "Tab  h l  ← →",
        "switch between the files and the selected one's neighbours",
    ),
    (
        "Documents",
        "Enter",
        "neighbours, then the pair of the file and the neighbour",
    ),
    (
        "Documents",
        "s",
        "sort by name / size / words / modified / quality / cluster",
    ),
    ("Documents", "/", "filter by file name (as on the clusters)"),
    ("Documents", "p  d", "pair detail / diff with the neighbour"),
    ("Thresholds", "j k", "select an algorithm"),
    (
        "Thresholds",
        "h l  ← →  - +",
        "loosen / tighten its threshold",
    ),
    ("Thresholds", "H L", "move it ten steps"),
    ("Thresholds", "0", "back to the configured value"),
    ("Thresholds", "S", "save the thresholds to the config file"),
    ("Thresholds", "c C", "cluster by: next / previous algorithm"),
    ("Thresholds", "m", "mode: components / star"),
    (
        "Thresholds",
        "i",
        "what the algorithm measures (i again: the sliders)",
    ),
    (
        "Boilerplate",
        "o",
        "the selected passage is not boilerplate / is again",
    ),
    (
        "Mouse",
        "click",
        "select; click again to open; tabs switch screens",
    ),
    ("Mouse", "wheel", "move / scroll the list under the pointer"),
    ("Mouse", "click, drag", "set a threshold on its slider"),
];

/// The action for a key press, if any.
pub fn key(state: &AppState, key: KeyEvent) -> Option<Action> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    if ctrl && matches!(key.code, KeyCode::Char('c') | KeyCode::Char('C')) {
        return Some(Action::Quit);
    }
    // Raw mode turns Ctrl+Z into a key instead of SIGTSTP.
    if ctrl && matches!(key.code, KeyCode::Char('z') | KeyCode::Char('Z')) {
        return Some(Action::Suspend);
    }
    if state.prompt.is_some() {
        return match key.code {
            KeyCode::Enter => Some(Action::PromptSubmit),
            KeyCode::Esc => Some(Action::PromptCancel),
            KeyCode::Backspace => Some(Action::PromptBackspace),
            KeyCode::Char(c) if !ctrl => Some(Action::PromptChar(c)),
            _ => None,
        };
    }
    if state.act.view.is_some() {
        // The confirmation view: only a yes moves files.
        return match key.code {
            KeyCode::Char('y') | KeyCode::Enter => Some(Action::ConfirmQuarantine),
            KeyCode::Esc | KeyCode::Char('n') | KeyCode::Char('q') => Some(Action::Back),
            _ => navigation(key, ctrl),
        };
    }
    if state.boilerplate.is_some() && state.help.is_none() {
        return match key.code {
            KeyCode::Char('o') => Some(Action::ToggleOverrule),
            KeyCode::Char('b') => Some(Action::ToggleBoilerplate),
            KeyCode::Esc | KeyCode::Char('q') => Some(Action::Back),
            KeyCode::Char('?') => Some(Action::ToggleHelp),
            _ => navigation(key, ctrl),
        };
    }
    if state.help.is_some() {
        return match key.code {
            KeyCode::Esc | KeyCode::Char('?') | KeyCode::Char('q') | KeyCode::Enter => {
                Some(Action::ToggleHelp)
            }
            _ => navigation(key, ctrl),
        };
    }
    if let Some(a) = navigation(key, ctrl) {
        return Some(a);
    }
    let screen = state.screen;
    let reviewing = matches!(screen, Screen::Clusters | Screen::Pair | Screen::Diff);
    let action = match key.code {
        KeyCode::Char('q') => Action::AskQuit,
        KeyCode::Char('?') => Action::ToggleHelp,
        KeyCode::Esc => Action::Back,
        KeyCode::Char(c @ '1'..='7') => {
            let i = c as usize - '1' as usize;
            Action::ShowScreen(Screen::ALL[i])
        }
        KeyCode::Char('t') => Action::ShowScreen(Screen::Thresholds),
        KeyCode::Char('D') => Action::ShowScreen(Screen::Documents),
        KeyCode::Char('u') => Action::Undo,
        KeyCode::Char('e') => Action::StartExport,
        KeyCode::Char('R') => Action::Rescan,
        KeyCode::Char('b') => Action::ToggleBoilerplate,
        KeyCode::Char('M') if screen == Screen::Clusters => Action::AskQuarantine,
        KeyCode::Char('U') => Action::UndoQuarantine,
        KeyCode::Char('y') if reviewing => Action::MarkDuplicate,
        KeyCode::Char('x') if reviewing => Action::MarkNotDuplicate,
        KeyCode::Char(' ') if reviewing => Action::ToggleKeep,
        KeyCode::Char('p') => Action::OpenPair,
        KeyCode::Char('d') => Action::OpenDiff,
        KeyCode::Enter => Action::Enter,
        KeyCode::Char('s') if matches!(screen, Screen::Clusters | Screen::Documents) => {
            Action::CycleSort
        }
        KeyCode::Char('a') if screen == Screen::Clusters => Action::Anchor,
        KeyCode::Char('Y') if screen == Screen::Clusters => {
            Action::MarkCluster(CuratorVerdict::Duplicate)
        }
        KeyCode::Char('X') if screen == Screen::Clusters => {
            Action::MarkCluster(CuratorVerdict::NotDuplicate)
        }
        KeyCode::Char('/') if matches!(screen, Screen::Clusters | Screen::Documents) => {
            Action::StartFilter
        }
        KeyCode::Char('/') if screen == Screen::Diff => Action::StartSearch,
        KeyCode::Char('f') if screen == Screen::Diff => Action::ToggleFold,
        KeyCode::Char('w') if screen == Screen::Diff => Action::ToggleDiffMode,
        KeyCode::Tab | KeyCode::BackTab
            if matches!(screen, Screen::Clusters | Screen::Documents) =>
        {
            Action::NextFocus
        }
        KeyCode::Char('v') if screen == Screen::Pair => Action::ToggleVerdictHistory,
        KeyCode::Char('J') if screen == Screen::Pair => Action::ScrollReason { down: true },
        KeyCode::Char('K') if screen == Screen::Pair => Action::ScrollReason { down: false },
        KeyCode::Char('n') if screen == Screen::Diff => Action::NextChange,
        KeyCode::Char('N') if screen == Screen::Diff => Action::PrevChange,
        KeyCode::Char(']') if screen == Screen::Diff => Action::PageBreak { forward: true },
        KeyCode::Char('[') if screen == Screen::Diff => Action::PageBreak { forward: false },
        KeyCode::Char('h') | KeyCode::Left if screen == Screen::Thresholds => Action::Nudge(-1),
        KeyCode::Char('l') | KeyCode::Right if screen == Screen::Thresholds => Action::Nudge(1),
        KeyCode::Char('-') if screen == Screen::Thresholds => Action::Nudge(-1),
        KeyCode::Char('+') | KeyCode::Char('=') if screen == Screen::Thresholds => Action::Nudge(1),
        KeyCode::Char('H') if screen == Screen::Thresholds => Action::Nudge(-10),
        KeyCode::Char('L') if screen == Screen::Thresholds => Action::Nudge(10),
        KeyCode::Char('0') if screen == Screen::Thresholds => Action::ResetThreshold,
        KeyCode::Char('c') if screen == Screen::Thresholds => {
            Action::CycleClusterBy { forward: true }
        }
        KeyCode::Char('C') if screen == Screen::Thresholds => {
            Action::CycleClusterBy { forward: false }
        }
        KeyCode::Char('m') if screen == Screen::Thresholds => Action::ToggleMode,
        KeyCode::Char('i') if screen == Screen::Thresholds => Action::ToggleAbout,
        KeyCode::Char('S') if screen == Screen::Thresholds => Action::SaveThresholds,
        KeyCode::Char('h') | KeyCode::Left => Action::Left,
        KeyCode::Char('l') | KeyCode::Right => Action::Right,
        _ => return None,
    };
    Some(action)
}

/// Movement keys, the same on every screen.
fn navigation(key: KeyEvent, ctrl: bool) -> Option<Action> {
    Some(match key.code {
        KeyCode::Char('j') | KeyCode::Down => Action::Down,
        KeyCode::Char('k') | KeyCode::Up => Action::Up,
        KeyCode::PageDown => Action::PageDown,
        KeyCode::PageUp => Action::PageUp,
        KeyCode::Char('d') if ctrl => Action::PageDown,
        KeyCode::Char('u') if ctrl => Action::PageUp,
        KeyCode::Char('g') | KeyCode::Home => Action::Home,
        KeyCode::Char('G') | KeyCode::End => Action::End,
        _ => return None,
    })
}

/// The action for a mouse event, if any.
pub fn mouse(event: MouseEvent) -> Option<Action> {
    let (col, row) = (event.column, event.row);
    match event.kind {
        MouseEventKind::Down(MouseButton::Left) => Some(Action::Click { col, row }),
        MouseEventKind::Drag(MouseButton::Left) => Some(Action::Drag { col, row }),
        MouseEventKind::ScrollDown => Some(Action::Scroll {
            col,
            row,
            down: true,
        }),
        MouseEventKind::ScrollUp => Some(Action::Scroll {
            col,
            row,
            down: false,
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use doppel_core::engine::EngineConfig;

    fn press(state: &AppState, code: KeyCode, mods: KeyModifiers) -> Option<Action> {
        key(state, KeyEvent::new(code, mods))
    }

    #[test]
    fn ctrl_c_quits_even_in_a_prompt() {
        let mut s = AppState::new("root", &EngineConfig::default());
        assert!(matches!(
            press(&s, KeyCode::Char('c'), KeyModifiers::CONTROL),
            Some(Action::Quit)
        ));
        s.prompt = Some(super::super::state::Prompt::Filter {
            input: String::new(),
        });
        assert!(matches!(
            press(&s, KeyCode::Char('q'), KeyModifiers::NONE),
            Some(Action::PromptChar('q'))
        ));
        assert!(matches!(
            press(&s, KeyCode::Char('c'), KeyModifiers::CONTROL),
            Some(Action::Quit)
        ));
    }

    #[test]
    fn keys_depend_on_the_screen() {
        let mut s = AppState::new("root", &EngineConfig::default());
        assert!(matches!(
            press(&s, KeyCode::Char('l'), KeyModifiers::NONE),
            Some(Action::Right)
        ));
        s.screen = Screen::Thresholds;
        assert!(matches!(
            press(&s, KeyCode::Char('l'), KeyModifiers::NONE),
            Some(Action::Nudge(1))
        ));
        s.screen = Screen::Diff;
        assert!(matches!(
            press(&s, KeyCode::Char('n'), KeyModifiers::NONE),
            Some(Action::NextChange)
        ));
    }

    /// Every single-character key the help lists maps to an action on
    /// some screen.
    #[test]
    fn every_listed_key_does_something() {
        let mut s = AppState::new("root", &EngineConfig::default());
        for (_, keys, _) in HELP {
            for k in keys.split_whitespace() {
                let mut chars = k.chars();
                let (Some(c), None) = (chars.next(), chars.next()) else {
                    continue;
                };
                if c == '…' {
                    continue;
                }
                let code = match c {
                    '↓' => KeyCode::Down,
                    '↑' => KeyCode::Up,
                    '←' => KeyCode::Left,
                    '→' => KeyCode::Right,
                    c => KeyCode::Char(c),
                };
                let found = Screen::ALL.into_iter().any(|screen| {
                    s.screen = screen;
                    press(&s, code, KeyModifiers::NONE).is_some()
                }) || {
                    // The boilerplate overlay's own keys.
                    s.boilerplate = Some(Default::default());
                    let found = press(&s, code, KeyModifiers::NONE).is_some();
                    s.boilerplate = None;
                    found
                };
                assert!(found, "{k:?} is listed in the help but does nothing");
            }
        }
    }
}
