//! Thresholds tuned on screen are kept only when the curator says so
//! (issue 20): `S` on the thresholds screen writes them into the config
//! file, its panel says while they are unsaved and where `S` saves, and
//! `q` asks once before quitting without them.

#![cfg(feature = "tui")]

use std::path::PathBuf;

use doppel_core::engine::algo::AlgorithmId;
use doppel_core::engine::EngineConfig;
use doppel_index::config::Config;
use doppel_index::worker::Command;
use doppel_tui::action::Action;
use doppel_tui::state::{AppState, Level, Screen};
use doppel_tui::{keymap, render, update};
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;

fn state(config_file: PathBuf) -> AppState {
    let mut s = AppState::new("books", &EngineConfig::default());
    s.config_file = Some(config_file);
    update(&mut s, Action::Resize(80, 24));
    s
}

fn press(s: &mut AppState, c: char) -> Vec<Command> {
    let action = keymap::key(s, KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
        .unwrap_or_else(|| panic!("{c:?} does nothing"));
    update(s, action)
}

fn screen(s: &AppState) -> String {
    let mut t = Terminal::new(TestBackend::new(s.width, s.height)).unwrap();
    t.draw(|f| render(s, f)).unwrap();
    let b = t.backend().buffer();
    let rows: Vec<String> = (0..b.area.height)
        .map(|y| (0..b.area.width).map(|x| b[(x, y)].symbol()).collect())
        .collect();
    rows.join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Tuned and unsaved: the panel says so and where `S` saves; the first `q`
/// asks (on the message line), any other key forgets that, and `q` right
/// after `q` quits. Untuned, `q` quits at once.
#[test]
fn quitting_with_tuned_thresholds_unsaved_asks_first() {
    let mut s = state(PathBuf::from("/home/curator/.config/doppel/config.toml"));
    press(&mut s, '4');
    assert_eq!(s.screen, Screen::Thresholds);
    assert!(!screen(&s).contains("unsaved"));
    press(&mut s, 'j');
    press(&mut s, 'l');
    let shown = screen(&s);
    assert!(
        shown.contains("Thresholds · unsaved: S saves to /home/curator/.config/doppel/config.toml"),
        "{shown}"
    );

    assert!(press(&mut s, 'q').is_empty());
    assert!(!s.quit);
    let (level, notice) = s.notice.clone().expect("a question");
    assert_eq!(level, Level::Warn);
    assert!(
        notice.contains("not saved: q again quits without them"),
        "{notice}"
    );
    assert!(screen(&s).contains("saves them to /home/curator/.config/doppel/config.toml"));

    press(&mut s, 'j');
    press(&mut s, 'q');
    assert!(!s.quit, "a key between the two q's asks again");
    let sent = press(&mut s, 'q');
    assert!(s.quit);
    assert!(matches!(sent.as_slice(), [Command::Quit]));

    let mut untuned = state(PathBuf::from("/tmp/config.toml"));
    press(&mut untuned, '4');
    press(&mut untuned, 'q');
    assert!(untuned.quit);
}

/// Through the event loop: tune, `S`, `q` — the file keeps its comment,
/// loads with the tuned threshold, and `q` no longer asks.
#[test]
fn s_saves_the_thresholds_into_the_config_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, "# the curator's file\n[watch]\nquiet-ms = 700\n").unwrap();
    let mut s = state(path.clone());
    let before = s.thresholds.thresholds.get(AlgorithmId::Shingle);

    let keys = ['4', 'j', 'l', 'l', 'S', 'q'];
    let events = futures::stream::iter(keys.map(|c| {
        Ok(Event::Key(KeyEvent::new(
            KeyCode::Char(c),
            KeyModifiers::NONE,
        )))
    }));
    let (commands, _worker) = crossbeam_channel::unbounded::<Command>();
    let (actions_tx, mut actions) = tokio::sync::mpsc::unbounded_channel();
    let ctx = doppel_tui::run::ExportContext {
        cwd: dir.path().to_path_buf(),
        root: dir.path().to_path_buf(),
        engine: doppel_core::engine::EngineConfig::default(),
    };
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap()
        .block_on(doppel_tui::run::run_loop(
            &mut terminal,
            &mut s,
            events,
            &commands,
            &actions_tx,
            &mut actions,
            &ctx,
            &mut |_| Ok(()),
        ))
        .unwrap();
    assert!(s.quit, "q after S quits at once");
    let tuned = s.thresholds.thresholds.get(AlgorithmId::Shingle);
    assert!(tuned > before, "{tuned} vs {before}");

    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.starts_with("# the curator's file\n[watch]\nquiet-ms = 700\n"),
        "{text}"
    );
    let config = Config::load_file(&path).unwrap();
    assert_eq!(config.engine.thresholds.get(AlgorithmId::Shingle), tuned);
    assert_eq!(config.watch.quiet_ms, 700);
    assert!(s.log.iter().any(|l| l.text.contains("thresholds saved to")));
}

/// On a team store (issue 17): `S` also asks the worker to save the
/// thresholds for the team; the team's thresholds another curator saved
/// are shown at once, said with who and when, and the screen's thresholds
/// are unsaved against them from then on.
#[test]
fn the_teams_saved_thresholds_show_and_s_shares_the_screens() {
    use doppel_index::worker::Update;
    use doppel_store::SharedThresholds;
    use std::sync::Arc;

    let mut s = state(PathBuf::from("/home/curator/.config/doppel/config.toml"));
    press(&mut s, '4');
    press(&mut s, 'j');
    press(&mut s, 'l');
    let tuned = s.thresholds.thresholds.clone();
    let sent = press(&mut s, 'S');
    assert!(
        sent.iter()
            .any(|c| matches!(c, Command::ShareThresholds { thresholds } if *thresholds == tuned)),
        "{sent:?}"
    );

    let mut team = tuned.clone();
    team.set(AlgorithmId::Minhash, 0.97);
    let saved = SharedThresholds {
        curator: "alice".into(),
        // 2026-11-27 09:03:11 UTC.
        at_ns: 1_795_770_191_000_000_000,
        thresholds: team.clone(),
    };
    update(
        &mut s,
        Action::Worker(Update::TeamThresholds {
            saved: Arc::new(saved),
            by_you: false,
        }),
    );
    assert_eq!(s.thresholds.thresholds, team, "shown at once");
    assert_eq!(s.defaults, team, "unsaved against the team's");
    let (level, notice) = s.notice.clone().expect("said");
    assert_eq!(level, Level::Info);
    assert_eq!(
        notice,
        "the team's thresholds, saved by alice 2026-11-27 09:03, apply"
    );
    assert!(!screen(&s).contains("unsaved"));
}
