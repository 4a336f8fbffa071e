//! `winnow`: Schleimer, Wilkerson & Aiken's winnowing of character k-grams.
//!
//! The normalized text minus whitespace and punctuation is cut into
//! overlapping k-grams of characters; each is hashed, and in every window of
//! `w` consecutive hashes the minimum is selected (the rightmost on ties),
//! recording each selection once. Any passage shared by two documents that is
//! at least w + k − 1 characters long is guaranteed to share a fingerprint,
//! and nothing shorter than k characters can. The score is the overlap of
//! the fingerprint sets. Fingerprinting keeps only the selected hashes
//! ([`Winnow::selected_hashes`]); [`Winnow::kgrams`] and [`winnow`] keep
//! the positions, for marking shared passages.

use serde::{Deserialize, Serialize};

use std::borrow::Cow;
use std::collections::TryReserveError;

use super::pieces::DistinctHashes;
use super::{into_set, overlap, Algorithm, AlgorithmId, Score};
use crate::engine::analysis::Analysis;
use crate::engine::stats::TermWeights;
use crate::engine::text::tokenize::keep_alnum;
use crate::hash::mix64;

/// Parameters of `winnow` (`[algorithms.winnow]` in the config file).
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
    /// The k-gram's hash.
    pub hash: u64,
    /// Where it starts (byte offset).
    pub start: u32,
    /// Where it ends (byte offset, exclusive).
    pub end: u32,
}

/// What winnowing keeps of a document.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WinnowFingerprint {
    /// Distinct selected hashes as [`kept`] stores them, sorted (what pairs
    /// are scored on). The positions of the selections are not kept: the
    /// diff view finds shared passages by hashing the lines it shows.
    #[serde(with = "crate::packed")]
    pub hashes: Vec<u32>,
}

/// What a fingerprint keeps of a selected k-gram hash: its low 32 bits.
/// Selection compares all 64; two different selections agree on these with
/// probability 2^−32, and the set takes half the memory.
#[inline]
pub fn kept(hash: u64) -> u32 {
    hash as u32
}

/// The `winnow` algorithm (winnowing): the minimum k-gram hash of each window, compared by overlap.
#[derive(Debug, Clone, Default)]
pub struct Winnow {
    /// Its parameters.
    pub config: WinnowConfig,
}

impl Winnow {
    /// The algorithm with these parameters.
    pub fn new(config: WinnowConfig) -> Self {
        Self { config }
    }

    /// Hashes of all k-grams of the alphanumeric character stream, with byte
    /// ranges into `text` (for marking shared passages; fingerprints use
    /// [`Winnow::selected_hashes`]).
    pub fn kgrams(&self, text: &str) -> Vec<Mark> {
        let seed = self.config.seed;
        let k = self.config.k.max(1);
        let (mut values, mut spans) = (Vec::new(), Vec::new());
        for (i, c) in text.char_indices() {
            if c.is_alphanumeric() {
                values.push(char_value(c, seed));
                spans.push((i as u32, (i + c.len_utf8()) as u32));
            }
        }
        gram_hashes(&values, k)
            .into_iter()
            .enumerate()
            .map(|(i, hash)| Mark {
                hash,
                start: spans[i].0,
                end: spans[i + k - 1].1,
            })
            .collect()
    }

    /// The hashes [`winnow`] selects from [`Winnow::kgrams`] of `text`, in
    /// selection order, without keeping positions (what a fingerprint needs).
    pub fn selected_hashes(&self, text: &str) -> Vec<u64> {
        let values = alnum_values(text, self.config.seed);
        self.select(&gram_hashes(&values, self.config.k.max(1)))
    }

    /// [`Winnow::selected_hashes`] of text that is letters and digits only
    /// (an analysis's `alnum`): ASCII is hashed straight from its bytes.
    fn selected_from_alnum(&self, alnum: &str) -> Vec<u64> {
        debug_assert!(alnum.chars().all(char::is_alphanumeric));
        let k = self.config.k.max(1);
        if !alnum.is_ascii() {
            return self.selected_hashes(alnum);
        }
        let table: [u64; 128] =
            std::array::from_fn(|b| char_value(b as u8 as char, self.config.seed));
        let bytes = alnum.as_bytes();
        self.select(&rolled_gram_hashes(bytes.len(), k, |i| {
            table[usize::from(bytes[i])]
        }))
    }

