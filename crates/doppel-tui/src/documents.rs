//! The documents screen's model and keys: every indexed file, clustered
//! or not, with the facts the worker read about it (size, date, encoding,
//! words, text quality) and its nearest neighbours, judged under the
//! current spec. The same facts give the keeper signals of the clusters
//! screen. Facts and neighbours are asked of the worker
//! ([`Command::RequestFacts`], [`Command::RequestNeighbours`]) by [`ask`],
//! after every action, for what is on screen and not yet known.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::action::Action;
use super::state::{AppState, Screen};
use super::text::doc_path;
use doppel_core::doc::DocPath;
use doppel_index::worker::protocol::{ClusterView, DocumentFacts, Neighbour, Neighbours};
use doppel_index::worker::Command;

/// The documents list's order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum DocSort {
    /// By path.
    #[default]
    Name,
    /// Largest first.
    Size,
    /// Most words first.
    Words,
    /// Most recently modified first.
    Modified,
    /// Lowest text quality first (the scans).
    Quality,
    /// Clustered first, by cluster number.
    Cluster,
}

impl DocSort {
    /// The order after this one.
    pub fn next(self) -> Self {
        match self {
            DocSort::Name => DocSort::Size,
            DocSort::Size => DocSort::Words,
            DocSort::Words => DocSort::Modified,
            DocSort::Modified => DocSort::Quality,
            DocSort::Quality => DocSort::Cluster,
            DocSort::Cluster => DocSort::Name,
        }
    }

    /// Its name on screen.
    pub fn label(self) -> &'static str {
        match self {
            DocSort::Name => "name",
            DocSort::Size => "size",
            DocSort::Words => "words",
            DocSort::Modified => "modified",
            DocSort::Quality => "quality",
            DocSort::Cluster => "cluster",
        }
    }
}

/// The documents screen and the facts known this session.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DocsState {
    /// The selected row (an index into [`rows`]).
    pub sel: usize,
    /// The list's first row shown.
    pub offset: usize,
    /// The list's order.
    pub sort: DocSort,
    /// The neighbours pane has the keyboard.
    pub on_neighbours: bool,
    /// The selected neighbour.
    pub neighbour_sel: usize,
    /// Facts the worker sent, by document (dropped when the file changes).
    pub facts: BTreeMap<DocPath, DocumentFacts>,
    /// Facts asked for and not answered yet.
    pub asked: BTreeSet<DocPath>,
    /// The neighbours last asked for: the document and the snapshot
    /// generation they were asked at.
    pub neighbours_asked: Option<(DocPath, u64)>,
    /// The worker's answer, once it came.
    pub neighbours: Option<Arc<Neighbours>>,
    /// The list in order, as [`refresh`] last made it ...
    pub list: Vec<DocRow>,
    /// ... from this snapshot generation, order, filter and count of facts.
    pub list_key: Option<(u64, DocSort, String, usize)>,
}

/// One row of the documents list.
#[derive(Debug, Clone, PartialEq)]
pub struct DocRow {
    /// The document.
    pub path: DocPath,
    /// Its cluster's number in the snapshot (1-based), if any.
    pub cluster: Option<usize>,
}

/// Every indexed document matching the filter, in the chosen order (as of
/// the last [`refresh`]: a frame draws it without sorting).
pub fn rows(state: &AppState) -> &[DocRow] {
    &state.docs.list
}

/// Order the list again if what it depends on changed since, keeping the
/// selected file selected.
pub fn refresh(state: &mut AppState) {
    let key = (
        state.snapshot.as_ref().map_or(0, |s| s.generation),
        state.docs.sort,
        state.filter.clone(),
        state.docs.facts.len(),
    );
    if state.docs.list_key.as_ref() == Some(&key) {
        return;
    }
    let keep = selected(state);
    state.docs.list = ordered(state);
    state.docs.list_key = Some(key);
    reselect(state, keep.as_ref());
}

