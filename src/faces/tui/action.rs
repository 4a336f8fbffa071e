//! Every user intent and every outside event the model reacts to. The
//! keymap turns keys and mouse events into these; the loop turns worker
//! updates, resizes and timer ticks into these; [`super::update::update`]
//! is the only place they change the model.

use std::time::Duration;

use super::state::Screen;
use crate::runtime::worker::Update;

#[derive(Debug, Clone)]
pub enum Action {
    Quit,
    /// Ctrl+Z or SIGTSTP: give the terminal back to the shell and stop
    /// until continued.
    Suspend,
    ShowScreen(Screen),
    ToggleHelp,
    /// Close the overlay or prompt, or go back to the cluster list.
    Back,
    Up,
    Down,
    PageUp,
    PageDown,
    Home,
    End,
    /// Focus the cluster list.
    Left,
    /// Focus the members.
    Right,
    /// Switch between the cluster list and the members.
    NextFocus,
    Enter,
    CycleSort,
    StartFilter,
    StartExport,
    PromptChar(char),
    PromptBackspace,
    PromptSubmit,
    PromptCancel,
    OpenPair,
    OpenDiff,
    /// The next (previous) change of the diff, or search match.
    NextChange,
    PrevChange,
    /// Ask what to search for in the diff.
    StartSearch,
    /// Fold the diff's identical stretches, or show them.
    ToggleFold,
    /// Between the diff's word view and line view.
    ToggleDiffMode,
    /// Scroll the pair screen's reason panel a row.
    ScrollReason {
        down: bool,
    },
    MarkDuplicate,
    MarkNotDuplicate,
    ToggleKeep,
    Undo,
    Rescan,
    /// Move the selected algorithm's threshold by this many steps
    /// (positive = stricter, whatever the unit).
    Nudge(i32),
    ResetThreshold,
    CycleClusterBy {
        forward: bool,
    },
    ToggleMode,
    /// The selected algorithm in words, or the sliders again.
    ToggleAbout,
    Click {
        col: u16,
        row: u16,
    },
    Drag {
        col: u16,
        row: u16,
    },
    Scroll {
        col: u16,
        row: u16,
        down: bool,
    },
    Resize(u16, u16),
    /// Time passed (since the UI started).
    Tick(Duration),
    Worker(Update),
    /// The worker's channel closed.
    WorkerGone,
    /// An export finished: what it wrote, or why not.
    Exported(Result<super::export::Written, String>),
}
