//! Every user intent and every outside event the model reacts to. The
//! keymap turns keys and mouse events into these; the loop turns worker
//! updates, resizes and timer ticks into these; [`super::update::update`]
//! is the only place they change the model.

use std::sync::Arc;
use std::time::Duration;

use super::error::TuiError;
use super::state::Screen;
use doppel_index::config::ConfigError;
use doppel_index::worker::Update;

/// What can happen to the UI model: a user intent or an outside event.
#[derive(Debug, Clone)]
pub enum Action {
    /// Leave (after the worker has closed the index).
    Quit,
    /// `q`: leave, asking first when tuned thresholds are unsaved.
    AskQuit,
    /// `S`: save the thresholds on screen to the config file.
    SaveThresholds,
    /// The loop wrote the thresholds to this config file, or could not.
    ThresholdsSaved(Result<std::path::PathBuf, Arc<ConfigError>>),
    /// Ctrl+Z or SIGTSTP: give the terminal back to the shell and stop
    /// until continued.
    Suspend,
    /// Show a screen.
    ShowScreen(Screen),
    /// Open or close the help overlay.
    ToggleHelp,
    /// `b`: open or close the boilerplate overlay.
    ToggleBoilerplate,
    /// `o` on the boilerplate overlay: the selected passage is not
    /// boilerplate, or is again.
    ToggleOverrule,
    /// Close the overlay or prompt, or go back to the cluster list.
    Back,
    /// Select the previous row (scroll up).
    Up,
    /// Select the next row (scroll down).
    Down,
    /// A page up.
    PageUp,
    /// A page down.
    PageDown,
    /// The first row.
    Home,
    /// The last row.
    End,
    /// Focus the cluster list.
    Left,
    /// Focus the members.
    Right,
    /// Switch between the cluster list and the members.
    NextFocus,
    /// Open what is selected (a cluster's members, a pair).
    Enter,
    /// Sort the cluster list the next way (size, weakest, newest).
    CycleSort,
    /// Type a filter for the cluster list.
    StartFilter,
    /// Type a prefix to export to.
    StartExport,
    /// A character typed into the prompt.
    PromptChar(char),
    /// Delete the prompt's last character.
    PromptBackspace,
    /// Accept the prompt.
    PromptSubmit,
    /// Close the prompt without acting.
    PromptCancel,
    /// Show the selected pair's scores.
    OpenPair,
    /// Show the selected pair's diff.
    OpenDiff,
    /// The next (previous) change of the diff, or search match.
    NextChange,
    /// Jump to the diff's previous change.
    PrevChange,
    /// Scroll the diff to the next (previous) page of its paged side.
    PageBreak {
        /// Towards the end.
        forward: bool,
    },
    /// Ask what to search for in the diff.
    StartSearch,
    /// Fold the diff's identical stretches, or show them.
    ToggleFold,
    /// Between the diff's word view and line view.
    ToggleDiffMode,
    /// The pair screen's verdict history in place of its reason panel, or
    /// back.
    ToggleVerdictHistory,
    /// Scroll the pair screen's reason panel a row.
    ScrollReason {
        /// Towards the end.
        down: bool,
    },
    /// Mark the active pair a duplicate.
    MarkDuplicate,
    /// Mark the active pair not a duplicate.
    MarkNotDuplicate,
    /// Judge every member of the selected cluster against its
    /// representative: accept the cluster, or dismiss it.
    MarkCluster(doppel_core::doc::CuratorVerdict),
    /// Mark (or unmark) the active document as its cluster's keeper.
    ToggleKeep,
    /// Make the selected member the A of the next pair opened in its
    /// cluster (again: back to the representative).
    Anchor,
    /// Undo the last verdict or keeper mark.
    Undo,
    /// `M`: plan moving the marked files of the clusters shown to the
    /// quarantine folder, and ask before moving any.
    AskQuarantine,
    /// `y` or Enter on the confirmation view: move them.
    ConfirmQuarantine,
    /// `U`: put back the files this session's last quarantine moved.
    UndoQuarantine,
    /// Ask the worker to walk the folder again.
    Rescan,
    /// Move the selected algorithm's threshold by this many steps
    /// (positive = stricter, whatever the unit).
    Nudge(i32),
    /// Put the selected threshold back to its configured value.
    ResetThreshold,
    /// Cluster by the next (or previous) verdict.
    CycleClusterBy {
        /// Next (`true`) or previous.
        forward: bool,
    },
    /// Switch between components and stars.
    ToggleMode,
    /// The selected algorithm in words, or the sliders again.
    ToggleAbout,
    /// A mouse click.
    Click {
        /// Terminal column.
        col: u16,
        /// Terminal row.
        row: u16,
    },
    /// A mouse drag.
    Drag {
        /// Terminal column.
        col: u16,
        /// Terminal row.
        row: u16,
    },
    /// A mouse wheel turn.
    Scroll {
        /// Terminal column.
        col: u16,
        /// Terminal row.
        row: u16,
        /// Towards the end.
        down: bool,
    },
    /// The terminal is now this many columns and rows.
    Resize(u16, u16),
    /// Time passed (since the UI started).
    Tick(Duration),
    /// An update from the worker.
    Worker(Update),
    /// The worker's channel closed.
    WorkerGone,
    /// An export finished: what it wrote, or why not.
    Exported(Result<super::export::Written, Arc<TuiError>>),
}
