//! `doppel config`: the configuration in effect, the built-in defaults,
//! or where the file is looked for.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};

use doppel_index::config::Config;

/// `doppel config`: the configuration in effect, the built-in defaults, or
/// where the file is looked for.
pub fn print_config(explicit: Option<&Path>, defaults: bool, path: bool) -> Result<()> {
    let out = if defaults {
        doppel_index::config::DEFAULTS.to_owned()
    } else if path {
        let path = explicit
            .map(Path::to_path_buf)
            .or_else(Config::default_path)
            .context("no config folder on this platform")?;
        let note = if path.exists() { "" } else { " (not there)" };
        format!("{}{note}\n", path.display())
    } else {
        Config::load(explicit)?.to_toml()?
    };
    std::io::stdout().lock().write_all(out.as_bytes())?;
    Ok(())
}