fn ordered(state: &AppState) -> Vec<DocRow> {
    let Some(s) = state.snapshot.as_deref() else {
        return Vec::new();
    };
    let needle = state.filter.to_lowercase();
    let matches = |p: &DocPath| needle.is_empty() || doc_path(p).to_lowercase().contains(&needle);
    let mut rows: Vec<DocRow> = s
        .clusters
        .iter()
        .enumerate()
        .flat_map(|(i, c)| c.members.iter().map(move |m| (&m.path, Some(i + 1))))
        .chain(s.unclustered.iter().map(|p| (p, None)))
        .filter(|(p, _)| matches(p))
        .map(|(path, cluster)| DocRow {
            path: path.clone(),
            cluster,
        })
        .collect();
    let facts = &state.docs.facts;
    let by_name = |a: &DocRow, b: &DocRow| a.path.cmp(&b.path);
    // Files without facts yet go last in every order but by name.
    let key = |r: &DocRow, f: fn(&DocumentFacts) -> i64| facts.get(&r.path).map(f);
    let desc = |a: Option<i64>, b: Option<i64>| match (a, b) {
        (Some(x), Some(y)) => y.cmp(&x),
        (x, y) => y.is_some().cmp(&x.is_some()),
    };
    match state.docs.sort {
        DocSort::Name => rows.sort_by(by_name),
        DocSort::Size => rows.sort_by(|a, b| {
            desc(key(a, |f| f.size as i64), key(b, |f| f.size as i64)).then(by_name(a, b))
        }),
        DocSort::Words => rows.sort_by(|a, b| {
            let words = |f: &DocumentFacts| f.quality.words as i64;
            desc(key(a, words), key(b, words)).then(by_name(a, b))
        }),
        DocSort::Modified => rows.sort_by(|a, b| {
            let at = |f: &DocumentFacts| f.modified.unwrap_or(i64::MIN);
            desc(key(a, at), key(b, at)).then(by_name(a, b))
        }),
        DocSort::Quality => rows.sort_by(|a, b| {
            // Lowest first: the copies most likely to go.
            let q = |f: &DocumentFacts| -((f.quality.score() * 1e6) as i64);
            desc(key(a, q), key(b, q)).then(by_name(a, b))
        }),
        DocSort::Cluster => rows.sort_by(|a, b| {
            let c = |r: &DocRow| r.cluster.unwrap_or(usize::MAX);
            c(a).cmp(&c(b)).then(by_name(a, b))
        }),
    }
    rows
}

/// The selected document of the documents screen.
pub fn selected(state: &AppState) -> Option<DocPath> {
    rows(state).get(state.docs.sel).map(|r| r.path.clone())
}

/// The neighbours shown: the worker's answer for the selected document.
pub fn shown_neighbours(state: &AppState) -> Option<&Neighbours> {
    let n = state.docs.neighbours.as_deref()?;
    (Some(&n.path) == selected(state).as_ref()).then_some(n)
}

/// The selected neighbour.
pub fn selected_neighbour(state: &AppState) -> Option<&Neighbour> {
    shown_neighbours(state)?
        .neighbours
        .get(state.docs.neighbour_sel)
}

/// The pair the documents screen points at: the selected document and
/// its selected neighbour.
pub fn selected_pair(state: &AppState) -> Option<(DocPath, DocPath)> {
    let doc = selected(state)?;
    let other = selected_neighbour(state)?;
    Some((doc, other.path.clone()))
}

/// Whether the documents screen handles `action` itself.
pub fn takes(state: &AppState, action: &Action) -> bool {
    state.screen == Screen::Documents
        && state.help.is_none()
        && state.prompt.is_none()
        && (moves(action) || matches!(action, Action::CycleSort | Action::Back))
}

/// A move in the lists or between the panes.
fn moves(action: &Action) -> bool {
    matches!(
        action,
        Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Home
            | Action::End
            | Action::Left
            | Action::Right
            | Action::NextFocus
    )
}

/// Apply a documents-screen action (see [`takes`]); `page` is the list's
/// height.
pub fn on_action(state: &mut AppState, action: Action, page: usize) {
    let page = page.max(2) as isize - 1;
    match action {
        Action::Up => step(state, -1),
        Action::Down => step(state, 1),
        Action::PageUp => step(state, -page),
        Action::PageDown => step(state, page),
        Action::Home => step(state, isize::MIN / 2),
        Action::End => step(state, isize::MAX / 2),
        Action::Left => state.docs.on_neighbours = false,
        Action::Right | Action::NextFocus => {
            let has = shown_neighbours(state).is_some_and(|n| !n.neighbours.is_empty());
            state.docs.on_neighbours = match action {
                Action::Right => has,
                _ => has && !state.docs.on_neighbours,
            };
        }
        Action::CycleSort => {
            state.docs.sort = state.docs.sort.next();
            refresh(state);
            state.say(format!("documents by {}", state.docs.sort.label()));
        }
        Action::Back => {
            if state.docs.on_neighbours {
                state.docs.on_neighbours = false;
            } else {
                state.screen = Screen::Clusters;
            }
        }
        _ => {}
    }
}

fn step(state: &mut AppState, delta: isize) {
    let (cur, len) = if state.docs.on_neighbours {
        let len = shown_neighbours(state).map_or(0, |n| n.neighbours.len());
        (state.docs.neighbour_sel, len)
    } else {
        (state.docs.sel, rows(state).len())
    };
    let to = (cur as isize)
        .saturating_add(delta)
        .clamp(0, len.saturating_sub(1) as isize) as usize;
    if state.docs.on_neighbours {
        state.docs.neighbour_sel = to;
    } else if to != cur {
        state.docs.sel = to;
        state.docs.neighbour_sel = 0;
    }
}

