//! The watcher core driven by hand: synthetic events, the test's clock.

use super::*;
use notify::event::{DataChange, Flag};
use std::io::Write as _;
use std::sync::{Arc, Mutex};

/// A core on `root` (not started) whose events land in the returned list.
fn core(root: &Path) -> (Core, Arc<Mutex<Vec<WatchEvent>>>) {
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = {
        let events = events.clone();
        move |e| {
            events.lock().unwrap().push(e);
            true
        }
    };
    let (raw, _) = mpsc::channel();
    let mut config = WatchConfig::new(root);
    config.quiet = Duration::ZERO;
    let mut core = Core::new(config, Box::new(sink), raw);
    core.state = Some(WatchState::Watching);
    (core, events)
}

#[test]
fn the_rescan_flag_on_a_pathless_event_asks_for_one_rescan() {
    let dir = tempfile::tempdir().unwrap();
    let (mut core, _) = core(dir.path());
    for _ in 0..3 {
        core.on_event(Ok(
            notify::Event::new(EventKind::Other).set_flag(Flag::Rescan)
        ));
    }
    assert!(core.rescan);
    assert!(core.pending.is_empty());
}

#[test]
fn a_book_marker_made_or_removed_asks_for_a_rescan_of_the_whole_folder() {
    let dir = tempfile::tempdir().unwrap();
    let (mut core, _) = core(dir.path());
    let marker = dir.path().join("scans/b1234").join(BOOK_MARKER);
    core.on_event(Ok(
        notify::Event::new(EventKind::Create(CreateKind::File)).add_path(marker)
    ));
    assert!(core.rescan, "which folders are books may have changed");
    assert!(core.pending.is_empty());
}

#[test]
fn odd_events_and_errors_never_panic_and_reads_are_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let (mut core, events) = core(&root);
    core.on_event(Ok(notify::Event::new(EventKind::Any)));
    core.on_event(Ok(
        notify::Event::new(EventKind::Other).add_path("/elsewhere/x".into())
    ));
    core.on_event(Err(notify::Error::generic("boom")));
    core.on_event(Err(notify::Error::path_not_found()));
    core.on_event(Ok(notify::Event::new(EventKind::Access(AccessKind::Open(
        AccessMode::Any,
    )))
    .add_path(root.join("read.txt"))));
    assert!(core.pending.is_empty());
    core.on_event(Ok(notify::Event::new(EventKind::Create(CreateKind::File))
        .add_path(root.join("new.txt"))
        .add_path(root.join(".hidden"))
        .add_path(root.join("x.part"))));
    assert_eq!(
        core.pending.keys().collect::<Vec<_>>(),
        [&root.join("new.txt")]
    );
    // Gone by the time it is looked at: a removal.
    core.settle(Instant::now() + Duration::from_secs(1));
    let events = events.lock().unwrap();
    assert_eq!(events.len(), 2, "{events:?}");
    assert!(matches!(&events[0], WatchEvent::Error(m) if m.contains("boom")));
    assert_eq!(events[1], WatchEvent::Removed(root.join("new.txt")));
}

#[test]
fn a_file_is_reported_once_it_has_settled() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let (mut core, events) = core(&root);
    let path = root.join("book.txt");
    fs::write(&path, "first").unwrap();
    core.touch(path.clone());
    fs::write(&path, "first and more").unwrap();
    // Changed since the event: look again later.
    core.settle(Instant::now() + Duration::from_secs(1));
    assert!(events.lock().unwrap().is_empty());
    core.settle(Instant::now() + Duration::from_secs(2));
    assert_eq!(*events.lock().unwrap(), [WatchEvent::Changed(path)]);
}

