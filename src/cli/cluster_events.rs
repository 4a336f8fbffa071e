//! Which clusters `watch --jsonl` reports after a snapshot: those that
//! appeared or changed (their members or representative) and those that
//! dissolved, against the snapshot before. The worker shares the views of
//! clusters that did not change (`Arc`), so only views not shared are
//! looked at: at 110k documents a watcher event changes one or two of ~10k.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use doppel_core::doc::DocPath;
use doppel_index::worker::protocol::ClusterView;

/// A cluster as reported: its members, sorted.
pub type Members = Vec<DocPath>;

/// The clusters of the last snapshot, as reported.
#[derive(Default)]
pub struct ShownClusters {
    /// The last snapshot's views (held, so no new view can take the
    /// address of one of them while they are compared).
    views: Vec<Arc<ClusterView>>,
    /// Each cluster's members → its representative.
    shown: HashMap<Members, DocPath>,
}

/// What changed between two snapshots, each list sorted by members.
#[derive(Debug, Default, PartialEq)]
pub struct ClusterChanges {
    /// Clusters new or changed, with their representative.
    pub changed: Vec<(Members, DocPath)>,
    /// Clusters whose members no longer form one.
    pub gone: Vec<Members>,
}

/// `view`'s members, sorted, and its representative.
fn key(view: &ClusterView) -> (Members, DocPath) {
    let mut members: Members = view.members.iter().map(|m| m.path.clone()).collect();
    let representative = members[0].clone();
    members.sort();
    (members, representative)
}

impl ShownClusters {
    /// Take in the next snapshot's `views`; what changed since the last.
    pub fn update(&mut self, views: &[Arc<ClusterView>]) -> ClusterChanges {
        let address = |v: &Arc<ClusterView>| Arc::as_ptr(v) as usize;
        let before: HashSet<usize> = self.views.iter().map(address).collect();
        let now: HashSet<usize> = views.iter().map(address).collect();
        let left: Vec<(Members, DocPath)> = self
            .views
            .iter()
            .filter(|v| !now.contains(&address(v)))
            .map(|v| key(v))
            .collect();
        let arrived: Vec<(Members, DocPath)> = views
            .iter()
            .filter(|v| !before.contains(&address(v)))
            .map(|v| key(v))
            .collect();
        let mut changes = ClusterChanges::default();
        for (members, representative) in &arrived {
            if self.shown.get(members) != Some(representative) {
                changes
                    .changed
                    .push((members.clone(), representative.clone()));
            }
        }
        for (members, _) in &left {
            self.shown.remove(members);
        }
        self.shown.extend(arrived);
        changes.gone = left
            .into_iter()
            .map(|(members, _)| members)
            .filter(|members| !self.shown.contains_key(members))
            .collect();
        changes.changed.sort();
        changes.gone.sort();
        self.views = views.to_vec();
        changes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use doppel_index::worker::protocol::MemberView;

    fn view(paths: &[&str]) -> Arc<ClusterView> {
        Arc::new(ClusterView {
            members: paths
                .iter()
                .map(|p| MemberView {
                    path: DocPath::from(*p),
                    scores: None,
                    passing: Vec::new(),
                    keeper: false,
                    verdict: None,
                    disputed: false,
                })
                .collect(),
            weakest: None,
            agreeing: Vec::new(),
            disagreement: false,
            disputed: 0,
            newest: 0,
        })
    }

    /// The changes as found by comparing every cluster of two snapshots.
    fn compared_whole(before: &[Arc<ClusterView>], now: &[Arc<ClusterView>]) -> ClusterChanges {
        let map = |views: &[Arc<ClusterView>]| -> HashMap<Members, DocPath> {
            views.iter().map(|v| key(v)).collect()
        };
        let (before, now) = (map(before), map(now));
        let mut changes = ClusterChanges {
            changed: now
                .iter()
                .filter(|(m, r)| before.get(*m) != Some(*r))
                .map(|(m, r)| (m.clone(), r.clone()))
                .collect(),
            gone: before
                .keys()
                .filter(|m| !now.contains_key(*m))
                .cloned()
                .collect(),
        };
        changes.changed.sort();
        changes.gone.sort();
        changes
    }

    #[test]
    fn only_what_changed_is_reported_shared_views_or_not() {
        let (ab, cd, ef) = (view(&["a", "b"]), view(&["c", "d"]), view(&["e", "f"]));
        let snapshots: Vec<Vec<Arc<ClusterView>>> = vec![
            vec![ab.clone(), cd.clone()],
            // Nothing changed, every view shared.
            vec![ab.clone(), cd.clone()],
            // One rebuilt with the same members (new scores): no event.
            vec![ab.clone(), view(&["c", "d"])],
            // A member joins; another cluster appears.
            vec![view(&["a", "b", "g"]), view(&["c", "d"]), ef.clone()],
            // A new representative; a cluster dissolves.
            vec![view(&["b", "a", "g"]), ef.clone()],
            // A cluster splits in two, one keeping a view of the same members
            // as one before.
            vec![view(&["b", "a"]), ef.clone(), view(&["g", "c"])],
            vec![],
        ];
        let mut shown = ShownClusters::default();
        let mut before: Vec<Arc<ClusterView>> = Vec::new();
        for (i, now) in snapshots.iter().enumerate() {
            let expected = compared_whole(&before, now);
            assert_eq!(shown.update(now), expected, "snapshot {i}");
            before = now.clone();
        }
        let mut fresh = ShownClusters::default();
        let changes = fresh.update(&snapshots[3]);
        assert_eq!(
            changes.changed.len(),
            3,
            "a first snapshot reports every cluster"
        );
    }
}
