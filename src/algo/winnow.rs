//! `winnow`: Schleimer, Wilkerson & Aiken's winnowing of character k-grams.
//!
//! The normalized text minus whitespace and punctuation is cut into
//! overlapping k-grams of characters; each is hashed, and in every window of
//! `w` consecutive hashes the minimum is selected (the rightmost on ties),
//! recording each selection once. Any passage shared by two documents that is
//! at least w + k − 1 characters long is guaranteed to share a fingerprint,
//! and nothing shorter than k characters can. Each fingerprint keeps its
//! position (byte range in the normalized text), which the diff view uses to
//! mark shared passages. The score is the overlap of the fingerprint sets.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::{into_set, overlap, Algorithm, AlgorithmId, Score};
use crate::analysis::Analysis;
use crate::hash::mix64;
use crate::stats::TermWeights;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WinnowConfig {
    /// Characters per k-gram (noise threshold). Default: 30.
    pub k: usize,
    /// Window of consecutive k-gram hashes (guarantee threshold w + k − 1 =
    /// 69 characters, about a dozen words). Default: 40.
    pub w: usize,
    /// Seed of the k-gram hash. Default: 0x5eed_0009.
    pub seed: u64,
}

impl Default for WinnowConfig {
    fn default() -> Self {
        Self {
            k: 30,
            w: 40,
            seed: 0x5eed_0009,
        }
    }
}

/// One selected k-gram: its hash and byte range in the normalized text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mark {
    pub hash: u64,
    pub start: u32,
    pub end: u32,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WinnowFingerprint {
    /// Distinct selected hashes, sorted (what pairs are scored on).
    pub hashes: Vec<u64>,
    /// Every selection in text order, with positions (for the diff view).
    pub marks: Vec<Mark>,
}

#[derive(Debug, Clone, Default)]
pub struct Winnow {
    pub config: WinnowConfig,
}

impl Winnow {
    pub fn new(config: WinnowConfig) -> Self {
        Self { config }
    }

    /// Hashes of all k-grams of the alphanumeric character stream, with byte
    /// ranges into `text`. The k-gram hash is a polynomial in the mixed
    /// character values, rolled along the stream (constant work per
    /// position whatever k), then mixed once more.
    pub fn kgrams(&self, text: &str) -> Vec<Mark> {
        const P: u64 = 0x9e37_79b9_7f4a_7c15 | 1;
        let k = self.config.k.max(1);
        let seed = self.config.seed;
        // (byte offset, byte length, value) of every alphanumeric char.
        let chars: Vec<(u32, u32, u64)> = if text.is_ascii() {
            text.bytes()
                .enumerate()
                .filter(|(_, b)| b.is_ascii_alphanumeric())
                .map(|(i, b)| (i as u32, 1, mix64(u64::from(b) ^ seed)))
                .collect()
        } else {
            text.char_indices()
                .filter(|(_, c)| c.is_alphanumeric())
                .map(|(i, c)| (i as u32, c.len_utf8() as u32, mix64(u64::from(c) ^ seed)))
                .collect()
        };
        if chars.len() < k {
            return Vec::new();
        }
        let top = (1..k).fold(1u64, |acc, _| acc.wrapping_mul(P));
        let mut poly = chars[..k]
            .iter()
            .fold(0u64, |acc, c| acc.wrapping_mul(P).wrapping_add(c.2));
        (0..=chars.len() - k)
            .map(|i| {
                if i > 0 {
                    poly = poly
                        .wrapping_sub(chars[i - 1].2.wrapping_mul(top))
                        .wrapping_mul(P)
                        .wrapping_add(chars[i + k - 1].2);
                }
                let last = chars[i + k - 1];
                Mark {
                    hash: mix64(poly),
                    start: chars[i].0,
                    end: last.0 + last.1,
                }
            })
            .collect()
    }
}

