//! The keeper rule: which member of a cluster is kept when the curator has
//! marked none. That member is the suggested keeper (`☆`) and the
//! cluster's representative, so every face (the text report's `*`, the
//! HTML report, JSON, the manifest, `act`, the review screen's `M`) keeps
//! the same file; a curator's keeper mark overrides it (the library ranks
//! kept members first, [`crate::cluster::Rank`]).
//!
//! The rule reads what each document's reading left ([`KeeperFacts`]:
//! text quality, how far its format is from plain text, UTF-8, words,
//! modification time) and the kept pairs' shingle containments, never a
//! file, so a scan, `act` (which reads no file) and the review screen
//! agree. Among the whole and its copies (never a part of it):
//!
//! 1. the complete text: a member whose text lies wholly within another's
//!    that holds more (a copy missing its preamble) gives way to it;
//! 2. the best text quality ([`KeeperFacts::quality`]: dictionary words
//!    less OCR-like ones, held down by a low OCR confidence), qualities
//!    within [`QUALITY_TIE`] a tie;
//! 3. among those, a member the others agree with clearly less than with
//!    the best ([`AGREEMENT_GAP`]) gives way: a heavy rewrite the others
//!    do not contain never wins;
//! 4. then a plain text over an e-book over a page format, UTF-8 over
//!    another encoding, the text the others agree with most (the
//!    original of a lightly edited copy, the original order of reordered
//!    chapters: what the other copies share), the most words, the oldest
//!    file, and the first in cluster order.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::cluster::{ClusterInfo, ClusterMode, Role};
use doppel_core::doc::DocId;

/// How far a file's text is from the text itself: a plain text is it, an
/// e-book (EPUB, HTML, TEI) holds it in markup, a page format (PDF, ALTO,
/// hOCR, a zip or folder of pages) lays out a scan's OCR with its page
/// furniture, its extra "words" counted as more of the book.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum TextForm {
    /// A plain text file.
    #[default]
    Plain,
    /// Markup around the text: EPUB, HTML, TEI.
    Ebook,
    /// Pages of a scan: PDF, ALTO, hOCR, a zip or folder of pages.
    Pages,
}

impl TextForm {
    /// Its name as stored: `plain`, `ebook`, `pages`.
    pub fn as_str(self) -> &'static str {
        match self {
            TextForm::Plain => "plain",
            TextForm::Ebook => "ebook",
            TextForm::Pages => "pages",
        }
    }

    /// The form stored as `name`, if it is one.
    pub fn from_name(name: &str) -> Option<Self> {
        [TextForm::Plain, TextForm::Ebook, TextForm::Pages]
            .into_iter()
            .find(|f| f.as_str() == name)
    }
}

/// What the keeper rule knows of one document, read when it was indexed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct KeeperFacts {
    /// Its text quality in [0, 1]
    /// ([`doppel_core::engine::quality::TextQuality::score`]).
    pub quality: f64,
    /// How far its format is from plain text.
    pub form: TextForm,
    /// Whether it was decoded from UTF-8.
    pub utf8: bool,
    /// Words in its text.
    pub words: u64,
    /// Its file's modification time (unix ns): the oldest is the likely
    /// original.
    pub modified_ns: i64,
}

impl KeeperFacts {
    /// Whether an encoding's name (as decoding names it) is UTF-8.
    pub fn is_utf8(encoding: &str) -> bool {
        encoding.eq_ignore_ascii_case("utf-8")
    }
}

/// Quality scores closer than this are a tie (broken by the next signal).
pub const QUALITY_TIE: f64 = 0.01;

/// A member lies within another when at least this share of its shingles
/// is in it ... (OCR noise breaks more: a scan never lies within its
/// e-text, nor the e-text within it) ...
pub const WHOLLY: f64 = 0.97;

/// ... and its share in the other exceeds the other's share in it by at
/// least this: the other holds text it lacks (a preamble of 50 words in
/// 4,400 is 0.012), where two copies hold the same.
pub const MISSING: f64 = 0.005;

/// A member whose agreement with the others (the mean, over the other
/// members, of the smaller of the two shingle containments) is this far
/// below the best candidate's gives way: at 28 % of words changed, a
/// rewrite shares a third of its shingles or less, where an OCR'd copy
/// shares two thirds and more.
pub const AGREEMENT_GAP: f64 = 0.1;

/// One member's kept pairs inside its cluster: the other member (an index
/// into the cluster's members), the share of this member's shingles in
/// it and the share of its shingles in this one.
pub type SharedWith = Vec<(usize, f64, f64)>;

