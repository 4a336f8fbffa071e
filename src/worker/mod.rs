//! The background worker: owns the folder index on its own thread, takes
//! [`Command`]s, sends [`Update`]s. See [`protocol`].
pub mod protocol;

pub use protocol::{Command, Update};