    fn select(&self, hashes: &[u64]) -> Vec<u64> {
        let mut selected = Vec::with_capacity(2 * hashes.len() / (self.config.w + 1) + 1);
        select_rightmost_minima(hashes, self.config.w, |i| selected.push(hashes[i]));
        selected
    }
}

/// The seeded value of one character of the stream.
#[inline]
fn char_value(c: char, seed: u64) -> u64 {
    mix64(u64::from(c) ^ seed)
}

/// [`char_value`] of every alphanumeric character of `text`, in order.
/// ASCII bytes go through a table; text of ASCII letters and digits only
/// (what an analysis hands over) needs no test per byte at all, and other
/// ASCII text none that branches (word boundaries would mispredict every
/// few characters).
fn alnum_values(text: &str, seed: u64) -> Vec<u64> {
    let table: [u64; 128] = std::array::from_fn(|b| char_value(b as u8 as char, seed));
    let bytes = text.as_bytes();
    if bytes.iter().all(u8::is_ascii_alphanumeric) {
        return bytes.iter().map(|&b| table[usize::from(b)]).collect();
    }
    keep_alnum(
        text,
        |b| table[usize::from(b)],
        |c, out| {
            out[0] = char_value(c, seed);
            1
        },
    )
}

/// Hash of every window of `k` consecutive values, none when the stream is
/// shorter than `k`. The windows are hashed with a cyclic polynomial
/// (Cohen's "buzhash": the XOR of each value rotated by its distance from
/// the window's end), rolled with two rotations and two XORs per character,
/// and each result gets one multiply so its high bits, which decide the
/// minima, depend on every value.
fn gram_hashes(values: &[u64], k: usize) -> Vec<u64> {
    rolled_gram_hashes(values.len(), k, |i| values[i])
}