/// A slow writer: twenty chunks 250 ms apart, each a write event, with
/// `close` after each (a writer that reopens the file) or only after
/// the last (one that keeps it open). The clock is the test's.
fn slow_writer(close_each: bool) -> Vec<WatchEvent> {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let (mut core, events) = core(&root);
    core.config.quiet = DEFAULT_QUIET;
    core.close_events = true;
    let path = root.join("slow.txt");
    let write = |path: &Path| {
        notify::Event::new(EventKind::Modify(ModifyKind::Data(DataChange::Any)))
            .add_path(path.to_path_buf())
    };
    let close = |path: &Path| {
        notify::Event::new(EventKind::Access(AccessKind::Close(AccessMode::Write)))
            .add_path(path.to_path_buf())
    };
    let start = Instant::now();
    let at = |ms: u64| start + Duration::from_millis(ms);
    let mut file = fs::File::create(&path).unwrap();
    for chunk in 0..20u64 {
        writeln!(file, "chunk {chunk} of a long book, written slowly").unwrap();
        file.flush().unwrap();
        core.on_event_at(Ok(write(&path)), at(chunk * 250));
        if close_each || chunk == 19 {
            core.on_event_at(Ok(close(&path)), at(chunk * 250 + 1));
        }
        // The watcher looks whenever something is due before the next chunk.
        for ms in (chunk * 250..chunk * 250 + 250).step_by(10) {
            core.settle(at(ms));
        }
    }
    drop(file);
    for s in 0..10 {
        core.settle(at(5000 + s * 1000));
    }
    let events = events.lock().unwrap().clone();
    events
}

#[test]
fn a_slow_writer_that_keeps_its_file_open_is_reported_once_it_is_done() {
    let events = slow_writer(false);
    assert_eq!(events.len(), 1, "no partial version: {events:?}");
    assert!(matches!(&events[0], WatchEvent::Changed(p) if p.ends_with("slow.txt")));
}

#[test]
fn a_file_that_keeps_changing_waits_longer_each_time() {
    // Each chunk is closed, and the first pause is longer than the
    // quiet period: the first version is reported, then the quiet
    // period doubles past the writer's pace, and only the last follows.
    let events = slow_writer(true);
    assert_eq!(events.len(), 2, "{events:?}");
}

/// inotify's watch limit hit while watching (a new folder could not be
/// watched): polling, naming the sysctl to raise, and a rescan for what
/// was missed.
#[test]
fn the_system_watch_limit_falls_back_to_polling_and_says_which_sysctl() {
    let dir = tempfile::tempdir().unwrap();
    let (mut core, events) = core(dir.path());
    core.state = None;
    core.set_up();
    assert_eq!(core.state, Some(WatchState::Watching));
    core.on_event(Err(notify::Error::new(notify::ErrorKind::MaxFilesWatch)));
    match &core.state {
        Some(WatchState::Polling { reason }) => {
            assert!(reason.contains("fs.inotify.max_user_watches"), "{reason}")
        }
        other => panic!("expected polling, got {other:?}"),
    }
    assert!(core.rescan);
    assert!(matches!(core.source, Some(Source::Poll(_))));
    assert_eq!(events.lock().unwrap().len(), 2, "watching, then polling");
    // Back once the root is set up again (here: it went and came back).
    core.state = Some(WatchState::Paused {
        reason: String::new(),
    });
    core.check_root();
    assert_eq!(core.state, Some(WatchState::Watching));
}

#[test]
fn a_native_watch_limit_counts_every_folder_and_stops_past_it() {
    let dir = tempfile::tempdir().unwrap();
    for sub in ["a", "a/b", "c"] {
        fs::create_dir(dir.path().join(sub)).unwrap();
    }
    fs::write(dir.path().join("a/file.txt"), "not a folder").unwrap();
    assert!(more_folders_than(dir.path(), 3));
    assert!(!more_folders_than(dir.path(), 4));
    assert!(more_folders_than(dir.path(), 0));
}

#[test]
fn quiet_periods_double_up_to_the_cap() {
    let mut quiet = DEFAULT_QUIET;
    let mut seen = vec![quiet.as_millis()];
    for _ in 0..6 {
        quiet = longer(quiet);
        seen.push(quiet.as_millis());
    }
    assert_eq!(seen, [200, 400, 800, 1600, 3200, 4000, 4000]);
    assert_eq!(longer(Duration::ZERO), Duration::from_millis(50));
}
