//! The binary's commands, one module each; `main.rs` is their table of
//! contents.

pub mod log;