/// [`gram_hashes`] of the `len` values `value(0..len)`.
#[inline(always)]
fn rolled_gram_hashes(len: usize, k: usize, value: impl Fn(usize) -> u64) -> Vec<u64> {
    if len < k || k == 0 {
        return Vec::new();
    }
    let finish = |h: u64| (h ^ (h >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let leaving_rotation = (k % 64) as u32;
    let mut h = (0..k).fold(0u64, |h, i| h.rotate_left(1) ^ value(i));
    let mut hashes = Vec::with_capacity(len - k + 1);
    hashes.push(finish(h));
    for i in k..len {
        h = h.rotate_left(1) ^ value(i - k).rotate_left(leaving_rotation) ^ value(i);
        hashes.push(finish(h));
    }
    hashes
}

/// Robust winnowing: calls `pick` with the index of the rightmost minimum
/// of every window of `w` hashes, each selection once. Fewer hashes than a
/// window select their single minimum. This is the paper's own
/// formulation: the current minimum is kept while it stays in the window
/// (a new hash ≤ it replaces it), and the window is rescanned only when the
/// minimum falls out.
fn select_rightmost_minima(hashes: &[u64], w: usize, mut pick: impl FnMut(usize)) {
    let mut selector = Selector::new(w);
    selector.push(hashes, |i, _| pick(i));
    selector.finish(|i, _| pick(i));
}

/// [`select_rightmost_minima`] over hashes arriving in pieces: it keeps
/// the last window of hashes and the current minimum between pieces, so
/// the selections are those of the whole stream.
#[derive(Debug, Clone)]
struct Selector {
    w: usize,
    /// The last hashes seen (at most a window, or every hash while fewer
    /// than a window came).
    window: Vec<u64>,
    /// Hashes seen.
    seen: usize,
    /// Index of the current minimum, once a whole window came.
    min: Option<usize>,
}

impl Selector {
    fn new(w: usize) -> Self {
        Self {
            w: w.max(1),
            window: Vec::new(),
            seen: 0,
            min: None,
        }
    }

    /// The next hashes; `pick(index, hash)` for each selection.
    fn push(&mut self, hashes: &[u64], mut pick: impl FnMut(usize, u64)) {
        if hashes.is_empty() {
            return;
        }
        let w = self.w;
        let joined: Cow<[u64]> = if self.window.is_empty() {
            Cow::Borrowed(hashes)
        } else {
            Cow::Owned([&self.window[..], hashes].concat())
        };
        // Index of `joined[0]` in the whole stream.
        let base = self.seen - self.window.len();
        let total = self.seen + hashes.len();
        let h = &joined[..];
        let mut next = self.seen;
        let mut min = match self.min {
            Some(min) => min,
            None if total < w => {
                self.window = joined.into_owned();
                self.seen = total;
                return;
            }
            None => {
                let min = base + rightmost_min(h, 0, w - 1 - base);
                pick(min, h[min - base]);
                next = w;
                min
            }
        };
        for i in next..total {
            let start = i + 1 - w;
            if min < start {
                min = base + rightmost_min(h, start - base, i - base);
                pick(min, h[min - base]);
            } else if h[i - base] <= h[min - base] {
                min = i;
                pick(min, h[min - base]);
            }
        }
        self.min = Some(min);
        self.seen = total;
        // The last window holds the minimum and every hash a later
        // rescan reads.
        self.window = h[total.saturating_sub(w).max(base) - base..].to_vec();
    }

    /// The end of the stream: fewer hashes than a window select their
    /// single minimum.
    fn finish(self, mut pick: impl FnMut(usize, u64)) {
        if self.min.is_none() && self.seen > 0 {
            let min = rightmost_min(&self.window, 0, self.seen - 1);
            pick(min, self.window[min]);
        }
    }
}

/// Index of the rightmost minimum of `hashes[from..=to]`. A select, not a
/// branch: which hash of a window is smallest is a coin flip to the branch
/// predictor.
#[inline]
fn rightmost_min(hashes: &[u64], from: usize, to: usize) -> usize {
    let (mut best, mut least) = (to, hashes[to]);
    for (j, &h) in hashes[from..to].iter().enumerate().rev() {
        let smaller = h < least;
        best = if smaller { from + j } else { best };
        least = least.min(h);
    }
    best
}

/// `winnow`'s fingerprint of a document whose letters and digits arrive in
/// pieces: the last k − 1 characters' values and the winnowing window
/// carry over, so the selections are those of the whole text.
#[derive(Debug, Clone)]
pub struct WinnowStream {
    k: usize,
    seed: u64,
    /// Values of ASCII letters and digits.
    table: [u64; 128],
    /// The last k − 1 character values.
    tail: Vec<u64>,
    selector: Selector,
    selected: DistinctHashes<u32>,
}

impl Winnow {
    /// The fingerprint of a document whose letters and digits arrive in
    /// pieces ([`WinnowStream`]).
    pub fn stream(&self) -> WinnowStream {
        let seed = self.config.seed;
        WinnowStream {
            k: self.config.k.max(1),
            seed,
            table: std::array::from_fn(|b| char_value(b as u8 as char, seed)),
            tail: Vec::new(),
            selector: Selector::new(self.config.w),
            selected: DistinctHashes::new(),
        }
    }
}

impl WinnowStream {
    /// The next letters and digits (an analysis's `alnum`).
    pub fn push(&mut self, alnum: &str) -> Result<(), TryReserveError> {
        debug_assert!(alnum.chars().all(char::is_alphanumeric));
        let k = self.k;
        let hashes = if self.tail.is_empty() && alnum.is_ascii() {
            // ASCII is hashed straight from its bytes.
            let (bytes, table) = (alnum.as_bytes(), &self.table);
            let hashes = rolled_gram_hashes(bytes.len(), k, |i| table[usize::from(bytes[i])]);
            let keep = &bytes[bytes.len().saturating_sub(k - 1)..];
            self.tail
                .extend(keep.iter().map(|&b| table[usize::from(b)]));
            hashes
        } else {
            let mut values = std::mem::take(&mut self.tail);
            values.try_reserve(alnum.len())?;
            values.extend(alnum.chars().map(|c| char_value(c, self.seed)));
            let hashes = gram_hashes(&values, k);
            self.tail = values[values.len().saturating_sub(k - 1)..].to_vec();
            hashes
        };
        let mut picked = Vec::with_capacity(2 * hashes.len() / (self.selector.w + 1) + 1);
        self.selector
            .push(&hashes, |_, hash| picked.push(kept(hash)));
        self.selected.extend(picked.into_iter())
    }

    /// The fingerprint of every piece pushed.
    pub fn finish(mut self) -> Result<WinnowFingerprint, TryReserveError> {
        let mut last = None;
        self.selector.finish(|_, hash| last = Some(kept(hash)));
        self.selected.extend(last.into_iter())?;
        Ok(WinnowFingerprint {
            hashes: self.selected.finish(),
        })
    }
}

/// Robust winnowing of k-grams (the rightmost minimum of every window of
/// `w`, each selection once; fewer grams than a window select their one
/// minimum), keeping their positions.
pub fn winnow(grams: &[Mark], w: usize) -> Vec<Mark> {
    let hashes: Vec<u64> = grams.iter().map(|m| m.hash).collect();
    let mut selected = Vec::with_capacity(2 * grams.len() / (w + 1) + 1);
    select_rightmost_minima(&hashes, w, |i| selected.push(grams[i]));
    selected
}

impl Algorithm for Winnow {
    type Fingerprint = WinnowFingerprint;
    const ID: AlgorithmId = AlgorithmId::Winnow;

    fn fingerprint(&self, doc: &Analysis, _: &dyn TermWeights) -> WinnowFingerprint {
        WinnowFingerprint {
            hashes: into_set(
                self.selected_from_alnum(&doc.alnum)
                    .into_iter()
                    .map(kept)
                    .collect(),
            ),
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
        /// The table and the character path give every letter and digit
        /// its value, in order, whatever the mix of scripts.
        #[test]
        fn alnum_values_are_each_letter_and_digits_value(
            text in "[a-cA-C0-2 _.,'\u{e9}\u{301}\u{3b1}\u{4e00}\u{2500}\u{660}]{0,80}"
        ) {
            let expected: Vec<u64> = text
                .chars()
                .filter(|c| c.is_alphanumeric())
                .map(|c| char_value(c, 9))
                .collect();
            prop_assert_eq!(alnum_values(&text, 9), expected);
        }
    }

    proptest! {
        /// The fingerprint path's selection equals winnowing the k-grams,
        /// on any text (ASCII or not) and any k and w, including texts
        /// shorter than a window.
        #[test]
        fn fingerprint_selection_equals_winnowing_the_kgrams(
            text in "[a-cA-C0-9 éß.,\n]{0,300}",
            k in 1usize..8,
            w in 1usize..12,
        ) {
            let winnow = Winnow::new(WinnowConfig { k, w, seed: 3 });
            let slow: Vec<u64> = super::winnow(&winnow.kgrams(&text), w).iter().map(|m| m.hash).collect();
            prop_assert_eq!(winnow.selected_hashes(&text), slow);
            let ascii: String = text.chars().filter(char::is_ascii).collect();
            let slow: Vec<u64> = super::winnow(&winnow.kgrams(&ascii), w).iter().map(|m| m.hash).collect();
            prop_assert_eq!(winnow.selected_hashes(&ascii), slow);
            for text in [text.as_str(), ascii.as_str()] {
                let alnum: String = text.chars().filter(|c| c.is_alphanumeric()).collect();
                prop_assert_eq!(winnow.selected_from_alnum(&alnum), winnow.selected_hashes(text));
            }
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
    fn rolled_gram_hashes_equal_each_window_hashed_from_scratch() {
        let values: Vec<u64> = (0..200u64).map(crate::hash::mix64).collect();
        for k in [1, 5, 30, 64, 70] {
            let rolled = gram_hashes(&values, k);
            assert_eq!(rolled.len(), values.len() - k + 1, "k {k}");
            for (i, &h) in rolled.iter().enumerate() {
                assert_eq!(gram_hashes(&values[i..i + k], k), [h], "k {k} window {i}");
            }
        }
        assert!(gram_hashes(&values[..4], 5).is_empty());
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
