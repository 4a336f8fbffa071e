//! The `doppel` binary's usage errors (a module of the binary, declared in
//! `cli`, not of the library): settings the flags put out of range,
//! a misspelt command the top-level DIR took (`doppel scna`), and a word
//! that is neither a command nor a folder. Each is reported as clap
//! reports its own mistakes, with the usage of the command and exit
//! status 2.

use std::path::Path;

use anyhow::Result;
use clap::error::ErrorKind;

use doppel_core::engine::algo::AlgorithmId;
use doppel_index::config::Config;

/// A mistake on the command line found after parsing.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// The arguments after the program's name.
pub fn args() -> Vec<String> {
    std::env::args().skip(1).collect()
}

/// Exit as clap does on a usage error, with the usage of the command the
/// arguments name (or the top level's, `cli`).
pub fn exit(mut cli: clap::Command, kind: ErrorKind, message: impl std::fmt::Display) -> ! {
    cli.build();
    let named = first_word(&cli, &args()).and_then(|word| cli.find_subcommand(&word).cloned());
    named.unwrap_or(cli).error(kind, message).exit()
}

/// The first word of the top-level arguments that is neither an option nor
/// an option's value: the command, or what the top-level DIR takes.
pub fn first_word(cli: &clap::Command, args: &[String]) -> Option<String> {
    let takes_value = |long: &str| {
        cli.get_arguments()
            .any(|a| a.get_long() == Some(long) && a.get_action().takes_values())
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.strip_prefix("--") {
            Some("") => return args.next().cloned(),
            Some(long) => {
                if !long.contains('=') && takes_value(long) {
                    args.next();
                }
            }
            None if arg.starts_with('-') && arg.len() > 1 => {}
            None => return Some(arg.clone()),
        }
    }
    None
}

/// For a top-level DIR that does not exist and could be a command's name
/// (no path separator): the message saying it is no folder, with the
/// command it is close to, or that it is neither. `None` for a word that
/// is a command: clap took it as one, and its own error (an option the
/// command does not know, with the one it is close to) says what is wrong.
pub fn not_a_command_or_folder(cli: &clap::Command, word: &str) -> Option<String> {
    if cli.find_subcommand(word).is_some()
        || Path::new(word).symlink_metadata().is_ok()
        || word.contains('/')
        || word.contains(std::path::MAIN_SEPARATOR)
    {
        return None;
    }
    let names: Vec<&str> = cli
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .map(|c| c.get_name())
        .collect();
    // As clap's own suggestions: Jaro similarity above 0.7; and at most
    // half the letters edited (Jaro alone finds `frobnicate` close to
    // `boilerplate`).
    let closest = names
        .iter()
        .map(|&name| (strsim::jaro(word, name), name))
        .filter(|&(similarity, name)| {
            similarity > 0.7 && strsim::normalized_damerau_levenshtein(word, name) >= 0.5
        })
        .max_by(|a, b| a.0.total_cmp(&b.0));
    Some(match closest {
        Some((_, name)) => format!("no folder '{word}'; did you mean `doppel {name}`?"),
        None => format!(
            "'{word}' is neither a command nor a folder (commands: {})",
            names.join(", ")
        ),
    })
}

/// `config` (the file's, already checked, with the flags over it) if every
/// setting is in range; otherwise a [`UsageError`], naming the
/// `--threshold` flag (of `thresholds`) when one is out of range.
pub fn checked(config: Config, thresholds: &[(AlgorithmId, f64)]) -> Result<Config> {
    let Err(invalid) = config.check() else {
        return Ok(config);
    };
    let flag = thresholds
        .iter()
        .rev()
        .find(|(id, _)| invalid.key == format!("thresholds.{id}"));
    let message = match flag {
        Some((id, value)) => format!("--threshold {id}={value}: {}", invalid.problem),
        None => format!("with the options given, {invalid}"),
    };
    Err(UsageError(message).into())
}
