//! Every colour and style in one place. Only the 16 basic colours plus
//! bold/reverse, so it reads the same over SSH and in any terminal theme.

use ratatui::style::{Color, Modifier, Style};

pub fn border(focused: bool) -> Style {
    if focused {
        Style::new().fg(Color::Cyan)
    } else {
        Style::new().fg(Color::DarkGray)
    }
}

pub fn title() -> Style {
    Style::new().add_modifier(Modifier::BOLD)
}

pub fn header() -> Style {
    Style::new().fg(Color::Gray).add_modifier(Modifier::BOLD)
}

pub fn dim() -> Style {
    Style::new().fg(Color::DarkGray)
}

/// The selected row of the list that has the keyboard.
pub fn selected(focused: bool) -> Style {
    if focused {
        Style::new().add_modifier(Modifier::REVERSED)
    } else {
        Style::new().bg(Color::DarkGray)
    }
}

pub fn pass() -> Style {
    Style::new().fg(Color::Green)
}

pub fn fail() -> Style {
    Style::new().fg(Color::DarkGray)
}

pub fn warn() -> Style {
    Style::new().fg(Color::Yellow)
}

pub fn error() -> Style {
    Style::new().fg(Color::Red)
}

pub fn accent() -> Style {
    Style::new().fg(Color::Cyan)
}

pub fn keep() -> Style {
    Style::new().fg(Color::Magenta).add_modifier(Modifier::BOLD)
}

/// Text only on the left side of a diff (deleted or changed away).
pub fn removed() -> Style {
    Style::new().fg(Color::Red)
}

/// Text only on the right side of a diff.
pub fn added() -> Style {
    Style::new().fg(Color::Green)
}

/// Words of a block the other side has elsewhere.
pub fn moved() -> Style {
    Style::new().fg(Color::Magenta)
}

/// A search match in the diff.
pub fn search_hit() -> Style {
    Style::new().fg(Color::Black).bg(Color::Yellow)
}

/// Marked characters of a changed word, or a changed word with no
/// character marked.
pub fn changed_word(left: bool) -> Style {
    let c = if left { Color::Red } else { Color::Green };
    Style::new().fg(c).add_modifier(Modifier::REVERSED)
}

pub fn tab(active: bool) -> Style {
    if active {
        Style::new()
            .fg(Color::Black)
            .bg(Color::Cyan)
            .add_modifier(Modifier::BOLD)
    } else {
        Style::new().fg(Color::Gray)
    }
}

pub fn status() -> Style {
    Style::new().bg(Color::Black).fg(Color::Gray)
}
