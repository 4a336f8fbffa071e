//! Progress on standard error, when it is a terminal: a bar of files
//! read for scans, a spinner for long steps without a count.

use std::io::IsTerminal;

/// A progress bar for `what` on stderr when stderr is a terminal, hidden
/// otherwise. Its position counts files.
pub fn progress_bar(what: &str) -> indicatif::ProgressBar {
    use indicatif::{ProgressBar, ProgressStyle};
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::no_length();
    let style = ProgressStyle::with_template(
        "{spinner} {msg:9} [{wide_bar}] {human_pos}/{human_len} files {elapsed}",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar())
    .progress_chars("=> ");
    bar.set_style(style);
    bar.set_message(what.to_owned());
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    bar
}

/// A spinner for a long step without a count, on stderr when it is a
/// terminal.
pub fn spinner(what: &str) -> indicatif::ProgressBar {
    use indicatif::ProgressBar;
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let spinner = ProgressBar::new_spinner();
    spinner.set_message(what.to_owned());
    spinner.enable_steady_tick(std::time::Duration::from_millis(120));
    spinner
}

/// Show a reconcile's or scan's reading progress on `bar`.
pub fn show_progress(bar: &indicatif::ProgressBar, p: doppel_index::index::ReadProgress) {
    bar.set_length(p.total as u64);
    // Reports from worker threads may arrive slightly out of order.
    if p.done as u64 > bar.position() {
        bar.set_position(p.done as u64);
    }
    bar.set_message(if p.done < p.total {
        "reading"
    } else {
        "comparing"
    });
}
