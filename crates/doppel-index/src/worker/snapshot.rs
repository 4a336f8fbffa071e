//! Building the [`Snapshot`] a front end shows from the index: the
//! clusters' views (`views`), the counts, the skipped files and the
//! histograms.

use super::protocol::Snapshot;
use super::views::KeptViews;
use crate::index::FolderIndex;
use doppel_core::doc::DocPath;
use doppel_pairing::cluster::ClusterSpec;

/// The snapshot of an index under `spec`, for `generation`.
pub fn build(index: &FolderIndex, spec: &ClusterSpec, generation: u64) -> Snapshot {
    build_keeping(index, spec, generation, &mut KeptViews::default())
}

/// [`build`], sharing the views of `kept` (the last snapshot's) that still
/// hold, and keeping this one's there for the next.
pub fn build_keeping(
    index: &FolderIndex,
    spec: &ClusterSpec,
    generation: u64,
    kept: &mut KeptViews,
) -> Snapshot {
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
    let clusters = tracing::debug_span!("snapshot.views").in_scope(|| kept.views(lib, spec, found));
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