/// Select `path` again after the list changed order or content.
pub fn reselect(state: &mut AppState, path: Option<&DocPath>) {
    if let Some(i) = path.and_then(|p| rows(state).iter().position(|r| r.path == *p)) {
        state.docs.sel = i;
    }
}

/// Keep the selections in range.
pub fn clamp(state: &mut AppState) {
    refresh(state);
    let n = rows(state).len();
    state.docs.sel = state.docs.sel.min(n.saturating_sub(1));
    state.docs.offset = super::layout::visible_offset(
        state.docs.offset,
        state.docs.sel,
        super::layout::list_height(state, super::layout::List::Documents),
        n,
    );
    let k = shown_neighbours(state).map_or(0, |n| n.neighbours.len());
    state.docs.neighbour_sel = state.docs.neighbour_sel.min(k.saturating_sub(1));
    if k == 0 {
        state.docs.on_neighbours = false;
    }
}

/// Ask the worker for what the screen shows and does not know yet: on the
/// documents screen every listed file's facts and the selected one's
/// neighbours (again after a new snapshot: the spec may have changed); on
/// the clusters screen the selected cluster's members' facts (the keeper
/// signals).
pub fn ask(state: &mut AppState, out: &mut Vec<Command>) {
    if state.snapshot.is_none() || !state.worker_running {
        return;
    }
    let wanted: Vec<DocPath> = match state.screen {
        Screen::Documents => rows(state).iter().map(|r| r.path.clone()).collect(),
        Screen::Clusters => state
            .selected_cluster()
            .map(|c| c.members.iter().map(|m| m.path.clone()).collect())
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    let missing: Vec<DocPath> = wanted
        .into_iter()
        .filter(|p| !state.docs.facts.contains_key(p) && !state.docs.asked.contains(p))
        .collect();
    if !missing.is_empty() {
        state.docs.asked.extend(missing.iter().cloned());
        out.push(Command::RequestFacts { paths: missing });
    }
    if state.screen == Screen::Documents {
        let generation = state.snapshot.as_ref().map_or(0, |s| s.generation);
        if let Some(doc) = selected(state) {
            let due = state.docs.neighbours_asked.as_ref() != Some(&(doc.clone(), generation));
            if due {
                state.docs.neighbours_asked = Some((doc.clone(), generation));
                out.push(Command::RequestNeighbours { path: doc });
            }
        }
    }
}

/// Whether [`ask`] follows `action`: moving, switching screens, worker
/// answers and the clock's tick, never a review action (whose commands
/// are the verdicts alone).
pub fn asks_after(action: &Action) -> bool {
    moves(action)
        || matches!(
            action,
            Action::Enter
                | Action::Back
                | Action::ShowScreen(_)
                | Action::CycleSort
                | Action::PromptChar(_)
                | Action::PromptBackspace
                | Action::PromptSubmit
                | Action::PromptCancel
                | Action::Click { .. }
                | Action::Scroll { .. }
                | Action::Worker(_)
                | Action::Tick(_)
        )
}

/// Take in facts the worker read.
pub fn facts_arrived(state: &mut AppState, facts: &[DocumentFacts]) {
    for f in facts {
        state.docs.asked.remove(&f.path);
        state.docs.facts.insert(f.path.clone(), f.clone());
    }
}

/// Take in neighbours, unless another document's or older ones were asked
/// for since.
pub fn neighbours_arrived(state: &mut AppState, n: Arc<Neighbours>) {
    let wanted = state
        .docs
        .neighbours_asked
        .as_ref()
        .is_some_and(|(doc, generation)| *doc == n.path && n.generation >= *generation);
    if wanted {
        state.docs.neighbours = Some(n);
    } else {
        state.dropped += 1;
    }
}

/// A file changed or went: what was read about it no longer holds.
pub fn forget(state: &mut AppState, path: &DocPath) {
    state.docs.facts.remove(path);
    state.docs.asked.remove(path);
}

/// The member of `c` to suggest keeping (an index into its members): its
/// first, the one the library's keeper rule put there
/// ([`doppel_pairing::keeper`]) and the one `M` keeps; none while the
/// curator has marked one.
pub fn suggested_keeper(state: &AppState, c: &ClusterView) -> Option<usize> {
    if c.members.iter().any(|m| state.is_keeper(m)) {
        return None;
    }
    (!c.members.is_empty()).then_some(0)
}
