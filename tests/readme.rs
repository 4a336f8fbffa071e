//! README.md stays true to the binary: its Usage block names every command
//! and flag the binary takes and nothing else, its list of `doppel watch`
//! events is the list the watcher front end emits, every positional has
//! help, the help's defaults are the compiled ones, and the Algorithms
//! table gives the compiled default thresholds and ranges.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::{doppel, stdout_of};
use doppel_core::engine::algo::AlgorithmId;
use doppel_core::engine::{AlgorithmsConfig, Thresholds};
use doppel_index::config::{threshold_range, ClusterSettings, WatchSettings};
use doppel_index::worker::protocol::jsonl_event;
use doppel_pairing::cluster::ClusterMode;

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap()
}

/// Every `--flag` in `text`.
fn flags_in(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .filter_map(|word| word.strip_prefix("--"))
        .filter(|name| name.starts_with(|c: char| c.is_ascii_lowercase()))
        .map(str::to_owned)
        .collect()
}

/// The flags every command takes, which README states once in words.
const GLOBAL: [&str; 4] = ["config", "log", "help", "version"];

/// README's Usage block: each command ("" for `doppel [DIR]`) with the
/// flags its lines name (comments left out).
fn readme_usage() -> BTreeMap<String, BTreeSet<String>> {
    let text = readme();
    let usage = &text[text.find("## Usage").expect("a Usage section")..];
    let block = usage
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("a sh block in Usage");
    let mut commands: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut current = None;
    for line in block.lines() {
        let line = line.split('#').next().unwrap();
        if let Some(rest) = line.strip_prefix("doppel ") {
            let mut words = rest.split_whitespace();
            let word = words.next().unwrap_or_default();
            let top_level = word.starts_with('[') || word.starts_with('-');
            // A command with subcommands (`doppel index list`) is named by both words.
            let name = match words.next() {
                Some(sub) if sub.starts_with(|c: char| c.is_ascii_lowercase()) => {
                    format!("{word} {sub}")
                }
                _ => word.to_owned(),
            };
            current = Some(if top_level { String::new() } else { name });
        }
        let command = current.clone().expect("the block starts with a command");
        commands.entry(command).or_default().extend(flags_in(line));
    }
    commands
}

/// `doppel [COMMAND [SUBCOMMAND]] -h`.
fn help(command: &str) -> String {
    let mut doppel = doppel();
    doppel.args(command.split_whitespace());
    String::from_utf8(stdout_of(doppel.arg("-h"))).unwrap()
}

/// The lines of one section ("Options:") of a help text.
fn section<'a>(help: &'a str, title: &str) -> Vec<&'a str> {
    help.lines()
        .skip_while(|l| *l != title)
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect()
}

/// The commands a help text lists (hidden ones are not listed).
fn listed_commands(help: &str) -> Vec<String> {
    section(help, "Commands:")
        .iter()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|&name| name != "help")
        .map(str::to_owned)
        .collect()
}

/// The commands the binary lists, a command with subcommands as each
/// `command subcommand`.
fn commands() -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for command in listed_commands(&help("")) {
        let subcommands = listed_commands(&help(&command));
        if subcommands.is_empty() {
            out.insert(command);
        } else {
            out.extend(subcommands.iter().map(|sub| format!("{command} {sub}")));
        }
    }
    out
}

/// The long flags of one command, as its help lists them.
fn binary_flags(command: &str) -> BTreeSet<String> {
    section(&help(command), "Options:")
        .iter()
        .filter(|l| l.trim_start().starts_with('-'))
        .filter_map(|l| flags_in(l.split("  ").find(|p| p.contains("--"))?).pop_first())
        .collect()
}

