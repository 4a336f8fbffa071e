//! `doppel index list` and `doppel index forget`: the index files in the
//! index folder (the config's `index-dir`, else the platform data folder),
//! written for people (sizes and ages in words) or as JSON.

use std::io::Write;
use std::path::Path;
use std::time::SystemTime;

use anyhow::Result;
use indicatif::{HumanBytes, HumanDuration};

use doppel_index::config::Config;
use doppel_index::index_files;
use doppel_index::index_files::{ForgetReport, ForgetRequest, IndexFile, Selection};

use super::args::{IndexCommand, ListFormat};

/// `doppel index list` and `doppel index forget`.
pub fn index_command(config: &Config, command: IndexCommand) -> Result<()> {
    let dir = match &config.index_dir {
        Some(dir) => dir.clone(),
        None => doppel_store::SqliteStore::default_dir()?,
    };
    // A shared database's collections belong to the team: they are not
    // this machine's files to size or forget. Said once, then the files.
    if let Some(store) = &config.store {
        eprintln!(
            "doppel: the config file's store ({}) is shared by a team; `doppel index` lists \
             and forgets only index files, here those in {}",
            doppel_store::redacted(store),
            dir.display()
        );
    }
    let now = std::time::SystemTime::now();
    let mut out = std::io::stdout().lock();
    match command {
        IndexCommand::List { format } => {
            let indexes = index_files::list(&dir)?;
            let text = match format {
                ListFormat::Text => list_text(&dir, &indexes, now),
                ListFormat::Json => index_files::list_json(&dir, &indexes)?,
            };
            out.write_all(text.as_bytes())?;
        }
        IndexCommand::Forget {
            dirs,
            older_than,
            missing,
            files,
            dry_run,
        } => {
            let selection = Selection {
                folders: dirs,
                older_than,
                missing,
            };
            let request = ForgetRequest {
                selection,
                files,
                dry_run,
            };
            let report = index_files::forget_all(&dir, &request, now)?;
            out.write_all(forget_text(&report).as_bytes())?;
            // Each on a line of its own, after what was done.
            let problems = report.problems.join("\ndoppel: ");
            anyhow::ensure!(report.problems.is_empty(), "{problems}");
        }
    }
    Ok(())
}

/// `when` for people: the UTC time to the second and how long ago.
fn when_text(when: Option<SystemTime>, now: SystemTime) -> String {
    match when {
        Some(t) => {
            let ago = now.duration_since(t).unwrap_or_default();
            format!(
                "{} ({} ago)",
                humantime::format_rfc3339_seconds(t),
                HumanDuration(ago)
            )
        }
        None => "-".to_string(),
    }
}

/// `doppel index list` as text: one line per index, then the total.
fn list_text(dir: &Path, indexes: &[IndexFile], now: SystemTime) -> String {
    use std::fmt::Write;
    let mut out = format!("indexes in {}\n", dir.display());
    if indexes.is_empty() {
        out.push_str("none\n");
        return out;
    }
    let rows: Vec<[String; 4]> = indexes
        .iter()
        .map(|i| {
            let mut folder = i.folder_text();
            if i.in_use {
                folder.push_str(" [in use]");
            }
            if let Some(problem) = &i.problem {
                let _ = write!(folder, " [{problem}]");
            }
            [
                HumanBytes(i.bytes).to_string(),
                i.documents.map_or("-".to_string(), |d| d.to_string()),
                when_text(i.last_used, now),
                folder,
            ]
        })
        .collect();
    let header = ["SIZE", "DOCS", "LAST USED", "FOLDER"].map(String::from);
    let width = |c: usize| {
        rows.iter()
            .chain([&header])
            .map(|r| r[c].chars().count())
            .max()
            .unwrap_or(0)
    };
    let (w0, w1, w2) = (width(0), width(1), width(2));
    for [size, docs, when, folder] in [&header].into_iter().chain(&rows) {
        let _ = writeln!(out, "{size:>w0$}  {docs:>w1$}  {when:<w2$}  {folder}");
    }
    let total: u64 = indexes.iter().map(|i| i.bytes).sum();
    let _ = writeln!(
        out,
        "{} index{}, {} in all",
        indexes.len(),
        if indexes.len() == 1 { "" } else { "es" },
        HumanBytes(total)
    );
    out
}

/// What `doppel index forget` did: a line per index removed, then the
/// total freed.
fn forget_text(report: &ForgetReport) -> String {
    let verb = if report.dry_run {
        "would remove"
    } else {
        "removed"
    };
    let mut out: String = report
        .removed
        .iter()
        .map(|r| {
            format!(
                "{verb} {}: {} ({})\n",
                r.what,
                r.file.display(),
                HumanBytes(r.bytes)
            )
        })
        .collect();
    let n = report.removed.len();
    out.push_str(&format!(
        "{} {} ({n} index{})\n",
        if report.dry_run {
            "would free"
        } else {
            "freed"
        },
        HumanBytes(report.freed),
        if n == 1 { "" } else { "es" }
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;
    use std::time::Duration;

    fn index(folder: &str, bytes: u64, documents: u64) -> IndexFile {
        IndexFile {
            file: PathBuf::from(format!("/data/{folder}.sqlite")),
            folder: Some(PathBuf::from(format!("/books/{folder}"))),
            bytes,
            last_used: Some(SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000)),
            documents: Some(documents),
            in_use: false,
            problem: None,
            moved_aside: None,
        }
    }

    /// Sizes of any width ("1020.00 KiB" is the widest `HumanBytes` gives)
    /// keep every column under its heading (issue 46).
    #[test]
    fn the_list_keeps_its_columns_whatever_the_sizes() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_060);
        let text = list_text(
            Path::new("/data"),
            &[
                index("small", 56 * 1024, 1),
                index("middling", 1020 * 1024, 33),
                index("large", 7_700_480, 1_016),
            ],
            now,
        );
        let lines: Vec<&str> = text.lines().skip(1).take(4).collect();
        let docs_end = lines[0].find("DOCS").unwrap() + "DOCS".len();
        let folder_at = lines[0].find("FOLDER").unwrap();
        for line in &lines[1..] {
            // Right-aligned counts end under DOCS; folders start under FOLDER.
            assert!(line.as_bytes()[docs_end - 1].is_ascii_digit(), "{text}");
            assert_eq!(&line[folder_at..folder_at + 7], "/books/", "{text}");
        }
        assert!(text.contains("1020.00 KiB"), "{text}");
    }
}
