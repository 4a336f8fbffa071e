//! The worker shares the cluster views of its last snapshot that still
//! hold (`KeptViews`): after every kind of change a curator or the watcher
//! makes, the snapshot built that way must equal one built afresh, and a
//! change must leave the clusters it does not touch shared, not rebuilt.

mod common;

use common::{fixture, indexed};

use std::fs;
use std::sync::Arc;

use doppel_core::doc::{CuratorVerdict, DocPath};
use doppel_core::engine::algo::AlgorithmId;
use doppel_index::index::FolderIndex;
use doppel_index::worker::protocol::{ClusterView, Snapshot};
use doppel_index::worker::snapshot::{build, build_keeping};
use doppel_index::worker::views::KeptViews;
use doppel_pairing::cluster::ClusterSpec;

/// Builds snapshots keeping views, and checks each against a fresh build.
struct Snapshots {
    kept: KeptViews,
    generation: u64,
    last: Option<Snapshot>,
}

impl Snapshots {
    /// The next snapshot of `index` under `spec`; it must equal one built
    /// afresh (`what` names the change before it).
    fn next(&mut self, index: &FolderIndex, spec: &ClusterSpec, what: &str) -> &Snapshot {
        self.generation += 1;
        let kept = build_keeping(index, spec, self.generation, &mut self.kept);
        let fresh = build(index, spec, self.generation);
        assert_eq!(
            kept.clusters, fresh.clusters,
            "after {what}: kept views differ from fresh ones"
        );
        assert_eq!(kept.unclustered, fresh.unclustered, "after {what}");
        self.last = Some(kept);
        self.last.as_ref().unwrap()
    }

    /// How many of `now`'s views are the very ones of `before`.
    fn shared(before: &Snapshot, now: &Snapshot) -> usize {
        now.clusters
            .iter()
            .filter(|c| before.clusters.iter().any(|b| Arc::ptr_eq(b, c)))
            .count()
    }
}

/// The view of the cluster holding `path`.
fn cluster_of<'a>(s: &'a Snapshot, path: &str) -> &'a ClusterView {
    let path = DocPath::from(path);
    s.clusters
        .iter()
        .find(|c| c.members.iter().any(|m| m.path == path))
        .unwrap_or_else(|| panic!("no cluster holds {path}"))
}

/// How many documents the cluster of Persuasion's first chapter holds.
fn persuasion_cluster_size(s: &Snapshot) -> usize {
    cluster_of(s, "austen/persuasion-ch1.txt").members.len()
}

#[test]
fn kept_views_equal_fresh_ones_after_every_change_and_untouched_ones_are_shared() {
    let f = fixture();
    let mut index = indexed(&f.folder, &f.index);
    let mut spec = ClusterSpec::from_engine(index.engine());
    let mut snaps = Snapshots {
        kept: KeptViews::default(),
        generation: 0,
        last: None,
    };
    let first = snaps.next(&index, &spec, "the first scan").clone();
    assert!(first.clusters.len() >= 5, "the sample corpus clusters");

    let again = snaps.next(&index, &spec, "nothing").clone();
    assert_eq!(
        Snapshots::shared(&first, &again),
        first.clusters.len(),
        "nothing changed: every view shared"
    );

    // A new near-copy joins Persuasion's cluster; the others stay shared.
    let persuasion = fs::read_to_string(f.folder.join("austen/persuasion-ch1.txt")).unwrap();
    let copy = f.folder.join("copies/persuasion-ch1 (again).txt");
    fs::write(&copy, persuasion.replacen("Sir Walter", "Sir Walther", 1)).unwrap();
    index.sync_paths(std::slice::from_ref(&copy)).unwrap();
    let joined = snaps.next(&index, &spec, "a near-copy written").clone();
    assert_eq!(persuasion_cluster_size(&joined), 3);
    let shared = Snapshots::shared(&again, &joined);
    assert!(
        shared > 0 && shared < joined.clusters.len(),
        "only the changed cluster is rebuilt ({shared} of {} shared)",
        joined.clusters.len()
    );

    // A member edited in place: same cluster, other scores.
    let edited = f.folder.join("edited/emma-ch1-edited.txt");
    let before = cluster_of(&joined, "edited/emma-ch1-edited.txt").clone();
    let mut text = fs::read_to_string(&edited).unwrap();
    text.push_str("\n\nA few more words at the end of the chapter, added by hand.\n");
    fs::write(&edited, text).unwrap();
    index.sync_paths(std::slice::from_ref(&edited)).unwrap();
    let rescored = snaps.next(&index, &spec, "a member edited").clone();
    assert_ne!(
        cluster_of(&rescored, "edited/emma-ch1-edited.txt").members[1].scores,
        before.members[1].scores,
        "the edit shows in the scores"
    );

    // A verdict and a keeper mark.
    let (rep, member) = {
        let c = cluster_of(&rescored, "austen/pride-prejudice-ch1-3.txt");
        (c.members[0].path.clone(), c.members[1].path.clone())
    };
    index
        .set_pair_verdict(&rep, &member, Some(CuratorVerdict::Duplicate))
        .unwrap();
    let judged = snaps.next(&index, &spec, "a verdict").clone();
    let shown = cluster_of(&judged, "austen/pride-prejudice-ch1-3.txt");
    assert_eq!(shown.members[1].verdict, Some(CuratorVerdict::Duplicate));
    index.set_keeper(&member, true).unwrap();
    let kept = snaps.next(&index, &spec, "a keeper mark").clone();
    assert!(cluster_of(&kept, &member.to_string())
        .members
        .iter()
        .any(|m| m.keeper));

    // A threshold moved: what passes changes in every view.
    spec.thresholds.set(AlgorithmId::Minhash, 0.99);
    snaps.next(&index, &spec, "a threshold moved");

    // A member removed.
    fs::remove_file(&copy).unwrap();
    index.sync_paths(std::slice::from_ref(&copy)).unwrap();
    let removed = snaps.next(&index, &spec, "a file removed").clone();
    assert_eq!(persuasion_cluster_size(&removed), 2);
}
