//! The curator's review actions: verdicts on a pair (`y`, `x`) or on a
//! whole cluster (`Y`, `X`), keeper marks (Space), the pair's anchor (`a`)
//! and their undo (`u`). Each changes the model at once (the lists show it
//! before the worker's next snapshot) and returns the commands that record
//! it; each undo entry holds the commands that reverse one key press.

use super::state::{pair_key, AppState, Focus, Level, UndoEntry};
use super::text::doc_path;
use crate::doc::CuratorVerdict;
use crate::runtime::worker::Command;

/// `a`: the selected member becomes the A of the pairs opened in its
/// cluster; on the anchor itself, the representative again.
pub fn anchor(state: &mut AppState) {
    let Some(m) = state
        .selected_member()
        .filter(|_| state.focus == Focus::Members)
    else {
        state.say("select a member first (Tab or → to the members)");
        return;
    };
    let path = m.path.clone();
    if state.anchor.as_ref() == Some(&path) {
        state.anchor = None;
        state.say("pairs open against the representative again");
    } else {
        state.say(format!(
            "◆ {}: Enter, p or d on another member opens the pair with it",
            doc_path(&path)
        ));
        state.anchor = Some(path);
    }
}

/// `y` / `x`: the verdict on the pair on screen (see
/// [`AppState::active_pair`]).
pub fn mark(state: &mut AppState, verdict: CuratorVerdict, out: &mut Vec<Command>) {
    let Some((a, b)) = state.active_pair() else {
        state.last_event = Some("no pair selected".into());
        return;
    };
    let prev = state.verdict(&a, &b);
    let word = match verdict {
        CuratorVerdict::Duplicate => "duplicate",
        CuratorVerdict::NotDuplicate => "not duplicate",
    };
    if prev == Some(verdict) {
        state.last_event = Some(format!("already marked {word}"));
        return;
    }
    out.push(Command::SetPairVerdict {
        a: a.clone(),
        b: b.clone(),
        verdict: Some(verdict),
    });
    state.undo.push(UndoEntry {
        commands: vec![Command::SetPairVerdict {
            a: a.clone(),
            b: b.clone(),
            verdict: prev,
        }],
        label: format!("{word}: {} ⇄ {}", doc_path(&a), doc_path(&b)),
    });
    state.verdicts.insert(pair_key(&a, &b), Some(verdict));
    state.notify(
        Level::Info,
        format!("marked {word}: {} ⇄ {}", doc_path(&a), doc_path(&b)),
    );
}

/// Space: the selected member (or the representative) is its cluster's
/// keeper, or no longer.
pub fn toggle_keep(state: &mut AppState, out: &mut Vec<Command>) {
    let Some(m) = state.active_document() else {
        state.last_event = Some("no document selected".into());
        return;
    };
    let path = m.path.clone();
    let kept = state.is_keeper(m);
    out.push(Command::SetKeeper {
        path: path.clone(),
        keeper: !kept,
    });
    state.undo.push(UndoEntry {
        commands: vec![Command::SetKeeper {
            path: path.clone(),
            keeper: kept,
        }],
        label: format!(
            "{}: {}",
            if kept { "unkeep" } else { "keep" },
            doc_path(&path)
        ),
    });
    state.keeper_overrides.insert(path.clone(), !kept);
    let word = if kept { "no longer kept" } else { "kept" };
    state.notify(Level::Info, format!("{word}: {}", doc_path(&path)));
}

/// `u`: reverse the last review key press, all of it.
pub fn undo(state: &mut AppState, out: &mut Vec<Command>) {
    let Some(entry) = state.undo.pop() else {
        state.last_event = Some("nothing to undo".into());
        return;
    };
    for command in &entry.commands {
        match command {
            Command::SetPairVerdict { a, b, verdict } => {
                state.verdicts.insert(pair_key(a, b), *verdict);
            }
            Command::SetKeeper { path, keeper } => {
                state.keeper_overrides.insert(path.clone(), *keeper);
            }
            _ => {}
        }
    }
    state.notify(Level::Info, format!("undone: {}", entry.label));
    out.extend(entry.commands);
}

/// `Y` / `X`: every member of the selected cluster judged against its
/// representative at once — the whole cluster accepted as duplicates, or
/// dismissed (the links cut, so it falls apart). One undo reverses it.
pub fn mark_cluster(state: &mut AppState, verdict: CuratorVerdict, out: &mut Vec<Command>) {
    let Some(c) = state.selected_cluster().cloned() else {
        state.say("no cluster selected");
        return;
    };
    let Some(rep) = c.members.first() else {
        return;
    };
    let (word, done) = match verdict {
        CuratorVerdict::Duplicate => ("duplicates of", "accepted"),
        CuratorVerdict::NotDuplicate => ("not duplicates of", "dismissed"),
    };
    let mut undo = Vec::new();
    for m in &c.members[1..] {
        let prev = state.member_verdict(&c, m);
        if prev == Some(verdict) {
            continue;
        }
        out.push(Command::SetPairVerdict {
            a: rep.path.clone(),
            b: m.path.clone(),
            verdict: Some(verdict),
        });
        undo.push(Command::SetPairVerdict {
            a: rep.path.clone(),
            b: m.path.clone(),
            verdict: prev,
        });
        state
            .verdicts
            .insert(pair_key(&rep.path, &m.path), Some(verdict));
    }
    let name = doc_path(&rep.path);
    if undo.is_empty() {
        state.say(format!("every member is already marked {word} {name}"));
        return;
    }
    let n = undo.len();
    let members = if n == 1 { "member" } else { "members" };
    state.undo.push(UndoEntry {
        commands: undo,
        label: format!("cluster of {name} {done}"),
    });
    state.notify(
        Level::Info,
        format!("cluster {done}: {n} {members} marked {word} {name}"),
    );
}
