//! `winnow`: Schleimer, Wilkerson & Aiken's winnowing of character k-grams.
//!
//! The normalized text minus whitespace and punctuation is cut into
//! overlapping k-grams of characters; each is hashed, and in every window of
//! `w` consecutive hashes the minimum is selected (the rightmost on ties),
//! recording each selection once. Any passage shared by two documents that is
//! at least w + k − 1 characters long is guaranteed to share a fingerprint,
//! and nothing shorter than k characters can. The score is the overlap of
//! the fingerprint sets. Fingerprinting selects in one pass
//! ([`Winnow::selected_hashes`]); [`Winnow::kgrams`] and [`winnow`] keep
//! the positions, for marking shared passages.

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
    /// Distinct selected hashes, sorted (what pairs are scored on). The
    /// positions of the selections are not kept: the diff view finds shared
    /// passages by hashing the lines it shows.
    #[serde(with = "crate::hash::le_u64s")]
    pub hashes: Vec<u64>,
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
        let seed = self.config.seed;
        let mut roller = Roller::new(self.config.k.max(1), text.len());
        if text.is_ascii() {
            let table: [u64; 128] = std::array::from_fn(|b| mix64(b as u64 ^ seed));
            for (i, &b) in text.as_bytes().iter().enumerate() {
                if b.is_ascii_alphanumeric() {
                    roller.push(table[b as usize], i as u32, 1);
                }
            }
        } else {
            for (i, c) in text.char_indices() {
                if c.is_alphanumeric() {
                    roller.push(mix64(u64::from(c) ^ seed), i as u32, c.len_utf8() as u32);
                }
            }
        }
        roller.grams
    }
}

impl Winnow {
    /// The hashes [`winnow`] selects from [`Winnow::kgrams`] of `text`, in
    /// selection order, found in one pass without keeping k-grams or
    /// positions (what a fingerprint needs).
    pub fn selected_hashes(&self, text: &str) -> Vec<u64> {
        let seed = self.config.seed;
        let mut select = Selector::new(self.config.k.max(1), self.config.w.max(1), text.len());
        if text.is_ascii() {
            let table: [u64; 128] = std::array::from_fn(|b| mix64(b as u64 ^ seed));
            for &b in text.as_bytes() {
                if b.is_ascii_alphanumeric() {
                    select.push(table[b as usize]);
                }
            }
        } else {
            for c in text.chars() {
                if c.is_alphanumeric() {
                    select.push(mix64(u64::from(c) ^ seed));
                }
            }
        }
        select.finish()
    }
}

/// [`Roller`] and [`winnow`] fused: the rolling k-gram hash feeds a ring of
/// the last `w` gram hashes, from which the paper's rightmost minimum is
/// selected as the window slides.
struct Selector {
    hash: RollingHash,
    w: usize,
    /// The last gram hashes, gram i at `i & mask` (a power of two ≥ w).
    ring: Vec<u64>,
    mask: usize,
    /// Grams so far, and the index of the current window's minimum.
    grams: usize,
    min: usize,
    selected: Vec<u64>,
}

impl Selector {
    fn new(k: usize, w: usize, text_len: usize) -> Self {
        let size = w.next_power_of_two();
        Selector {
            hash: RollingHash::new(k),
            w,
            ring: vec![0; size],
            mask: size - 1,
            grams: 0,
            min: 0,
            selected: Vec::with_capacity(2 * text_len / (w + 1) + 1),
        }
    }

    /// Index of the rightmost minimum of grams `from..=to` (all in the ring).
    fn rightmost_min(&self, from: usize, to: usize) -> usize {
        (from..=to).rev().fold(to, |best, j| {
            if self.ring[j & self.mask] < self.ring[best & self.mask] {
                j
            } else {
                best
            }
        })
    }

    #[inline]
    fn push(&mut self, value: u64) {
        let Some(hash) = self.hash.push(value) else {
            return;
        };
        let i = self.grams;
        self.ring[i & self.mask] = hash;
        self.grams += 1;
        if i + 1 < self.w {
            return;
        }
        if i + 1 == self.w || self.min + self.w <= i {
            self.min = self.rightmost_min(i + 1 - self.w, i);
            self.selected.push(self.ring[self.min & self.mask]);
        } else if hash <= self.ring[self.min & self.mask] {
            self.min = i;
            self.selected.push(hash);
        }
    }

    fn finish(mut self) -> Vec<u64> {
        // Fewer grams than a window: the one (short) window's minimum.
        if self.grams > 0 && self.grams < self.w {
            let min = self.rightmost_min(0, self.grams - 1);
            self.selected.push(self.ring[min & self.mask]);
        }
        self.selected
    }
}

