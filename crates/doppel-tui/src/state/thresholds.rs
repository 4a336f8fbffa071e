//! The thresholds panel's model: how far each algorithm's threshold can
//! move ([`Limits`], from the engine's configuration), where a threshold
//! sits on the histogram's similarity axis, and the clustering choices
//! asked of the worker ([`ThresholdsState`]).

use std::collections::BTreeMap;

use doppel_core::engine::algo::{AlgorithmId, Unit};
use doppel_core::engine::{EngineConfig, Thresholds};
use doppel_pairing::cluster::{ClusterBy, ClusterMode};

/// How far one algorithm's threshold can move, in its native unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    /// The loosest (or smallest) value.
    pub min: f64,
    /// The largest value.
    pub max: f64,
    /// One nudge.
    pub step: f64,
}

impl Limits {
    /// `v` snapped to a step and kept in range (NaN becomes `min`).
    pub fn clamp(&self, v: f64) -> f64 {
        let v = if v.is_finite() { v } else { self.min };
        let snapped = if self.step > 0.0 {
            ((v - self.min) / self.step).round() * self.step + self.min
        } else {
            v
        };
        // Round away float noise (0.1 + 0.2).
        let snapped = (snapped * 1e6).round() / 1e6;
        snapped.clamp(self.min, self.max)
    }

    /// Whether the threshold cannot move (`exact`, `imatch`).
    pub fn fixed(&self) -> bool {
        self.max <= self.min
    }
}

/// Threshold limits from the engine configuration (bits, lexicon counts).
pub fn limits(config: &EngineConfig) -> BTreeMap<AlgorithmId, Limits> {
    let a = &config.algorithms;
    AlgorithmId::ALL
        .into_iter()
        .map(|id| {
            let lim = match id {
                AlgorithmId::Exact | AlgorithmId::Imatch => Limits {
                    min: 1.0,
                    max: 1.0,
                    step: 1.0,
                },
                AlgorithmId::Simhash => bits(a.simhash.bits),
                AlgorithmId::SimhashShingle => bits(a.simhash_shingle.bits),
                AlgorithmId::SimhashLexicons => bits(a.simhash_lexicons.bits),
                AlgorithmId::Supershingle => count(a.supershingle.groups),
                AlgorithmId::ImatchLexicons => count(a.imatch_lexicons.lexicons),
                _ => Limits {
                    min: 0.01,
                    max: 1.0,
                    step: 0.01,
                },
            };
            (id, lim)
        })
        .collect()
}

fn bits(b: u32) -> Limits {
    Limits {
        min: 0.0,
        max: f64::from(b.max(1)),
        step: 1.0,
    }
}

fn count(n: usize) -> Limits {
    Limits {
        min: 1.0,
        max: n.max(1) as f64,
        step: 1.0,
    }
}

/// A threshold as a similarity in [0, 1], on the histogram's axis
/// (see [`doppel_core::engine::algo::Score::similarity`]).
pub fn threshold_similarity(id: AlgorithmId, value: f64, lim: &Limits) -> f64 {
    let s = match id.unit() {
        Unit::Similarity => value,
        Unit::HammingBits => 1.0 - value / lim.max.max(1.0),
        Unit::Matches => value / lim.max.max(1.0),
    };
    s.clamp(0.0, 1.0)
}

/// The threshold whose similarity is `s` (inverse of [`threshold_similarity`]).
pub fn threshold_from_similarity(id: AlgorithmId, s: f64, lim: &Limits) -> f64 {
    let s = s.clamp(0.0, 1.0);
    let v = match id.unit() {
        Unit::Similarity => s,
        Unit::HammingBits => (1.0 - s) * lim.max,
        Unit::Matches => s * lim.max,
    };
    lim.clamp(v)
}

/// The curator's clustering choices, as asked of the worker.
#[derive(Debug, Clone, PartialEq)]
pub struct ThresholdsState {
    /// The thresholds asked for.
    pub thresholds: Thresholds,
    /// The verdict clusters are made by.
    pub by: ClusterBy,
    /// Components or stars.
    pub mode: ClusterMode,
    /// A spec change was sent and no snapshot with it has arrived yet.
    pub awaiting: bool,
    /// Index into [`super::AppState::algorithms`].
    pub selected: usize,
    /// The selected algorithm in words instead of the sliders (`i`).
    pub about: bool,
}
