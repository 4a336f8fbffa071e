//! The learned passages: every document's boilerplate spans linked across
//! documents into the passages a user sees (a licence header, a scanning
//! notice), each with its document count.
//!
//! Two spans are one passage when they resemble each other: each span's
//! boilerplate shingles get a MinHash signature of [`ROWS`] × [`BANDS`]
//! values, and spans sharing a band are linked (two spans of one licence
//! header, Jaccard ≈ 1, always are; two licences that share a sentence or
//! two, Jaccard ≈ 0.01, almost never). Passages are the connected
//! components; everything is ordered by key, so the same spans give the
//! same passages whatever the order they were learned in.

use std::collections::{BTreeMap, HashMap};

use super::{DocSamples, Span};
use crate::cluster::UnionFind;
use doppel_core::hash::mix64;

/// MinHash values per band, and bands, of a span's signature.
pub const ROWS: usize = 2;
pub const BANDS: usize = 4;

/// One document's span of a passage.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct PassageSpan<K> {
    /// The document.
    pub key: K,
    /// Its words in the passage.
    pub span: Span,
}

/// A learned passage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Passage<K> {
    /// Documents with a span of it.
    pub documents: usize,
    /// The first span by key: the passage as it reads in one document.
    pub representative: PassageSpan<K>,
    /// Every span, by key then position.
    pub spans: Vec<PassageSpan<K>>,
    /// Its boilerplate shingles over all spans, sorted: what a curator's
    /// "not boilerplate" stores ([`super::Learner::set_overruled`]).
    pub hashes: Vec<u32>,
}

/// The passages of `docs` (each document's samples and spans) under the
/// shingles `is_boilerplate` accepts, most documents first, then by
/// representative.
pub fn passages<'a, K: Ord + Clone + 'a>(
    docs: impl IntoIterator<Item = (&'a K, &'a DocSamples, &'a [Span])>,
    is_boilerplate: impl Fn(u32) -> bool,
) -> Vec<Passage<K>> {
    let mut all: Vec<(PassageSpan<K>, Vec<u32>)> = Vec::new();
    let mut docs: Vec<_> = docs.into_iter().collect();
    docs.sort_by(|a, b| a.0.cmp(b.0));
    for (key, samples, spans) in docs {
        for &span in spans {
            let mut hashes: Vec<u32> = samples
                .samples
                .iter()
                .filter(|s| (span.start..span.end).contains(&s.word))
                .map(|s| s.hash)
                .filter(|&h| is_boilerplate(h))
                .collect();
            hashes.sort_unstable();
            hashes.dedup();
            all.push((
                PassageSpan {
                    key: key.clone(),
                    span,
                },
                hashes,
            ));
        }
    }
    let mut links = UnionFind::new(all.len());
    let mut first: HashMap<(usize, u64), usize> = HashMap::new();
    for (i, (_, hashes)) in all.iter().enumerate() {
        for (band, key) in band_keys(hashes).into_iter().enumerate() {
            match first.get(&(band, key)) {
                Some(&j) => links.union(i, j),
                None => {
                    first.insert((band, key), i);
                }
            }
        }
    }
    let mut components: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for i in 0..all.len() {
        components.entry(links.find(i)).or_default().push(i);
    }
    let mut out: Vec<Passage<K>> = components
        .into_values()
        .map(|members| {
            let spans: Vec<PassageSpan<K>> = members.iter().map(|&i| all[i].0.clone()).collect();
            let mut hashes: Vec<u32> = members.iter().flat_map(|&i| all[i].1.clone()).collect();
            hashes.sort_unstable();
            hashes.dedup();
            let mut keys: Vec<&K> = spans.iter().map(|s| &s.key).collect();
            keys.dedup();
            Passage {
                documents: keys.len(),
                representative: spans[0].clone(),
                spans,
                hashes,
            }
        })
        .collect();
    out.sort_by(|a, b| {
        b.documents
            .cmp(&a.documents)
            .then_with(|| a.representative.cmp(&b.representative))
    });
    out
}

/// A span's band keys: each band hashes its [`ROWS`] MinHash values.
fn band_keys(hashes: &[u32]) -> [u64; BANDS] {
    let mut keys = [0u64; BANDS];
    for (band, key) in keys.iter_mut().enumerate() {
        let mut combined = band as u64;
        for row in 0..ROWS {
            let seed = mix64(((band * ROWS + row) as u64) ^ 0x9a55_a6e5);
            let min = hashes
                .iter()
                .map(|&h| mix64(u64::from(h) ^ seed))
                .min()
                .unwrap_or(0);
            combined = mix64(combined ^ min);
        }
        *key = combined;
    }
    keys
}
