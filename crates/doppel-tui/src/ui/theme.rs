//! Every colour and style in one place, per [`Theme`].
//!
//! The default theme uses only the 16 basic colours plus bold and reverse,
//! so it reads the same over SSH and in any terminal theme. The monochrome
//! theme uses no colour at all: every state a colour shows in the default
//! theme (the selection, the active tab, the focused pane, a diff's
//! changes, a threshold moved from its default) is shown by a modifier
//! (reverse, bold, underline, dim) or a glyph (a focused pane's thick
//! border). It is also what `NO_COLOR` gets: a terminal told `NO_COLOR`
//! by crossterm writes every colour change as an empty SGR sequence, which
//! resets the modifiers too, so a reversed row with a coloured word in it
//! would show one reversed cell.

use ratatui::style::{Color, Modifier, Style};
use ratatui::widgets::BorderType;

use doppel_index::config::ThemeName;

/// How the screen is styled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Theme {
    /// Basic colours plus modifiers.
    #[default]
    Default,
    /// Modifiers and glyphs only.
    Monochrome,
}

impl Theme {
    /// The theme to draw with: the configured one, unless `no_color` (the
    /// `NO_COLOR` variable, <https://no-color.org>) is set and not empty,
    /// which asks for no colour whatever the configuration says.
    pub fn resolve(name: ThemeName, no_color: Option<&std::ffi::OsStr>) -> Self {
        if no_color.is_some_and(|v| !v.is_empty()) {
            return Theme::Monochrome;
        }
        match name {
            ThemeName::Default => Theme::Default,
            ThemeName::Monochrome => Theme::Monochrome,
        }
    }

    fn mono(self) -> bool {
        self == Theme::Monochrome
    }

    /// `colour` in the default theme, `modifier` in the monochrome one.
    fn pick(self, colour: Style, modifier: Modifier) -> Style {
        if self.mono() {
            Style::new().add_modifier(modifier)
        } else {
            colour
        }
    }

    /// A pane's border, brighter (bold) when it has the keyboard.
    pub fn border(self, focused: bool) -> Style {
        match (self.mono(), focused) {
            (true, true) => Style::new().add_modifier(Modifier::BOLD),
            (true, false) => Style::new(),
            (false, true) => Style::new().fg(Color::Cyan),
            (false, false) => Style::new().fg(Color::DarkGray),
        }
    }

    /// The focused pane's border is thick where no colour tells it.
    pub fn border_type(self, focused: bool) -> BorderType {
        if self.mono() && focused {
            BorderType::Thick
        } else {
            BorderType::Plain
        }
    }

    /// A pane's title.
    pub fn title(self) -> Style {
        Style::new().add_modifier(Modifier::BOLD)
    }

    /// A table's column headers.
    pub fn header(self) -> Style {
        self.pick(
            Style::new().fg(Color::Gray).add_modifier(Modifier::BOLD),
            Modifier::BOLD,
        )
    }

    /// Text that matters less: hints, units, folded rows.
    pub fn dim(self) -> Style {
        self.pick(Style::new().fg(Color::DarkGray), Modifier::DIM)
    }

    /// The selected row: reversed in the list that has the keyboard,
    /// shaded (underlined without colour) in the other.
    pub fn selected(self, focused: bool) -> Style {
        if focused {
            Style::new().add_modifier(Modifier::REVERSED)
        } else {
            self.pick(Style::new().bg(Color::DarkGray), Modifier::UNDERLINED)
        }
    }

    /// A score that passes its threshold.
    pub fn pass(self) -> Style {
        self.pick(Style::new().fg(Color::Green), Modifier::BOLD)
    }

    /// A score below its threshold.
    pub fn fail(self) -> Style {
        self.dim()
    }

    /// A warning on the message line or in the log.
    pub fn warn(self) -> Style {
        self.pick(Style::new().fg(Color::Yellow), Modifier::BOLD)
    }

    /// An error on the message line or in the log.
    pub fn error(self) -> Style {
        self.pick(Style::new().fg(Color::Red), Modifier::BOLD)
    }

