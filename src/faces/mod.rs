//! Faces: what people and scripts see: the text/JSON/CSV report, the
//! papers' experiments (`eval`), and the terminal UI (feature `tui`). Built
//! on the runtime; nothing below imports a face.

pub mod eval;
pub mod html;
pub mod report;
#[cfg(feature = "tui")]
pub mod tui;
