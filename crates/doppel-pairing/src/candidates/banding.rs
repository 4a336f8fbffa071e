//! The banding of the LSH indexes: MinHash's bands and rows chosen from
//! the floor (the S-curve's error mass minimized, as datasketch does) and
//! the bit masks SimHash fingerprints are banded by (the lab report's
//! tables of random bits, or pigeonhole blocks that guarantee every pair
//! within a distance shares one).

use serde::{Deserialize, Serialize};

use doppel_core::hash::SplitMix64;

/// How SimHash fingerprints are banded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "mode")]
pub enum SimhashBanding {
    /// `tables` tables, each keyed by `bits_per_table` seeded random bit
    /// positions (the lab report's M and K; with M × K = b and contiguous
    /// chunks it is exactly the report's scheme).
    Tables {
        /// How many tables.
        tables: usize,
        /// Bits each table is keyed by.
        bits_per_table: usize,
    },
    /// `max_distance + 1` disjoint blocks: guaranteed to propose every pair
    /// within `max_distance` bits.
    Pigeonhole {
        /// The largest distance every pair within is proposed at.
        max_distance: usize,
    },
}

/// LSH bands and rows for a Jaccard `threshold` with `num_perm` values,
/// minimizing `fp_weight × FP + fn_weight × FN` where FP and FN are the
/// integrated probabilities of proposing a pair below / missing a pair above
/// the threshold.
pub fn optimal_bands(
    threshold: f64,
    num_perm: usize,
    fp_weight: f64,
    fn_weight: f64,
) -> (usize, usize) {
    fn integrate(f: impl Fn(f64) -> f64, a: f64, b: f64) -> f64 {
        let steps = 200;
        let h = (b - a) / steps as f64;
        (0..steps).map(|i| f(a + (i as f64 + 0.5) * h) * h).sum()
    }
    let t = threshold.clamp(0.0, 1.0);
    let mut best = (1, num_perm.max(1), f64::INFINITY);
    for bands in 1..=num_perm {
        for rows in 1..=num_perm / bands {
            let p = |s: f64| 1.0 - (1.0 - s.powi(rows as i32)).powi(bands as i32);
            let fp = integrate(p, 0.0, t);
            let fneg = integrate(|s| 1.0 - p(s), t, 1.0);
            let err = fp_weight * fp + fn_weight * fneg;
            if err < best.2 {
                best = (bands, rows, err);
            }
        }
    }
    (best.0, best.1)
}

/// The bit masks of a SimHash banding for `bits`-bit fingerprints.
pub fn simhash_masks(banding: &SimhashBanding, bits: u32, seed: u64) -> Vec<u64> {
    let bits = bits.clamp(1, 64) as usize;
    match *banding {
        SimhashBanding::Pigeonhole { max_distance } => {
            let blocks = (max_distance + 1).min(bits);
            (0..blocks)
                .map(|i| {
                    let (lo, hi) = (i * bits / blocks, (i + 1) * bits / blocks);
                    (lo..hi).fold(0u64, |m, b| m | 1 << b)
                })
                .collect()
        }
        SimhashBanding::Tables {
            tables,
            bits_per_table,
        } => {
            let k = bits_per_table.clamp(1, bits);
            if tables * k == bits {
                // Exactly the lab report's contiguous chunks.
                return simhash_masks(
                    &SimhashBanding::Pigeonhole {
                        max_distance: tables - 1,
                    },
                    bits as u32,
                    seed,
                );
            }
            let mut rng = SplitMix64::new(seed);
            (0..tables)
                .map(|_| {
                    let mut positions: Vec<usize> = (0..bits).collect();
                    for i in (1..positions.len()).rev() {
                        positions.swap(i, rng.below(i as u64 + 1) as usize);
                    }
                    positions[..k].iter().fold(0u64, |m, &b| m | 1 << b)
                })
                .collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_follow_the_threshold() {
        let (b_low, r_low) = optimal_bands(0.3, 128, 0.5, 0.5);
        let (b_high, r_high) = optimal_bands(0.9, 128, 0.5, 0.5);
        assert!(b_low * r_low <= 128 && b_high * r_high <= 128);
        // A high threshold wants more rows per band (stricter bands).
        assert!(r_high > r_low, "{r_low} rows at 0.3, {r_high} at 0.9");
        // The S-curve's midpoint sits near the threshold.
        let mid = |b: usize, r: usize| (1.0 / b as f64).powf(1.0 / r as f64);
        assert!((mid(b_high, r_high) - 0.9).abs() < 0.1);
    }

    #[test]
    fn pigeonhole_blocks_partition_the_bits() {
        let masks = simhash_masks(&SimhashBanding::Pigeonhole { max_distance: 3 }, 64, 0);
        assert_eq!(masks.len(), 4);
        assert_eq!(masks.iter().fold(0u64, |a, m| a | m), u64::MAX);
        assert_eq!(masks.iter().map(|m| m.count_ones()).sum::<u32>(), 64);
    }

    #[test]
    fn pigeonhole_finds_every_pair_within_the_distance() {
        let banding = SimhashBanding::Pigeonhole { max_distance: 5 };
        let masks = simhash_masks(&banding, 64, 0);
        let mut rng = SplitMix64::new(3);
        for _ in 0..2000 {
            let a = rng.next_u64();
            let mut b = a;
            for _ in 0..5 {
                b ^= 1 << rng.below(64);
            }
            assert!(
                masks.iter().any(|&m| a & m == b & m),
                "{a:x} and {b:x} share no block"
            );
        }
    }

    #[test]
    fn random_tables_have_the_requested_width() {
        let masks = simhash_masks(
            &SimhashBanding::Tables {
                tables: 12,
                bits_per_table: 16,
            },
            64,
            7,
        );
        assert_eq!(masks.len(), 12);
        assert!(masks.iter().all(|m| m.count_ones() == 16));
    }
}
