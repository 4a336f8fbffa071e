//! `doppel act`, `doppel undo` and `doppel manifest`: the curator's
//! decisions, read from the folder's index ([`doppel_index::act`]),
//! shown as a plan and carried out only on `--yes` or a "y" at the
//! prompt; put back from the journal; or written as a manifest.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use indicatif::HumanBytes;

use doppel_core::doc::DocPath;
use doppel_core::engine::Engine;
use doppel_index::act;
use doppel_index::act::{Decisions, Filter, MarkState, Plan};
use doppel_index::config::Config;
use doppel_pairing::cluster::ClusterSpec;
use doppel_store::{SqliteStore, StoreAddress};

use super::args::{DecisionOptions, FilterOptions, ManifestFormat};
use super::settings::{index_address, open_folder, settings, with_options};

/// Whether `doppel act` may move files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confirm {
    /// `--dry-run`: print the plan only.
    DryRun,
    /// `--yes`: move without asking.
    Yes,
    /// Ask on the terminal; refuse when there is none.
    Ask,
}

/// The folder's decisions under the config and flags, from its index.
fn decisions(config: Config, root: &Path, options: &DecisionOptions) -> Result<Decisions> {
    let scan_options = options.scan_options();
    let config = with_options(config, &scan_options)?;
    let (engine_config, library_config, by, mode) = settings(&config);
    let engine = Engine::new(engine_config);
    let spec = ClusterSpec {
        by,
        mode,
        ..ClusterSpec::from_engine(&engine)
    };
    let index = index_address(
        &config,
        options.index.as_ref(),
        options.store.as_deref(),
        root,
    )?;
    ensure_indexed(root, index.as_ref(), options.index.as_deref())?;
    Ok(act::open_decisions(
        root,
        engine,
        library_config,
        spec,
        index.as_ref(),
        &config.curator(),
    )?)
}

/// Refuse a folder whose index file does not exist (at `index`, else the
/// default file): opening it would make an empty one, and there would be
/// no decision to act on or write. (A team database is not looked at
/// first.)
fn ensure_indexed(root: &Path, index: Option<&StoreAddress>, flag: Option<&Path>) -> Result<()> {
    let file = match index {
        None => SqliteStore::default_path(root)?,
        Some(address) => match address {
            StoreAddress::File(path) => path.clone(),
            #[allow(unreachable_patterns)] // a database only with `postgres`
            _ => return Ok(()),
        },
    };
    if file.exists() {
        return Ok(());
    }
    let dir = root.display();
    match flag {
        Some(at) => anyhow::bail!(
            "no index for {dir} at {}: run `doppel scan {dir} --index {}` first",
            at.display(),
            at.display()
        ),
        None => anyhow::bail!("no index for {dir}: run `doppel scan {dir}` first"),
    }
}

fn filter(options: &FilterOptions) -> Filter {
    Filter {
        clusters: options.clusters.clone(),
        under: options.under.as_deref().map(DocPath::from_relative),
    }
}

/// `doppel act DIR --to QUARANTINE`.
pub fn act_command(
    config: Config,
    dir: &Path,
    to: Option<&Path>,
    confirm: Confirm,
    filter_options: &FilterOptions,
    options: &DecisionOptions,
) -> Result<()> {
    let root = open_folder(dir)?;
    let quarantine = match to.map(Path::to_path_buf).or(config.quarantine_dir.clone()) {
        Some(q) => q,
        None => anyhow::bail!(
            "where to? give --to QUARANTINE (or set quarantine-dir in the config file)"
        ),
    };
    // Refused before anything is read.
    let quarantine = act::quarantine_target(&quarantine, &root)?;
    let decisions = decisions(config, &root, options)?;
    let plan = act::plan(&decisions, &root, &filter(filter_options));
    let mut out = std::io::stdout().lock();
    out.write_all(plan_text(&plan, &quarantine).as_bytes())?;
    out.flush()?;
    if confirm == Confirm::DryRun || plan.summary.files == 0 {
        return Ok(());
    }
    if confirm == Confirm::Ask && !ask(&plan, &quarantine)? {
        anyhow::bail!("nothing moved");
    }
    let records = act::ActRecords::user();
    let outcome = act::quarantine(&plan, &root, &quarantine, records.as_ref())?;
    let bytes: u64 = outcome.moved.iter().map(|m| m.size).sum();
    // Without doppel's record of the act, undo needs the folder named.
    let folder = match records {
        Some(_) => String::new(),
        None => format!(" --folder {}", root.display()),
    };
    writeln!(
        out,
        "moved {} ({}) to {}\njournal: {}\nput them back with: doppel undo {}{folder}",
        files(outcome.moved.len()),
        HumanBytes(bytes),
        quarantine.display(),
        outcome.journal.display(),
        outcome.journal.display()
    )?;
    let problems = outcome.problems.join("\ndoppel: ");
    anyhow::ensure!(outcome.problems.is_empty(), "{problems}");
    Ok(())
}