/// The member to keep among `facts.len()` members (in cluster order) of
/// which `eligible` may be kept, `pairs[i]` member `i`'s kept pairs inside
/// the cluster (a pair not kept shares nothing); `None` when none is
/// eligible. Members without facts lose to those with them, and compare
/// equal among themselves. Costs the pairs' count, not the members'
/// square.
pub fn choose(
    facts: &[Option<KeeperFacts>],
    eligible: &[bool],
    pairs: &[SharedWith],
) -> Option<usize> {
    let n = facts.len();
    let mut cand: Vec<usize> = (0..n).filter(|&i| eligible[i]).collect();
    if cand.len() <= 1 {
        return cand.first().copied();
    }
    let is_cand: Vec<bool> = (0..n).map(|i| cand.binary_search(&i).is_ok()).collect();
    // 1. The complete text: none lies within another candidate.
    let within_another = |i: usize| {
        pairs[i]
            .iter()
            .any(|&(j, ij, ji)| is_cand[j] && j != i && ij >= WHOLLY && ij - ji >= MISSING)
    };
    let complete: Vec<usize> = cand
        .iter()
        .copied()
        .filter(|&i| !within_another(i))
        .collect();
    if !complete.is_empty() {
        cand = complete;
    }
    // 2. The best quality, ties within QUALITY_TIE.
    let quality = |i: usize| facts[i].map_or(f64::NEG_INFINITY, |f| f.quality);
    let best = cand
        .iter()
        .map(|&i| quality(i))
        .fold(f64::NEG_INFINITY, f64::max);
    cand.retain(|&i| quality(i) >= best - QUALITY_TIE);
    // 3. No text the others agree with clearly less.
    let agreement = |i: usize| {
        // Summed in one order whatever the pairs' order, so two copies of
        // one text agree exactly as much.
        let mut shared: Vec<f64> = pairs[i].iter().map(|&(_, ij, ji)| ij.min(ji)).collect();
        shared.sort_unstable_by(f64::total_cmp);
        shared.iter().sum::<f64>() / (n - 1) as f64
    };
    let agreement: HashMap<usize, f64> = cand.iter().map(|&i| (i, agreement(i))).collect();
    let most = agreement
        .values()
        .copied()
        .fold(f64::NEG_INFINITY, f64::max);
    cand.retain(|i| agreement[i] >= most - AGREEMENT_GAP);
    // 4. The text itself, UTF-8, the most agreed with, the most words,
    // the oldest, the first.
    let key = |i: usize| {
        facts[i].map_or((TextForm::Pages, true, 0, i64::MAX), |f| {
            (f.form, !f.utf8, f.words, f.modified_ns)
        })
    };
    cand.into_iter().min_by(|&x, &y| {
        let (kx, ky) = (key(x), key(y));
        (kx.0, kx.1)
            .cmp(&(ky.0, ky.1))
            .then(agreement[&y].total_cmp(&agreement[&x]))
            .then(ky.2.cmp(&kx.2))
            .then(kx.3.cmp(&ky.3))
            .then(x.cmp(&y))
    })
}

/// Put the keeper of `cluster` first (unless `kept` says its first member
/// is a curator's keeper, who stays): the member [`choose`] picks among
/// the whole and its copies (`Role::Head` and the duplicates of it),
/// from `facts` and `containments(id)`, the kept pairs of `id` with the
/// share of `id`'s shingles in the other and of the other's in `id`. The
/// keeper becomes the head: the former head a duplicate of it, and in
/// components mode every duplicate of the former head a duplicate of it
/// (a component claims no direct link); in star mode the other members
/// stay duplicates of the centre they are linked to.
pub fn put_first(
    cluster: &mut ClusterInfo,
    mode: ClusterMode,
    kept: impl Fn(DocId) -> bool,
    facts: impl Fn(DocId) -> Option<KeeperFacts>,
    containments: impl Fn(DocId) -> Vec<(DocId, f64, f64)>,
) {
    let Some(&first) = cluster.members.first() else {
        return;
    };
    if kept(first) {
        return;
    }
    let Some(head) = cluster
        .members
        .iter()
        .zip(&cluster.roles)
        .find_map(|(&id, &role)| (role == Role::Head).then_some(id))
    else {
        return;
    };
    let eligible: Vec<bool> = cluster
        .roles
        .iter()
        .map(|&role| role == Role::Head || role == Role::DuplicateOf(head))
        .collect();
    if eligible.iter().filter(|&&e| e).count() < 2 {
        return;
    }
    let at: HashMap<DocId, usize> = cluster
        .members
        .iter()
        .enumerate()
        .map(|(i, &id)| (id, i))
        .collect();
    let pairs: Vec<SharedWith> = cluster
        .members
        .iter()
        .enumerate()
        .map(|(i, &id)| {
            containments(id)
                .into_iter()
                .filter_map(|(other, in_other, other_in)| {
                    let j = *at.get(&other)?;
                    (j != i).then_some((j, in_other, other_in))
                })
                .collect()
        })
        .collect();
    let known: Vec<Option<KeeperFacts>> = cluster.members.iter().map(|&id| facts(id)).collect();
    if let Some(k) = choose(&known, &eligible, &pairs) {
        make_head(cluster, k, head, mode);
    }
}

/// Move member `k` of `cluster` to the front as its head in place of
/// `old` (see [`put_first`]).
fn make_head(cluster: &mut ClusterInfo, k: usize, old: DocId, mode: ClusterMode) {
    if k == 0 {
        return;
    }
    let new = cluster.members.remove(k);
    let role = cluster.roles.remove(k);
    cluster.members.insert(0, new);
    cluster.roles.insert(0, role);
    for (&id, role) in cluster.members.iter().zip(cluster.roles.iter_mut()) {
        if id == new {
            *role = Role::Head;
        } else if id == old || (mode == ClusterMode::Components && *role == Role::DuplicateOf(old))
        {
            *role = Role::DuplicateOf(new);
        }
    }
}

#[cfg(test)]
mod tests;