/// A polynomial hash over the last k character values, rolled one value
/// at a time (constant work per position whatever k).
struct RollingHash {
    k: usize,
    /// P^(k−1), to remove the value leaving the window.
    top: u64,
    poly: u64,
    /// Ring of the window's values; `next` is the slot of the oldest once
    /// the window is full.
    values: Vec<u64>,
    next: usize,
    seen: usize,
}

impl RollingHash {
    const P: u64 = 0x9e37_79b9_7f4a_7c15 | 1;

    fn new(k: usize) -> Self {
        Self {
            k,
            top: (1..k).fold(1u64, |acc, _| acc.wrapping_mul(Self::P)),
            poly: 0,
            values: vec![0; k],
            next: 0,
            seen: 0,
        }
    }

    /// Take in the next value; the hash of the last k once there are k.
    #[inline]
    fn push(&mut self, value: u64) -> Option<u64> {
        if self.seen >= self.k {
            self.poly = self
                .poly
                .wrapping_sub(self.values[self.next].wrapping_mul(self.top));
        }
        self.poly = self.poly.wrapping_mul(Self::P).wrapping_add(value);
        self.values[self.next] = value;
        self.next = if self.next + 1 == self.k {
            0
        } else {
            self.next + 1
        };
        self.seen += 1;
        (self.seen >= self.k).then(|| mix64(self.poly))
    }
}

/// Rolls the k-gram hash along the text, emitting a [`Mark`] (hash and
/// byte range) per full window.
struct Roller {
    hash: RollingHash,
    /// Start offsets, in the same ring slots as the hash's values.
    starts: Vec<u32>,
    grams: Vec<Mark>,
}

impl Roller {
    fn new(k: usize, capacity: usize) -> Self {
        Self {
            hash: RollingHash::new(k),
            starts: vec![0; k],
            grams: Vec::with_capacity(capacity),
        }
    }

    #[inline]
    fn push(&mut self, value: u64, start: u32, len: u32) {
        self.starts[self.hash.next] = start;
        if let Some(hash) = self.hash.push(value) {
            self.grams.push(Mark {
                hash,
                // The ring slot after the newest holds the oldest start.
                start: self.starts[self.hash.next],
                end: start + len,
            });
        }
    }
}

/// Robust winnowing: the rightmost minimum of every window of `w`, each
/// selection recorded once. Documents shorter than one window select their
/// single minimum. This is the paper's own formulation: the current minimum
/// is kept while it stays in the window (a new hash ≤ it replaces it), and
/// the window is rescanned only when the minimum falls out.
pub fn winnow(grams: &[Mark], w: usize) -> Vec<Mark> {
    let w = w.max(1).min(grams.len().max(1));
    let mut selected = Vec::with_capacity(2 * grams.len() / (w + 1) + 1);
    if grams.len() < w {
        return selected;
    }
    let rightmost_min = |from: usize, to: usize| {
        (from..=to).rev().fold(to, |best, j| {
            if grams[j].hash < grams[best].hash {
                j
            } else {
                best
            }
        })
    };
    let mut min = rightmost_min(0, w - 1);
    selected.push(grams[min]);
    for i in w..grams.len() {
        let start = i + 1 - w;
        if min < start {
            min = rightmost_min(start, i);
            selected.push(grams[min]);
        } else if grams[i].hash <= grams[min].hash {
            min = i;
            selected.push(grams[min]);
        }
    }
    selected
}

impl Algorithm for Winnow {
    type Fingerprint = WinnowFingerprint;
    const ID: AlgorithmId = AlgorithmId::Winnow;

    fn fingerprint(&self, doc: &Analysis, _: &dyn TermWeights) -> WinnowFingerprint {
        WinnowFingerprint {
            hashes: into_set(self.selected_hashes(&doc.text)),
        }
    }

    fn score(&self, a: &WinnowFingerprint, b: &WinnowFingerprint) -> Score {
        overlap(&a.hashes, &b.hashes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The one-pass selection equals winnowing the k-grams, on any text
        /// (ASCII or not) and any k and w, including texts shorter than a
        /// window.
        #[test]
        fn one_pass_selection_equals_winnowing_the_kgrams(
            text in "[a-c é.,\n]{0,300}",
            k in 1usize..8,
            w in 1usize..12,
        ) {
            let winnow = Winnow::new(WinnowConfig { k, w, seed: 3 });
            let slow: Vec<u64> = super::winnow(&winnow.kgrams(&text), w).iter().map(|m| m.hash).collect();
            prop_assert_eq!(winnow.selected_hashes(&text), slow);
            let ascii: String = text.chars().filter(char::is_ascii).collect();
            let slow: Vec<u64> = super::winnow(&winnow.kgrams(&ascii), w).iter().map(|m| m.hash).collect();
            prop_assert_eq!(winnow.selected_hashes(&ascii), slow);
        }
    }

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