/// Ask on the terminal whether to move the plan's files; without one,
/// refuse and say how to confirm.
fn ask(plan: &Plan, quarantine: &Path) -> Result<bool> {
    if !std::io::stdin().is_terminal() {
        anyhow::bail!(
            "nothing moved: give --yes to move these files (or --dry-run to only see the plan)"
        );
    }
    eprint!(
        "move {} ({}) to {}? [y/N] ",
        files(plan.summary.files),
        HumanBytes(plan.summary.bytes),
        quarantine.display()
    );
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes"))
}

fn files(n: usize) -> String {
    format!("{n} file{}", if n == 1 { "" } else { "s" })
}

/// The plan for people: per cluster the kept file and the marked ones
/// (with why a file stays), then the totals.
fn plan_text(plan: &Plan, quarantine: &Path) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    if plan.clusters.is_empty() {
        out.push_str("no clusters to act on (review or scan the folder first)\n");
        return out;
    }
    for cluster in &plan.clusters {
        let kept: Vec<String> = cluster.kept.iter().map(ToString::to_string).collect();
        let _ = writeln!(out, "cluster {}: keep {}", cluster.id, kept.join(", "));
        for m in &cluster.marked {
            let _ = match &m.state {
                MarkState::Ready => {
                    writeln!(out, "  move {} ({})", m.path, HumanBytes(m.size))
                }
                MarkState::Changed(why) => {
                    writeln!(out, "  stay {}: changed since it was read ({why})", m.path)
                }
                MarkState::Missing => writeln!(out, "  stay {}: no longer there", m.path),
            };
        }
        for (path, why) in &cluster.stays {
            let _ = writeln!(out, "  stay {path}: {why}");
        }
    }
    let s = plan.summary;
    let _ = writeln!(
        out,
        "{} ({}) of {} cluster{} to move to {}",
        files(s.files),
        HumanBytes(s.bytes),
        s.clusters,
        if s.clusters == 1 { "" } else { "s" },
        quarantine.display()
    );
    if s.held_back > 0 {
        let _ = writeln!(
            out,
            "{} left in place: changed or gone since it was read",
            files(s.held_back)
        );
    }
    out
}

/// `doppel undo JOURNAL` or `doppel undo --to QUARANTINE`, into the
/// folder `--folder` names, else the one doppel recorded for each journal.
/// Everything that can go back does; each refusal or file left is named,
/// and then the command fails (exit status 1).
pub fn undo_command(
    journal: Option<&Path>,
    quarantine: Option<&Path>,
    folder: Option<&Path>,
) -> Result<()> {
    let records = act::ActRecords::user();
    let into = match folder {
        Some(folder) => act::UndoInto::Folder(folder),
        None => act::UndoInto::Recorded(records.as_ref()),
    };
    let reports = match (journal, quarantine) {
        (Some(journal), _) => vec![act::undo(journal, into)?],
        (None, Some(q)) => act::undo_all(q, into)?,
        (None, None) => unreachable!("clap requires one"),
    };
    let mut out = std::io::stdout().lock();
    if reports.is_empty() {
        writeln!(out, "nothing to undo")?;
    }
    let mut problems = Vec::new();
    for r in &reports {
        writeln!(
            out,
            "put back {}{} from {}",
            files(r.restored.len()),
            if r.already_back > 0 {
                format!(" ({} already back)", r.already_back)
            } else {
                String::new()
            },
            r.journal.display()
        )?;
        if !r.partials_removed.is_empty() {
            writeln!(
                out,
                "removed {} partial cop{} a move cut short left in the quarantine",
                r.partials_removed.len(),
                if r.partials_removed.len() == 1 {
                    "y"
                } else {
                    "ies"
                }
            )?;
        }
        problems.extend(r.problems.iter().cloned());
    }
    let text = problems.join("\ndoppel: ");
    anyhow::ensure!(problems.is_empty(), "{text}");
    Ok(())
}

/// `doppel manifest DIR`.
pub fn manifest_command(
    config: Config,
    dir: &Path,
    format: ManifestFormat,
    output: Option<&PathBuf>,
    filter_options: &FilterOptions,
    options: &DecisionOptions,
) -> Result<()> {
    let root = open_folder(dir)?;
    // Refused before anything is read.
    let target = output
        .map(|o| doppel_report::html::target(o, &root))
        .transpose()?;
    let decisions = decisions(config, &root, options)?;
    let rows = act::manifest_rows(&decisions.report, &filter(filter_options));
    let text = match format {
        ManifestFormat::Csv => act::manifest_csv(&rows)?,
        ManifestFormat::Json => act::manifest_json(&rows)?,
    };
    match target {
        Some(path) => std::fs::write(&path, text)
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => std::io::stdout().lock().write_all(text.as_bytes())?,
    }
    Ok(())
}
