//! The cluster views a snapshot shows, kept for the next snapshot: at 110k
//! documents a watcher event rebuilt ~10k views (each member's scores, its
//! path, its verdicts) to change one or two, and the front end then freed
//! the old ones. A kept view is shared (`Arc`) by the next snapshot when
//! nothing it shows can have changed: the same spec and curator verdicts,
//! the same members in the same order with the same paths and arrival,
//! the same stored rows for their pairs with the representative, and the
//! same weakest link and agreement.

use std::collections::HashMap;
use std::sync::Arc;

use rayon::prelude::*;

use super::protocol::{ClusterView, MemberView};
use doppel_core::doc::{DocId, DocPath};
use doppel_pairing::cluster::{ClusterInfo, ClusterSpec};
use doppel_pairing::library::Library;
use doppel_pairing::pairs::PairRow;

/// A view as built, with what it was built from.
#[derive(Debug)]
struct Kept {
    view: Arc<ClusterView>,
    members: Vec<DocId>,
    /// Each shown member's stored row with the representative (`None` for
    /// the representative and members linked only through another).
    rows: Arc<[Option<PairRow>]>,
}

/// The views of the last snapshot, by representative.
#[derive(Debug, Default)]
pub struct KeptViews {
    /// The spec and verdicts version they were built under.
    under: Option<(ClusterSpec, u64)>,
    by_representative: HashMap<DocId, Kept>,
}

impl KeptViews {
    /// The views of `found` (the library's clusters under `spec`), kept
    /// ones shared and the others built; remembers them all for next time.
    pub fn views(
        &mut self,
        lib: &Library,
        spec: &ClusterSpec,
        found: Vec<ClusterInfo>,
    ) -> Vec<Arc<ClusterView>> {
        let under = (spec.clone(), lib.verdicts_version());
        let mut kept = std::mem::take(&mut self.by_representative);
        if self.under.as_ref() != Some(&under) {
            kept.clear();
        }
        let mut views: Vec<(Kept, bool)> = found
            .into_par_iter()
            .map(|c| match kept.get(&c.representative()) {
                Some(k) if still_shows(k, lib, &c) => {
                    let again = Kept {
                        view: k.view.clone(),
                        members: c.members,
                        rows: k.rows.clone(),
                    };
                    (again, false)
                }
                _ => (build(lib, spec, c), true),
            })
            .collect();
        count_disputes(lib, &mut views);
        let shown = views.iter().map(|(k, _)| k.view.clone()).collect();
        self.by_representative = views.into_iter().map(|(k, _)| (k.members[0], k)).collect();
        self.under = Some(under);
        shown
    }
}

/// Whether `kept` shows cluster `c` of `lib` as a view built now would.
fn still_shows(kept: &Kept, lib: &Library, c: &ClusterInfo) -> bool {
    let view = &kept.view;
    if kept.members != c.members
        || view.members.len() != c.members.len()
        || view.weakest != c.weakest.map(|(_, _, w)| w)
        || view.agreeing != c.agreeing
        || view.disagreement != c.disagreement
    {
        return false;
    }
    let rep = c.representative();
    let mut newest = 0;
    for ((&m, shown), row) in c.members.iter().zip(&view.members).zip(kept.rows.iter()) {
        let Some(doc) = lib.doc(m) else {
            return false;
        };
        newest = newest.max(doc.seen);
        let now = (m != rep).then(|| lib.pair_row(rep, m)).flatten();
        let same_row = match (now, row) {
            (Some(now), Some(row)) => now.same_as(row),
            (now, row) => now.is_none() && row.is_none(),
        };
        if doc.path != shown.path || !same_row {
            return false;
        }
    }
    newest == view.newest
}

/// Cluster `c`'s view, built.
fn build(lib: &Library, spec: &ClusterSpec, c: ClusterInfo) -> Kept {
    let rep = c.representative();
    let rep_path = lib.doc(rep).map(|d| &d.path);
    let mut rows = Vec::with_capacity(c.members.len());
    let mut newest = 0;
    let members = c
        .members
        .iter()
        .filter_map(|&m| {
            let doc = lib.doc(m)?;
            newest = newest.max(doc.seen);
            // Verdicts are between a member and its representative.
            let judged = rep_path.filter(|_| m != rep);
            let row = (m != rep).then(|| lib.pair_row(rep, m)).flatten();
            rows.push(row.cloned());
            let scores = row.map(|row| row.scores_from(rep));
            let passing = scores
                .as_ref()
                .map(|s| {
                    s.iter()
                        .filter(|(id, score)| score.passes(spec.thresholds.get(**id)))
                        .map(|(id, _)| *id)
                        .collect()
                })
                .unwrap_or_default();
            Some(MemberView {
                path: doc.path.clone(),
                scores,
                passing,
                keeper: lib.is_keeper(&doc.path),
                verdict: judged.and_then(|r| lib.pair_verdict(r, &doc.path)),
                disputed: judged.is_some_and(|r| lib.is_disputed(r, &doc.path)),
            })
        })
        .collect();
    let view = ClusterView {
        members,
        weakest: c.weakest.map(|(_, _, w)| w),
        agreeing: c.agreeing.clone(),
        disagreement: c.disagreement,
        // Counted for every new view at once (`count_disputes`).
        disputed: 0,
        newest,
    };
    Kept {
        view: Arc::new(view),
        members: c.members,
        rows: rows.into(),
    }
}

/// Count in each newly built view (marked `true`) the pairs of its
/// members the curators' verdicts differ on: one pass over the disputed
/// pairs, which are few. A kept view's count holds (same members, same
/// verdicts).
fn count_disputes(lib: &Library, views: &mut [(Kept, bool)]) {
    let mut disputed = lib.disputed_pairs().peekable();
    if disputed.peek().is_none() {
        return;
    }
    let view_of: HashMap<&DocPath, usize> = views
        .iter()
        .enumerate()
        .filter(|(_, (_, new))| *new)
        .flat_map(|(i, (k, _))| k.view.members.iter().map(move |m| (&m.path, i)))
        .collect();
    let mut counts = vec![0; views.len()];
    for (a, b) in disputed {
        if let (Some(&i), Some(&j)) = (view_of.get(a), view_of.get(b)) {
            if i == j {
                counts[i] += 1;
            }
        }
    }
    for ((k, new), n) in views.iter_mut().zip(counts) {
        if *new {
            Arc::get_mut(&mut k.view)
                .expect("a new view is not shared yet")
                .disputed = n;
        }
    }
}
