//! The per-document steps of the decision, shared by the incremental
//! learner and the from-scratch one: candidate runs, the remainder and its
//! anchors, whether a document holds another's remainder, and the
//! boilerplate spans.

use std::ops::Range;

use super::{BoilerplateConfig, DocSamples, Sample, Span};
use doppel_core::hash::mix64;

/// Words covered by `samples[range]` (a shingle at word p covers p..p+w).
fn covered(samples: &[Sample], range: &Range<usize>, w: u32) -> u32 {
    samples[range.end - 1].word + w - samples[range.start].word
}

/// Maximal runs of consecutive samples (of `len`) for which `keep` of
/// their place holds.
fn maximal_runs(len: usize, keep: impl Fn(usize) -> bool) -> Vec<Range<usize>> {
    let mut runs = Vec::new();
    let mut start = None;
    for i in 0..len {
        match (keep(i), start) {
            (true, None) => start = Some(i),
            (false, Some(from)) => {
                runs.push(from..i);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(from) = start {
        runs.push(from..len);
    }
    runs
}

/// A document's candidate runs: maximal runs of frequent samples covering
/// at least `min_words` words, as index ranges into `samples`.
pub fn candidate_runs(
    samples: &[Sample],
    config: &BoilerplateConfig,
    frequent: impl Fn(u32) -> bool,
) -> Vec<Range<usize>> {
    candidate_runs_at(samples, config, |i| frequent(samples[i].hash))
}

/// [`candidate_runs`] where `frequent_at` tells by a sample's place whether
/// it is frequent.
pub fn candidate_runs_at(
    samples: &[Sample],
    config: &BoilerplateConfig,
    frequent_at: impl Fn(usize) -> bool,
) -> Vec<Range<usize>> {
    let w = config.shingle_words;
    maximal_runs(samples.len(), frequent_at)
        .into_iter()
        .filter(|r| covered(samples, r, w) >= config.min_words)
        .collect()
}

/// The remainder of a document with candidate `runs` when it is a body of
/// its own ([`remainder`], at least `min_remainder` samples, beside runs
/// covering at most `max_words` words together); `None` when the document
/// is a copy of the shared text, with or without a little of its own.
pub fn substantial_remainder(
    samples: &[Sample],
    runs: &[Range<usize>],
    config: &BoilerplateConfig,
) -> Option<Vec<u32>> {
    let w = config.shingle_words;
    let shared: u64 = runs.iter().map(|r| u64::from(covered(samples, r, w))).sum();
    let rem = remainder(samples, runs, config.min_stretch);
    (rem.len() >= config.min_remainder && shared <= u64::from(config.max_words)).then_some(rem)
}

/// The distinct hashes (sorted) of the samples outside `runs`, taken from
/// stretches of at least `min_stretch` consecutive samples.
pub fn remainder(samples: &[Sample], runs: &[Range<usize>], min_stretch: usize) -> Vec<u32> {
    let mut out = Vec::new();
    let mut from = 0;
    let ends = runs.iter().map(|r| (r.start, r.end));
    for (start, end) in ends.chain(std::iter::once((samples.len(), samples.len()))) {
        if start - from >= min_stretch.max(1) {
            out.extend(samples[from..start].iter().map(|s| s.hash));
        }
        from = end;
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The distinct hashes of `samples[runs]`, sorted.
pub fn run_hashes(samples: &[Sample], runs: &[Range<usize>]) -> Vec<u32> {
    let mut out: Vec<u32> = runs
        .iter()
        .flat_map(|r| samples[r.clone()].iter().map(|s| s.hash))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The `k` hashes of a remainder with the smallest re-mixed values (a
/// uniform sample of it that two learners always pick alike), sorted.
pub fn anchors(remainder: &[u32], k: usize) -> Vec<u32> {
    let mut ranked: Vec<(u64, u32)> = remainder
        .iter()
        .map(|&h| (mix64(u64::from(h) ^ 0xa7c4_0b1e), h))
        .collect();
    ranked.sort_unstable();
    let mut out: Vec<u32> = ranked.into_iter().take(k).map(|(_, h)| h).collect();
    out.sort_unstable();
    out
}

/// Whether a document holding `shared` of a remainder's `anchors` anchors
/// holds that remainder (at least `related` of it).
pub fn holds(shared: usize, anchors: usize, related: f64) -> bool {
    anchors > 0 && shared as f64 >= related * anchors as f64
}

/// A document's boilerplate spans: maximal runs of samples that are
/// `boilerplate` or `pinned`, covering at least `min_words` words (or, made
/// of pinned samples only, at least two samples: the user named the text),
/// as word spans. A run that starts at the first sample starts at word 0,
/// and one that ends at the last sample ends at the last word.
pub fn spans(
    doc: &DocSamples,
    config: &BoilerplateConfig,
    boilerplate: impl Fn(u32) -> bool,
    pinned: impl Fn(u32) -> bool,
) -> Vec<Span> {
    let s = &doc.samples;
    let w = config.shingle_words;
    maximal_runs(s.len(), |i| boilerplate(s[i].hash) || pinned(s[i].hash))
        .into_iter()
        .filter(|r| {
            covered(s, r, w) >= config.min_words
                || (r.len() >= 2 && s[r.clone()].iter().all(|x| pinned(x.hash)))
        })
        .map(|r| Span {
            start: if r.start == 0 { 0 } else { s[r.start].word },
            end: if r.end == s.len() {
                doc.words.max(s[r.end - 1].word + w)
            } else {
                s[r.end - 1].word + w
            },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(hashes: &[u32], step: u32) -> DocSamples {
        DocSamples {
            samples: hashes
                .iter()
                .enumerate()
                .map(|(i, &hash)| Sample {
                    hash,
                    word: i as u32 * step,
                })
                .collect(),
            words: hashes.len() as u32 * step + 3,
        }
    }

    #[test]
    fn runs_need_their_words_and_stretches_their_samples() {
        let config = BoilerplateConfig {
            min_words: 20,
            ..BoilerplateConfig::default()
        };
        // Frequent: 1..=9. Samples 8 words apart: a run of 3 covers 20 words.
        let d = doc(&[1, 2, 3, 50, 4, 5, 51, 52, 53, 6, 7, 8, 9], 8);
        let runs = candidate_runs(&d.samples, &config, |h| h < 10);
        assert_eq!(
            runs,
            vec![0..3, 9..13],
            "the run of two (4, 5) is too short"
        );
        assert_eq!(
            remainder(&d.samples, &runs, 3),
            vec![4, 5, 50, 51, 52, 53],
            "one stretch of six between the runs"
        );
        assert_eq!(remainder(&d.samples, &runs, 7), Vec::<u32>::new());
    }

    #[test]
    fn spans_reach_the_document_edges_and_pins_need_two_samples() {
        let config = BoilerplateConfig {
            min_words: 20,
            ..BoilerplateConfig::default()
        };
        let d = doc(&[1, 2, 3, 50, 51, 60, 61, 52, 70, 53, 4, 5, 6], 8);
        let bp = |h: u32| h < 10;
        let pinned = |h: u32| (60..70).contains(&h) || h == 70;
        assert_eq!(
            spans(&d, &config, bp, |_| false),
            vec![
                Span { start: 0, end: 20 },
                Span {
                    start: 80,
                    end: 107
                }
            ]
        );
        let with_pins = spans(&d, &config, bp, pinned);
        assert_eq!(
            with_pins[1],
            Span { start: 40, end: 52 },
            "two pinned samples"
        );
        assert_eq!(with_pins.len(), 3, "a single pinned sample (70) is no span");
    }

    #[test]
    fn anchors_are_a_fixed_sample_of_the_remainder() {
        let r: Vec<u32> = (0..100).collect();
        let a = anchors(&r, 10);
        assert_eq!(a.len(), 10);
        let sub: Vec<u32> = r
            .iter()
            .copied()
            .filter(|h| a.contains(h) || h % 2 == 0)
            .collect();
        assert_eq!(
            anchors(&sub, 10),
            a,
            "a subset holding the anchors keeps them"
        );
        assert!(holds(3, 10, 0.3) && !holds(2, 10, 0.3) && !holds(0, 0, 0.3));
    }
}
