//! The real binary in a real terminal (tmux), on a copy of `sample-corpus/`:
//! clusters appear, a diff opens, a stricter threshold splits clusters, a
//! copy dropped into the folder shows up, `q` quits and the terminal is back
//! to normal (main screen, canonical mode, echo). Then the other exit paths:
//! SIGTERM, a hang-up (the tmux session killed), and — in debug builds — a
//! panic on the UI thread.
//!
//! Skipped (with a note) when tmux is not installed, or when `doppel DIR`
//! does not open the TUI (it prints the report and exits) — unless
//! `DOPPEL_E2E_REQUIRED` is set, which turns that skip into a failure.
//! `DOPPEL_TUI_BIN` may name another binary taking `DIR --index PATH`.

#![cfg(all(feature = "tui", unix))]

mod common;

use common::copy_dir;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// A private tmux server (its own socket), killed when dropped.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn start(tag: &str) -> Option<Self> {
        let ok = Command::new("tmux")
            .arg("-V")
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false);
        if !ok {
            eprintln!("skipped: tmux is not installed");
            return None;
        }
        Some(Self {
            socket: format!("doppel-e2e-{tag}-{}", std::process::id()),
        })
    }

    fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("run tmux");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Start `command` in a detached 120×40 session.
    fn session(&self, name: &str, command: &str) {
        self.run(&[
            "new-session",
            "-d",
            "-x",
            "120",
            "-y",
            "40",
            "-s",
            name,
            command,
        ]);
    }

    fn screen(&self, name: &str) -> String {
        self.run(&["capture-pane", "-p", "-t", name])
    }

    fn keys(&self, name: &str, keys: &[&str]) {
        for k in keys {
            self.run(&["send-keys", "-t", name, k]);
            std::thread::sleep(Duration::from_millis(40));
        }
    }

    /// Poll the screen until `pred` holds (bounded: 30 s).
    fn wait(&self, name: &str, what: &str, pred: impl Fn(&str) -> bool) -> String {
        // A guard against a hang, not a timing test: a loaded 2-core CI
        // machine can take well over 30 s to start a debug build's TUI.
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let s = self.screen(name);
            if pred(&s) {
                return s;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}; screen:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn display(&self, name: &str, format: &str) -> String {
        self.run(&["display", "-p", "-t", name, format])
            .trim()
            .to_owned()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .arg("kill-server")
            .output();
    }
}

struct Folder {
    _dir: tempfile::TempDir,
    books: PathBuf,
    index: PathBuf,
}

fn folder() -> Folder {
    let dir = tempfile::tempdir().unwrap();
    let books = dir.path().join("books");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-corpus"),
        &books,
    );
    let index = dir.path().join("state").join("index.sqlite");
    Folder {
        _dir: dir,
        books,
        index,
    }
}

fn binary() -> String {
    std::env::var("DOPPEL_TUI_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_doppel").to_owned())
}

fn quote(p: &Path) -> String {
    format!("'{}'", p.display().to_string().replace('\'', r"'\''"))
}

/// The shell command: doppel, then a marker with its exit code and the
/// terminal's modes, then a pause so the pane can be read.
fn command(f: &Folder, env: &str) -> String {
    format!(
        "{env} {} {} --index {}; echo DOPPEL-EXITED $?; stty -a; sleep 60",
        binary(),
        quote(&f.books),
        quote(&f.index)
    )
}

const TABS: &str = "1 Clusters";

/// Wait until the TUI is up, or `None` when this binary does not open it.
fn started(t: &Tmux, name: &str) -> Option<String> {
    let s = t.wait(name, "the TUI or the plain report", |s| {
        s.contains(TABS) && s.contains("watching") || s.contains("DOPPEL-EXITED")
    });
    if s.contains(TABS) {
        Some(s)
    } else {
        assert!(
            std::env::var_os("DOPPEL_E2E_REQUIRED").is_none(),
            "`doppel DIR --index PATH` did not open the TUI:\n{s}"
        );
        eprintln!("skipped: `doppel DIR --index PATH` does not open the TUI yet:\n{s}");
        None
    }
}