    /// Keys and values the eye should find first.
    pub fn accent(self) -> Style {
        self.pick(Style::new().fg(Color::Cyan), Modifier::empty())
    }

    /// A setting moved from its default.
    pub fn changed(self) -> Style {
        self.pick(self.accent(), Modifier::UNDERLINED)
    }

    /// The member marked to keep.
    pub fn keep(self) -> Style {
        self.pick(
            Style::new().fg(Color::Magenta).add_modifier(Modifier::BOLD),
            Modifier::BOLD,
        )
    }

    /// Text only on the left side of a diff (deleted or changed away).
    pub fn removed(self) -> Style {
        self.pick(Style::new().fg(Color::Red), Modifier::UNDERLINED)
    }

    /// Text only on the right side of a diff.
    pub fn added(self) -> Style {
        self.pick(Style::new().fg(Color::Green), Modifier::UNDERLINED)
    }

    /// Words of a block the other side has elsewhere.
    pub fn moved(self) -> Style {
        self.pick(Style::new().fg(Color::Magenta), Modifier::BOLD)
    }

    /// A search match in the diff.
    pub fn search_hit(self) -> Style {
        self.pick(
            Style::new().fg(Color::Black).bg(Color::Yellow),
            Modifier::REVERSED | Modifier::BOLD,
        )
    }

    /// Marked characters of a changed word, or a changed word with no
    /// character marked.
    pub fn changed_word(self, left: bool) -> Style {
        let c = if left { Color::Red } else { Color::Green };
        self.pick(Style::new().fg(c), Modifier::empty())
            .add_modifier(Modifier::REVERSED)
    }

    /// A screen's tab, the active one highlighted.
    pub fn tab(self, active: bool) -> Style {
        match (self.mono(), active) {
            (true, true) => Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD),
            (true, false) => Style::new(),
            (false, true) => Style::new()
                .fg(Color::Black)
                .bg(Color::Cyan)
                .add_modifier(Modifier::BOLD),
            (false, false) => Style::new().fg(Color::Gray),
        }
    }

    /// The status bar.
    pub fn status(self) -> Style {
        self.pick(
            Style::new().bg(Color::Black).fg(Color::Gray),
            Modifier::empty(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn no_color_asks_for_monochrome_whatever_the_setting() {
        let set = Some(OsStr::new("1"));
        assert_eq!(Theme::resolve(ThemeName::Default, set), Theme::Monochrome);
        assert_eq!(
            Theme::resolve(ThemeName::Default, Some(OsStr::new(""))),
            Theme::Default
        );
        assert_eq!(Theme::resolve(ThemeName::Default, None), Theme::Default);
        assert_eq!(
            Theme::resolve(ThemeName::Monochrome, None),
            Theme::Monochrome
        );
    }

    /// No style of the monochrome theme has a colour, and each state a
    /// colour tells apart in the default theme differs by modifier.
    #[test]
    fn monochrome_tells_states_apart_without_colour() {
        let t = Theme::Monochrome;
        let all = [
            t.border(true),
            t.border(false),
            t.header(),
            t.dim(),
            t.selected(true),
            t.selected(false),
            t.pass(),
            t.fail(),
            t.warn(),
            t.error(),
            t.accent(),
            t.changed(),
            t.keep(),
            t.removed(),
            t.added(),
            t.moved(),
            t.search_hit(),
            t.changed_word(true),
            t.tab(true),
            t.tab(false),
            t.status(),
        ];
        for s in all {
            assert_eq!((s.fg, s.bg), (None, None), "{s:?}");
        }
        let pairs = [
            (t.selected(true), t.selected(false)),
            (t.selected(false), Style::new()),
            (t.tab(true), t.tab(false)),
            (t.border(true), t.border(false)),
            (t.removed(), Style::new()),
            (t.moved(), t.removed()),
            (t.search_hit(), t.changed_word(true)),
            (t.changed(), Style::new()),
            (t.pass(), t.fail()),
        ];
        for (a, b) in pairs {
            assert_ne!(a.add_modifier, b.add_modifier, "{a:?} and {b:?}");
        }
    }
}
