//! Building the [`Snapshot`] a front end shows from the index: each
//! cluster's members scored against its representative, the counts, the
//! skipped files and the histograms.

use rayon::prelude::*;

use super::protocol::{ClusterView, MemberView, Snapshot};
use crate::doc::DocPath;
use crate::pairing::cluster::ClusterSpec;
use crate::runtime::index::FolderIndex;

/// The snapshot of an index under `spec`, for `generation`.
pub fn build(index: &FolderIndex, spec: &ClusterSpec, generation: u64) -> Snapshot {
    let lib = index.library();
    let found = tracing::debug_span!("snapshot.clusters").in_scope(|| lib.clusters(spec));
    // By id, not by path: the rest of the folder's paths are listed from it
    // (~100k at 110k documents, on every snapshot).
    let mut clustered = Vec::new();
    for &id in found.iter().flat_map(|c| &c.members) {
        let at = id as usize;
        if at >= clustered.len() {
            clustered.resize(at + 1, false);
        }
        clustered[at] = true;
    }
    let clusters: Vec<ClusterView> = found
        .into_par_iter()
        .map(|c| {
            let rep = c.representative();
            let rep_path = lib.doc(rep).map(|d| &d.path);
            let members = c
                .members
                .iter()
                .filter_map(|&m| {
                    let doc = lib.doc(m)?;
                    let scores = (m != rep).then(|| lib.pair_from(rep, m)).flatten();
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
                        verdict: rep_path
                            .filter(|_| m != rep)
                            .and_then(|r| lib.pair_verdict(r, &doc.path)),
                        disputed: rep_path
                            .filter(|_| m != rep)
                            .is_some_and(|r| lib.is_disputed(r, &doc.path)),
                    })
                })
                .collect();
            ClusterView {
                members,
                weakest: c.weakest.map(|(_, _, w)| w),
                agreeing: c.agreeing.clone(),
                disagreement: c.disagreement,
                disputed: 0,
                newest: c
                    .members
                    .iter()
                    .filter_map(|&m| lib.doc(m))
                    .map(|d| d.seen)
                    .max()
                    .unwrap_or(0),
            }
        })
        .collect();
    let mut clusters = clusters;
    count_disputes(&mut clusters, lib);
    let mut unclustered: Vec<DocPath> = lib
        .documents()
        .filter(|&(id, _)| !clustered.get(id as usize).copied().unwrap_or(false))
        .map(|(_, d)| d.path.clone())
        .collect();
    unclustered.sort();
    Snapshot {
        generation,
        spec: spec.clone(),
        clusters,
        documents: lib.len(),
        pairs: lib.pair_count(),
        skipped: index
            .skipped()
            .iter()
            .map(|(p, r)| (p.clone(), r.clone()))
            .collect(),
        histograms: tracing::debug_span!("snapshot.histograms").in_scope(|| lib.histograms()),
        floors: lib.config().floors.clone(),
        si_capped: lib.si_capped(),
        unclustered,
        // The worker's own count; set where it publishes.
        verdicts_applied: 0,
        // Needs the index mutably (it caches it); set where it publishes.
        boilerplate: Default::default(),
    }
}

/// Count in each cluster the pairs of its members the curators' verdicts
/// differ on (one pass over the disputed pairs, which are few).
fn count_disputes(clusters: &mut [ClusterView], lib: &crate::pairing::library::Library) {
    let mut disputed = lib.disputed_pairs().peekable();
    if disputed.peek().is_none() {
        return;
    }
    let cluster_of: std::collections::HashMap<&DocPath, usize> = clusters
        .iter()
        .enumerate()
        .flat_map(|(i, c)| c.members.iter().map(move |m| (&m.path, i)))
        .collect();
    let mut counts = vec![0; clusters.len()];
    for (a, b) in disputed {
        if let (Some(&i), Some(&j)) = (cluster_of.get(a), cluster_of.get(b)) {
            if i == j {
                counts[i] += 1;
            }
        }
    }
    for (c, n) in clusters.iter_mut().zip(counts) {
        c.disputed = n;
    }
}
