//! Errors of the configuration file, each naming the file, and where it can
//! be told the line and the key: [`ConfigError`].

use std::path::{Path, PathBuf};

/// Why a configuration could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file cannot be read.
    #[error("cannot read config file {}: {error}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// What the file system said.
        #[source]
        error: std::io::Error,
    },
    /// Not TOML. The parser quotes the line, so any store address in it is
    /// [`redacted`](doppel_store::redacted_in).
    #[error("{origin}: {error}")]
    Syntax {
        /// "config file PATH" or "built-in config".
        origin: String,
        /// What the TOML parser said, redacted.
        #[source]
        error: RedactedSyntax,
    },
    /// A key that does not exist, a value of the wrong type or out of its
    /// range.
    #[error("{origin}{}: {message}{}", line.map(|l| format!(", line {l}")).unwrap_or_default(), table_text(table))]
    Setting {
        /// "config file PATH" or "built-in config".
        origin: String,
        /// The line of the key in the file, when it can be told.
        line: Option<usize>,
        /// What is wrong.
        message: String,
        /// The table the key is in (`a.b`), if not the top level.
        table: Vec<String>,
    },
    /// The folder an index is wanted for cannot be resolved.
    #[error("cannot open folder {}: {error}", root.display())]
    Folder {
        /// The folder.
        root: PathBuf,
        /// What the file system said.
        #[source]
        error: std::io::Error,
    },
    /// Tuned settings cannot be written into the config file.
    #[error("cannot save to config file {}: {problem}", path.display())]
    Save {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        problem: SaveProblem,
    },
    /// The configuration does not serialize (`doppel config`).
    #[error("cannot write the configuration as TOML: {0}")]
    Write(#[from] toml::ser::Error),
}

/// A TOML syntax error, shown with any store address in it
/// [`redacted`](doppel_store::redacted_in): the parser's own text
/// (which quotes the line) is never shown, so it is no source of this one.
#[derive(Debug)]
pub struct RedactedSyntax(pub Box<toml::de::Error>);

impl std::fmt::Display for RedactedSyntax {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&doppel_store::redacted_in(&self.0.to_string()))
    }
}

impl std::error::Error for RedactedSyntax {}

/// Why tuned thresholds cannot be saved into the config file.
#[derive(Debug, thiserror::Error)]
pub enum SaveProblem {
    /// The file is not TOML.
    #[error("{0}")]
    Syntax(#[from] toml_edit::TomlError),
    /// Its `thresholds` is a value, not a table.
    #[error("`thresholds` is not a table")]
    NotATable,
    /// The new file cannot be written or put in place.
    #[error("{0}")]
    Write(#[from] std::io::Error),
}

fn table_text(table: &[String]) -> String {
    if table.is_empty() {
        String::new()
    } else {
        format!(" (in `{}`)", table.join("."))
    }
}

/// Where the file of an error is, for messages: "config file PATH".
pub(super) fn origin_name(origin: Option<&Path>) -> String {
    match origin {
        Some(path) => format!("config file {}", path.display()),
        None => "built-in config".to_owned(),
    }
}

/// The line (1-based) of the key at `path` in `text`, where it can be told.
pub(super) fn line_of(text: &str, path: &[String]) -> Option<usize> {
    let parsed = toml::de::DeTable::parse(text).ok()?;
    let mut table = parsed.get_ref();
    let mut span = None;
    for (i, part) in path.iter().enumerate() {
        let (key, value) = table
            .iter()
            .find(|(k, _)| k.get_ref().as_ref() == part.as_str())?;
        span = Some(key.span());
        if i + 1 < path.len() {
            table = value.get_ref().as_table()?;
        }
    }
    span.map(|s| line_at(text, s.start))
}

fn line_at(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The error of deserializing the merged table, with the line of the key
/// it is about in the user's `text` and the key's table (the key path
/// from `serde_path_to_error`). `user` is the user's table and `fails`
/// what deserializing one in its place says (`None`: it reads): how a key
/// the path cannot name is found.
pub(super) fn setting_error(
    origin: String,
    error: serde_path_to_error::Error<toml::de::Error>,
    text: &str,
    user: &toml::Table,
    fails: &dyn Fn(&toml::Table) -> Option<String>,
) -> ConfigError {
    use serde_path_to_error::Segment;
    let mut keys: Vec<String> = error
        .path()
        .iter()
        .filter_map(|segment| match segment {
            Segment::Map { key } => Some(key.clone()),
            _ => None,
        })
        .collect();
    let message = error.inner().message().trim_end().to_owned();
    // "unknown field `x`" (a struct) or "unknown variant `x`" (a map keyed
    // by algorithm id, or an enum value): the line of key x if it is one.
    let named = ["unknown field `", "unknown variant `"]
        .iter()
        .find_map(|p| message.strip_prefix(p)?.split('`').next());
    let mut line = None;
    let mut message = message.clone();
    if let Some(name) = named {
        let key_path = [keys.clone(), vec![name.to_owned()]].concat();
        line = line_of(text, &key_path);
        if line.is_some() {
            message = message.replacen("unknown variant", "unknown key", 1);
        }
    }
    // A key read as an enum (`[thresholds]` is keyed by algorithm id) is
    // no string to the path: `thresholds.?`.
    let untold = error
        .path()
        .iter()
        .any(|segment| matches!(segment, Segment::Unknown));
    if line.is_none() && untold {
        let failed = error.to_string();
        if let Some(key) = failing_key(user, &keys, &|alone| fails(alone) == Some(failed.clone())) {
            keys.push(key);
        }
    }
    ConfigError::Setting {
        origin,
        line: line.or_else(|| line_of(text, &keys)),
        message,
        table: keys,
    }
}

/// The key of `user`'s table at `table` that alone, its siblings taken
/// out, still makes the configuration fail as it did (`fails_so`).
fn failing_key(
    user: &toml::Table,
    table: &[String],
    fails_so: &dyn Fn(&toml::Table) -> bool,
) -> Option<String> {
    let mut keys = user;
    for key in table {
        keys = keys.get(key)?.as_table()?;
    }
    keys.keys().find_map(|name| {
        let mut alone = user.clone();
        let mut inner = &mut alone;
        for key in table {
            inner = inner.get_mut(key)?.as_table_mut()?;
        }
        inner.retain(|key, _| key == name);
        fails_so(&alone).then(|| name.clone())
    })
}
