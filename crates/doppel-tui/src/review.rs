//! The curator's review actions: verdicts on a pair (`y`, `x`) or on a
//! whole cluster (`Y`, `X`), keeper marks (Space), the pair's anchor (`a`)
//! and their undo (`u`). Each changes the model at once (the lists show it
//! before the worker's next snapshot) and returns the commands that record
//! it; each undo entry holds the commands that reverse one key press.

use super::state::{pair_key, AppState, Focus, Level, Screen, Split, UndoEntry};
use super::text::doc_path;
use doppel_core::doc::{CuratorVerdict, DocPath};
use doppel_index::worker::Command;

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
    let prev = state.my_verdict(&a, &b);
    let word = match verdict {
        CuratorVerdict::Duplicate => "duplicate",
        CuratorVerdict::NotDuplicate => "not duplicate",
    };
    // On a cluster row the pair is implicit: name it, and how to judge
    // another.
    let row = if state.screen == Screen::Clusters && state.focus == Focus::Clusters {
        " (the cluster row judges its representative and first member; \
         select a member for another pair, Y/X for all)"
    } else {
        ""
    };
    if prev == Some(verdict) {
        state.notify(
            Level::Info,
            format!(
                "already marked {word}: {} ⇄ {}{row}",
                doc_path(&a),
                doc_path(&b)
            ),
        );
        return;
    }
    send_verdict(state, &a, &b, Some(verdict), out);
    state.undo.push(UndoEntry {
        commands: vec![Command::SetPairVerdict {
            a: a.clone(),
            b: b.clone(),
            verdict: prev,
        }],
        label: format!("{word}: {} ⇄ {}", doc_path(&a), doc_path(&b)),
    });
    state.notify(
        Level::Info,
        format!("marked {word}: {} ⇄ {}{row}", doc_path(&a), doc_path(&b)),
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
    for command in entry.commands {
        match command {
            Command::SetPairVerdict { a, b, verdict } => {
                send_verdict(state, &a, &b, verdict, out);
            }
            Command::SetKeeper { path, keeper } => {
                state.keeper_overrides.insert(path.clone(), keeper);
                out.push(Command::SetKeeper { path, keeper });
            }
            other => out.push(other),
        }
    }
    state.notify(Level::Info, format!("undone: {}", entry.label));
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
        send_verdict(state, &rep.path, &m.path, Some(verdict), out);
        undo.push(Command::SetPairVerdict {
            a: rep.path.clone(),
            b: m.path.clone(),
            verdict: prev,
        });
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

/// Send a verdict (counted, to know when a snapshot holds it), shown at
/// once; a "not duplicate" is followed up by [`check_splits`].
fn send_verdict(
    state: &mut AppState,
    a: &DocPath,
    b: &DocPath,
    verdict: Option<CuratorVerdict>,
    out: &mut Vec<Command>,
) {
    state.verdicts_sent += 1;
    let key = pair_key(a, b);
    state.splits.retain(|s| pair_key(&s.a, &s.b) != key);
    if verdict == Some(CuratorVerdict::NotDuplicate) {
        state.splits.push(Split {
            a: a.clone(),
            b: b.clone(),
            sent: state.verdicts_sent,
        });
    }
    state.verdicts.insert(key, verdict);
    out.push(Command::SetPairVerdict {
        a: a.clone(),
        b: b.clone(),
        verdict,
    });
}

/// After a snapshot: each "not duplicate" it holds either parted the two
/// files, or another link keeps them in one cluster — the curator is told
/// which, once.
pub fn check_splits(state: &mut AppState) {
    let Some(snap) = state.snapshot.clone() else {
        return;
    };
    let (done, waiting): (Vec<Split>, Vec<Split>) = std::mem::take(&mut state.splits)
        .into_iter()
        .partition(|s| snap.verdicts_applied >= s.sent);
    state.splits = waiting;
    for s in done {
        let together = snap.clusters.iter().any(|c| {
            c.members.iter().any(|m| m.path == s.a) && c.members.iter().any(|m| m.path == s.b)
        });
        let (a, b) = (doc_path(&s.a), doc_path(&s.b));
        if together {
            state.notify(
                Level::Warn,
                format!(
                    "{b} stays in a cluster with {a}: a link through another member holds \
                     it (a on {b}, then Enter on the others, shows its links; x cuts one)"
                ),
            );
        } else {
            state.notify(
                Level::Info,
                format!("{b} and {a} are no longer in one cluster"),
            );
        }
    }
}