/// The "N clusters" count of the status bar.
fn clusters(screen: &str) -> usize {
    let line = screen
        .lines()
        .rev()
        .find(|l| l.contains(" clusters"))
        .unwrap_or("");
    let before = &line[..line.find(" clusters").unwrap_or(0)];
    before
        .rsplit(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no cluster count in:\n{screen}"))
}

/// The terminal is back: main screen, canonical mode and echo on.
fn assert_restored(t: &Tmux, name: &str) {
    let s = t.wait(name, "the exit marker and stty", |s| {
        s.contains("DOPPEL-EXITED") && s.contains("icanon")
    });
    assert_eq!(t.display(name, "#{alternate_on}"), "0", "{s}");
    assert!(
        s.split_whitespace().any(|w| w == "icanon") && s.split_whitespace().any(|w| w == "echo"),
        "terminal left in raw mode:\n{s}"
    );
}

#[test]
fn review_session_under_tmux() {
    let Some(t) = Tmux::start("review") else {
        return;
    };
    let f = folder();
    t.session("main", &command(&f, ""));
    if started(&t, "main").is_none() {
        return;
    }
    let s = t.wait("main", "the clusters", |s| {
        s.contains("moby/moby-dick-ch1.txt") && s.contains("● watching")
    });
    let initial = clusters(&s);
    assert!(initial >= 5, "{s}");

    // Open the diff of the Emma pair.
    t.keys("main", &["/", "e", "m", "m", "a", "Enter", "d"]);
    t.wait("main", "the diff", |s| {
        s.contains("% of words equal") && s.contains("edited/emma-ch1-edited.txt")
    });
    t.keys("main", &["n"]);
    t.wait("main", "a jump to a change", |s| s.contains("at change 1"));

    // Cluster by minhash and make it as strict as it goes: clusters split.
    t.keys("main", &["Escape", "Escape", "4", "c", "c", "c"]);
    let s = t.wait("main", "cluster by minhash", |s| {
        s.contains("cluster by minhash") && !s.contains("re-clustering")
    });
    let by_minhash = clusters(&s);
    t.keys(
        "main",
        &["j", "j", "L", "L", "L", "L", "L", "L", "L", "L", "L", "L"],
    );
    let s = t.wait("main", "a cluster split", |s| {
        s.contains("≥ 1.00") && !s.contains("re-clustering") && clusters(s) < by_minhash
    });
    assert!(clusters(&s) < by_minhash);

    // Back to the defaults, then drop a copy into the folder.
    t.keys("main", &["0", "C", "C", "C", "1"]);
    t.wait("main", "the default clusters", |s| {
        s.contains("Clusters") && !s.contains("re-clustering") && clusters(s) == initial
    });
    fs::copy(
        f.books.join("sotu/1790-washington.txt"),
        f.books.join("washington copy.txt"),
    )
    .unwrap();
    t.wait("main", "the new copy's cluster", |s| {
        clusters(s) == initial + 1 && s.contains("1790-washington.txt")
    });

    t.keys("main", &["q"]);
    assert_restored(&t, "main");
    assert!(t.screen("main").contains("DOPPEL-EXITED 0"));
}

#[test]
fn sigterm_hangup_and_panic_restore_the_terminal() {
    let Some(t) = Tmux::start("signals") else {
        return;
    };
    let f = folder();
    // SIGTERM: a graceful quit.
    t.session("term", &command(&f, ""));
    if started(&t, "term").is_none() {
        return;
    }
    let shell = t.display("term", "#{pane_pid}");
    let out = Command::new("pgrep").args(["-P", &shell]).output().unwrap();
    let pid = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    assert!(!pid.is_empty(), "no doppel process under the pane's shell");
    Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert_restored(&t, "term");

    // Hang-up: the terminal goes away; doppel must not linger.
    t.session("hup", &command(&f, ""));
    t.wait("hup", "the TUI", |s| s.contains(TABS));
    let shell = t.display("hup", "#{pane_pid}");
    let out = Command::new("pgrep").args(["-P", &shell]).output().unwrap();
    let pid = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    t.run(&["kill-session", "-t", "hup"]);
    let deadline = Instant::now() + Duration::from_secs(30);
    while Path::new(&format!("/proc/{pid}")).exists() {
        assert!(Instant::now() < deadline, "doppel outlived its terminal");
        std::thread::sleep(Duration::from_millis(100));
    }

    // A panic on the UI thread (debug builds have a key for it).
    if cfg!(debug_assertions) {
        t.session(
            "panic",
            &command(
                &f,
                &format!("RUST_BACKTRACE=0 {}=1", "DOPPEL_DEBUG_PANIC_KEY"),
            ),
        );
        t.wait("panic", "the TUI", |s| s.contains(TABS));
        t.keys("panic", &["!"]);
        let s = t.wait("panic", "the panic report", |s| s.contains("DOPPEL-EXITED"));
        assert!(s.contains("panicked"), "{s}");
        assert_restored(&t, "panic");
    }
}

/// A book of about 1.2 MB: Moby-Dick, from the tests' books in the
/// repository.
fn big_book() -> String {
    fs::read_to_string(common::test_corpus().join("moby/moby_dick.txt")).unwrap()
}

/// A page scan of `book`: OCR confusions on 3 % of the words, lines
/// re-wrapped at 64 columns, a running head every 40 lines, CRLF.
fn scan_of(book: &str) -> String {
    let mut rng = doppel_core::hash::SplitMix64::new(15);
    let misread = doppel_eval::library::ocr_confusions(book, 0.03, &mut rng);
    let mut out = String::new();
    let mut line = String::new();
    let mut lines = 0;
    for w in misread.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + w.len() > 64 {
            if lines % 40 == 0 {
                out.push_str(&format!("THE BOOK  {}\r\n\r\n", lines / 40 + 1));
            }
            out.push_str(&line);
            out.push_str("\r\n");
            line.clear();
            lines += 1;
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(w);
    }
    out.push_str(&line);
    out.push_str("\r\n");
    out
}

/// Issue 15's bar: two 1.2 MB books, a text and a scan of it. While their
/// word diff is computed (on the worker's helper thread) the keyboard is
/// answered — the help opens and closes — and once the diff shows, a jump,
/// folding, the line view, a search and paging to the very end are each
/// answered in turn.
#[test]
fn a_big_diff_keeps_input_responsive() {
    let Some(t) = Tmux::start("bigdiff") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let books = dir.path().join("books");
    fs::create_dir_all(&books).unwrap();
    let book = big_book();
    let scan = scan_of(&book);
    fs::write(books.join("book.txt"), &book).unwrap();
    fs::write(books.join("scan.txt"), &scan).unwrap();
    let f = Folder {
        books,
        index: dir.path().join("state").join("index.sqlite"),
        _dir: dir,
    };
    t.session("big", &command(&f, ""));
    if started(&t, "big").is_none() {
        return;
    }
    t.wait("big", "the pair's cluster", |s| {
        s.contains("book.txt") && s.contains("scan.txt") && s.contains("● watching")
    });
    t.keys("big", &["d", "?"]);
    let s = t.wait("big", "the help over the diff screen", |s| {
        s.contains("this help") && s.contains("3 Diff")
    });
    eprintln!(
        "help shown while the diff was {}",
        if s.contains("computing the diff") {
            "still computing"
        } else {
            "already there"
        }
    );
    t.keys("big", &["Escape"]);
    t.wait("big", "the diff", |s| {
        s.contains("of words equal") && !s.contains("this help")
    });
    t.keys("big", &["n"]);
    t.wait("big", "a jump", |s| s.contains("at change 1"));
    t.keys("big", &["f"]);
    t.wait("big", "the fold", |s| s.contains("folded"));
    t.keys("big", &["f", "w"]);
    t.wait("big", "the line view", |s| {
        s.contains("line view") && !s.contains("folded")
    });
    let needle: String = book
        .split_whitespace()
        .skip(5000)
        .take(2)
        .collect::<Vec<_>>()
        .join(" ");
    let mut keys = vec!["/"];
    let typed: Vec<String> = needle.chars().map(|c| c.to_string()).collect();
    keys.extend(typed.iter().map(|s| match s.as_str() {
        " " => "Space",
        c => c,
    }));
    keys.push("Enter");
    t.keys("big", &keys);
    t.wait("big", "the search", |s| s.contains("at match 1"));
    // The end of the book, paged to.
    let last = book.lines().rev().find(|l| l.trim().len() > 10).unwrap();
    let last: String = last.trim().chars().take(10).collect();
    t.keys("big", &["Escape", "G"]);
    t.wait("big", "the last page", |s| s.contains(&last));
    t.keys("big", &["q"]);
    assert_restored(&t, "big");
}

/// Ctrl+Z hands the terminal back to the shell (main screen, no mouse
/// capture) and stops doppel, as other full-screen programs do; `fg`
/// brings the screen back and the keys work again.
#[test]
fn ctrl_z_suspends_to_the_shell_and_fg_resumes() {
    let Some(t) = Tmux::start("suspend") else {
        return;
    };
    let f = folder();
    // An interactive shell, for job control.
    t.session("job", "env PS1='JOBS> ' bash --norc --noprofile -i");
    t.wait("job", "the shell", |s| s.contains("JOBS>"));
    let run = format!(
        "{} {} --index {}",
        binary(),
        quote(&f.books),
        quote(&f.index)
    );
    t.run(&["send-keys", "-t", "job", &run, "Enter"]);
    let s = t.wait("job", "the TUI", |s| {
        s.contains(TABS) && s.contains("watching") || s.matches("JOBS>").count() > 1
    });
    if !s.contains(TABS) {
        assert!(
            std::env::var_os("DOPPEL_E2E_REQUIRED").is_none(),
            "no TUI:\n{s}"
        );
        eprintln!("skipped: `doppel DIR --index PATH` does not open the TUI:\n{s}");
        return;
    }
    assert_eq!(t.display("job", "#{alternate_on}"), "1");
    assert_eq!(t.display("job", "#{mouse_any_flag}"), "1");

    t.keys("job", &["C-z"]);
    let s = t.wait("job", "the shell after Ctrl+Z", |s| {
        s.contains("Stopped") && s.trim_end().ends_with("JOBS>")
    });
    assert_eq!(t.display("job", "#{alternate_on}"), "0", "{s}");
    assert_eq!(t.display("job", "#{mouse_any_flag}"), "0", "{s}");

    t.run(&["send-keys", "-t", "job", "fg", "Enter"]);
    t.wait("job", "the TUI again", |s| s.contains(TABS));
    assert_eq!(t.display("job", "#{alternate_on}"), "1");
    t.keys("job", &["4"]);
    t.wait("job", "the thresholds screen", |s| {
        s.contains("loose ◂ slider ▸ strict")
    });
    t.keys("job", &["q"]);
    t.run(&["send-keys", "-t", "job", "echo DOPPEL-EXITED $?", "Enter"]);
    // The echo's output, not the command: typed while doppel is still
    // ending, the command line shows before the shell runs it.
    let exited = |s: &str| {
        s.lines()
            .map(str::trim)
            .find(|l| l.starts_with("DOPPEL-EXITED"))
            .map(str::to_owned)
    };
    let s = t.wait("job", "the exit", |s| exited(s).is_some());
    assert_eq!(exited(&s).as_deref(), Some("DOPPEL-EXITED 0"), "{s}");
    assert_eq!(t.display("job", "#{alternate_on}"), "0");
}