#[test]
fn readme_usage_names_every_command_and_flag_and_nothing_else() {
    let usage = readme_usage();
    let mut expected: BTreeSet<String> = commands();
    expected.insert(String::new());
    assert_eq!(
        usage.keys().cloned().collect::<BTreeSet<_>>(),
        expected,
        "README's commands"
    );
    for (command, named) in &usage {
        let mut flags = binary_flags(command);
        flags.retain(|f| !GLOBAL.contains(&f.as_str()));
        assert!(!flags.is_empty() || command == "config", "{command}");
        let named: BTreeSet<String> = named
            .iter()
            .filter(|f| !GLOBAL.contains(&f.as_str()))
            .cloned()
            .collect();
        let missing: Vec<_> = flags.difference(&named).collect();
        let unknown: Vec<_> = named.difference(&flags).collect();
        assert!(
            missing.is_empty() && unknown.is_empty(),
            "`doppel {command}`: README lacks {missing:?}, names {unknown:?} the binary lacks"
        );
    }
    // The global flag, stated once.
    assert!(readme().contains("Every command takes `--config PATH`"));
}

#[test]
fn readme_lists_exactly_the_watch_events_the_binary_emits() {
    let text = readme();
    let start = text
        .find("`doppel watch` prints one JSON object per line, its `event` one of:")
        .expect("the watch events paragraph");
    let paragraph = text[start..].split("\n\n").next().unwrap();
    let list = paragraph.split("one of:").nth(1).unwrap();
    // The backticked names (every other piece between backticks).
    let named: BTreeSet<&str> = list.split('`').skip(1).step_by(2).collect();
    let emitted: BTreeSet<&str> = jsonl_event::ALL.into_iter().collect();
    assert_eq!(named, emitted);
    // ... and `watch --help` lists them too.
    let help = help("watch");
    for event in jsonl_event::ALL {
        assert!(help.contains(event), "{event}: {help}");
    }
}

#[test]
fn every_positional_has_help() {
    for command in commands().iter().map(String::as_str).chain([""]) {
        for line in section(&help(command), "Arguments:") {
            let words: Vec<&str> = line.split_whitespace().collect();
            assert!(words.len() >= 2, "`doppel {command}`: {line:?} has no help");
        }
    }
}

#[test]
fn help_defaults_are_the_compiled_ones() {
    let quiet = doppel_index::watch::DEFAULT_QUIET.as_millis();
    assert_eq!(u128::from(WatchSettings::default().quiet_ms), quiet);
    let watch = help("watch");
    assert!(watch.contains(&format!("[default: {quiet}]")), "{watch}");
    let scan = help("scan");
    let by = doppel_index::config::cluster_by_name(ClusterSettings::default().by);
    assert!(scan.contains(&format!("[default: {by}]")), "{scan}");
    let mode = doppel_index::config::mode_name(ClusterSettings::default().mode);
    assert!(scan.contains(&format!("[default: {mode}]")), "{scan}");
    // The names are the file's.
    for mode in [ClusterMode::Components, ClusterMode::Star] {
        assert_eq!(
            serde_json::to_value(mode).unwrap(),
            doppel_index::config::mode_name(mode)
        );
    }
}

#[test]
fn the_algorithms_table_gives_the_compiled_default_thresholds_and_ranges() {
    let text = readme();
    let defaults = Thresholds::default();
    let algorithms = AlgorithmsConfig::default();
    let mut seen = BTreeSet::new();
    for line in text.lines().filter(|l| l.starts_with("| `")) {
        // Cells split on `|` that is not escaped as `\|`.
        let unescaped = line.replace("\\|", "\u{0}");
        let cells: Vec<&str> = unescaped.split('|').map(str::trim).collect();
        let Ok(id) = cells[1].trim_matches('`').parse::<AlgorithmId>() else {
            continue;
        };
        if cells.len() < 8 {
            continue; // another table
        }
        let number = |cell: &str| -> f64 {
            cell.trim_start_matches(['≥', '≤', ' '])
                .parse()
                .unwrap_or_else(|_| panic!("{id}: {cell:?}"))
        };
        assert_eq!(number(cells[5]), defaults.get(id), "{id}'s default");
        let range = threshold_range(id, &algorithms);
        let written = cells[6];
        if range.whole {
            // "whole, 0–`bits` (64)"
            let max = written.rsplit('(').next().unwrap().trim_end_matches(')');
            assert!(written.starts_with("whole, 0–"), "{id}: {written}");
            assert_eq!(number(max), range.max, "{id}'s range");
        } else {
            assert_eq!(written, format!("0–{}", range.max), "{id}'s range");
        }
        seen.insert(id);
    }
    assert_eq!(seen.len(), AlgorithmId::ALL.len(), "{seen:?}");
}