/// Robust winnowing: the rightmost minimum of every window of `w`, each
/// selection recorded once. Documents shorter than one window select their
/// single minimum.
pub fn winnow(grams: &[Mark], w: usize) -> Vec<Mark> {
    let w = w.max(1).min(grams.len().max(1));
    let mut selected = Vec::with_capacity(2 * grams.len() / (w + 1) + 1);
    // Indices with strictly increasing hashes from front to back; the front
    // is the window's rightmost minimum.
    let mut window: VecDeque<usize> = VecDeque::with_capacity(w);
    let mut last_selected = usize::MAX;
    for (i, gram) in grams.iter().enumerate() {
        while window.back().is_some_and(|&j| grams[j].hash >= gram.hash) {
            window.pop_back();
        }
        window.push_back(i);
        if window.front().is_some_and(|&j| j + w <= i) {
            window.pop_front();
        }
        if i + 1 >= w {
            let min = window[0];
            if min != last_selected {
                selected.push(grams[min]);
                last_selected = min;
            }
        }
    }
    selected
}

impl Algorithm for Winnow {
    type Fingerprint = WinnowFingerprint;
    const ID: AlgorithmId = AlgorithmId::Winnow;

    fn fingerprint(&self, doc: &Analysis, _: &dyn TermWeights) -> WinnowFingerprint {
        let marks = winnow(&self.kgrams(&doc.text), self.config.w);
        WinnowFingerprint {
            hashes: into_set(marks.iter().map(|m| m.hash).collect()),
            marks,
        }
    }

    fn score(&self, a: &WinnowFingerprint, b: &WinnowFingerprint) -> Score {
        overlap(&a.hashes, &b.hashes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marks(hashes: &[u64]) -> Vec<Mark> {
        hashes
            .iter()
            .enumerate()
            .map(|(i, &hash)| Mark {
                hash,
                start: i as u32,
                end: i as u32 + 1,
            })
            .collect()
    }

    #[test]
    fn paper_example_selects_rightmost_minimum_once_per_run() {
        // The winnowing paper's example hash sequence with w = 4 selects
        // 17 17 8 39 17 → positions of 17, 8, 39, 17 (each once).
        let h = [
            77, 74, 42, 17, 98, 50, 17, 98, 8, 88, 67, 39, 77, 74, 42, 17, 98,
        ];
        let got: Vec<u64> = winnow(&marks(&h), 4).iter().map(|m| m.hash).collect();
        assert_eq!(got, [17, 17, 8, 39, 17]);
    }

    #[test]
    fn every_window_contains_a_selected_position() {
        let h: Vec<u64> = (0..500u64).map(crate::hash::mix64).collect();
        let sel = winnow(&marks(&h), 10);
        let positions: Vec<u32> = sel.iter().map(|m| m.start).collect();
        for start in 0..=h.len() - 10 {
            assert!(
                positions
                    .iter()
                    .any(|&p| (start as u32..start as u32 + 10).contains(&p)),
                "window at {start} has no fingerprint"
            );
        }
    }

    #[test]
    fn equal_passages_hash_equally_wherever_they_stand() {
        let winnow = Winnow::new(WinnowConfig {
            k: 6,
            w: 3,
            seed: 1,
        });
        let a = winnow.kgrams("xx the whale yy");
        let b = winnow.kgrams("a much longer prefix, then: the whale!");
        let hashes = |m: &[Mark]| {
            m.iter()
                .map(|m| m.hash)
                .collect::<std::collections::HashSet<_>>()
        };
        // "thewha" and "hewhal" and "ewhale" are shared.
        assert_eq!(hashes(&a).intersection(&hashes(&b)).count(), 3);
        let accented = winnow.kgrams("ééééééé");
        assert_eq!(accented.len(), 2);
        assert_eq!(accented[0].hash, accented[1].hash);
    }

    #[test]
    fn marks_point_at_the_passage_in_the_text() {
        let winnow = Winnow::new(WinnowConfig {
            k: 5,
            w: 3,
            seed: 1,
        });
        let text = "the whale, the white whale!";
        for m in winnow.kgrams(text) {
            let passage = &text[m.start as usize..m.end as usize];
            let letters: String = passage.chars().filter(|c| c.is_alphanumeric()).collect();
            assert_eq!(letters.chars().count(), 5, "{passage:?}");
        }
    }
}
