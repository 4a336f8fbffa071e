//! A one-shot scan of a folder: read, fingerprint, compare, cluster.
//!
//! Until the candidate index lands, pairs are found by comparing every pair
//! of documents (in parallel with rayon). That is exact and fine for a few
//! thousand documents; the report says how many comparisons it made.

use std::path::Path;

use rayon::prelude::*;

use crate::algo::AlgorithmId;
use crate::cluster::{connected_components, Cluster};
use crate::collection::{list_files, read_text, Skip, DEFAULT_SIZE_CAP};
use crate::engine::{Engine, Fingerprints, PairScores, Verdict};
use crate::measure::shingle_set;
use crate::stats::TermWeights;

/// One file of the scanned folder.
#[derive(Debug, Clone)]
pub struct ScannedDoc {
    pub rel: String,
    pub bytes: u64,
    /// Encoding the text was decoded from, for indexed documents.
    pub encoding: Option<&'static str>,
    /// Why the file is not indexed, if it is not.
    pub skipped: Option<Skip>,
    pub fingerprints: Option<Fingerprints>,
    /// Number of distinct word shingles (the containment rule's size guard).
    pub shingles: usize,
}

/// A compared pair whose scores pass at least one algorithm's threshold.
#[derive(Debug, Clone)]
pub struct ScannedPair {
    pub a: usize,
    pub b: usize,
    pub scores: PairScores,
    pub verdict: Verdict,
}

#[derive(Debug, Clone)]
pub struct ScanReport {
    pub docs: Vec<ScannedDoc>,
    pub pairs: Vec<ScannedPair>,
    /// Clusters of the `fusion` verdict (indices into `docs`).
    pub clusters: Vec<Cluster>,
    pub comparisons: usize,
}

impl ScanReport {
    /// Clusters under one algorithm's threshold instead of `fusion`.
    pub fn clusters_by(&self, id: AlgorithmId) -> Vec<Cluster> {
        connected_components(
            self.docs.len(),
            self.pairs
                .iter()
                .filter(|p| p.verdict.passing.contains(&id))
                .map(|p| (p.a, p.b)),
        )
    }

    pub fn pair(&self, a: usize, b: usize) -> Option<&ScannedPair> {
        let (a, b) = (a.min(b), a.max(b));
        self.pairs.iter().find(|p| p.a == a && p.b == b)
    }
}

/// Scan `root` with `engine`, weighting terms with `weights`.
pub fn scan_folder(root: &Path, engine: &Engine, weights: &dyn TermWeights) -> ScanReport {
    let (files, problems) = list_files(root);
    let shingle_cfg = &engine.config().algorithms.shingle;
    let mut docs: Vec<ScannedDoc> = files
        .par_iter()
        .map(|file| match read_text(&file.path, DEFAULT_SIZE_CAP) {
            Ok(decoded) => {
                let analysis = engine.analyze(&decoded.text);
                ScannedDoc {
                    rel: file.rel.clone(),
                    bytes: file.bytes,
                    encoding: Some(decoded.encoding),
                    skipped: None,
                    shingles: shingle_set(&analysis, shingle_cfg.w, shingle_cfg.seed).len(),
                    fingerprints: Some(engine.fingerprint(&analysis, weights)),
                }
            }
            Err(skip) => ScannedDoc {
                rel: file.rel.clone(),
                bytes: file.bytes,
                encoding: None,
                skipped: Some(skip),
                fingerprints: None,
                shingles: 0,
            },
        })
        .collect();
    docs.extend(problems.into_iter().map(|(rel, skip)| ScannedDoc {
        rel,
        bytes: 0,
        encoding: None,
        skipped: Some(skip),
        fingerprints: None,
        shingles: 0,
    }));

    let indexed: Vec<usize> = (0..docs.len())
        .filter(|&i| docs[i].fingerprints.is_some())
        .collect();
    let comparisons = indexed.len() * indexed.len().saturating_sub(1) / 2;
    let mut pairs: Vec<ScannedPair> = indexed
        .par_iter()
        .enumerate()
        .flat_map_iter(|(n, &a)| {
            let docs = &docs;
            indexed[n + 1..].iter().filter_map(move |&b| {
                let (fa, fb) = (
                    docs[a].fingerprints.as_ref()?,
                    docs[b].fingerprints.as_ref()?,
                );
                let scores = engine.compare(fa, fb);
                let verdict = engine.verdict(&scores, docs[a].shingles.min(docs[b].shingles));
                (!verdict.passing.is_empty() || verdict.contained).then_some(ScannedPair {
                    a,
                    b,
                    scores,
                    verdict,
                })
            })
        })
        .collect();
    pairs.sort_by_key(|p| (p.a, p.b));
    let clusters = connected_components(
        docs.len(),
        pairs
            .iter()
            .filter(|p| p.verdict.fusion)
            .map(|p| (p.a, p.b)),
    );
    ScanReport {
        docs,
        pairs,
        clusters,
        comparisons,
    }
}
