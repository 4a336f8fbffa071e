//! The truth of a generated library, decided from provenance: two
//! documents' relation follows from the source paragraphs their bodies
//! share (weighted by bytes), never from a similarity measure, so it stays
//! true whatever OCR, edits or licences did to the files.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use serde::{Deserialize, Serialize};

#[cfg(test)]
use super::source::Book;
use super::source::{Body, Origin};
use crate::Truth;

/// Share of a body found in the other above which it counts as contained.
pub const CONTAINED: f64 = 0.9;

/// How two documents are related (a pair with none is a negative).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Relation {
    /// The same text: each body is (nearly) within the other.
    Duplicate,
    /// One body is within the other, not the reverse (`container` says which).
    Contains,
    /// Shared work below a duplicate: translations of one work, or a
    /// partial overlap of passages.
    Related,
}

impl Relation {
    /// Every relation.
    pub const ALL: [Relation; 3] = [Relation::Duplicate, Relation::Contains, Relation::Related];

    /// Its name in the truth file.
    pub fn as_str(self) -> &'static str {
        match self {
            Relation::Duplicate => "duplicate",
            Relation::Contains => "contains",
            Relation::Related => "related",
        }
    }
}

/// Which side of a pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// The pair's `a`.
    A,
    /// The pair's `b`.
    B,
}

/// One labelled pair, `a < b` (paths relative to the collection, with `/`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TruthPair {
    /// The first document.
    pub a: String,
    /// The second document.
    pub b: String,
    /// How they are related.
    pub relation: Relation,
    /// For `contains`: the side the other is within.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<Side>,
}

/// A document of the collection as the truth file describes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TruthDocument {
    /// Relative to the collection, with `/`.
    pub path: String,
    /// `library`, `hard-cases` or `copies`.
    pub set: String,
    /// What the file is (layout, transformations, their rates).
    pub form: String,
    /// The licence or scanning-notice family around the body, if any.
    pub boilerplate: Option<String>,
    /// Its length.
    pub bytes: usize,
    /// Bytes of the body: the text without licence, notice or page
    /// furniture (after OCR or edits, before page layout).
    pub body_bytes: usize,
}

/// The truth file (`truth.json`) written next to a generated library.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LibraryTruth {
    /// What wrote it (a collection it wrote may be replaced).
    pub generator: String,
    /// `small` or `large`.
    pub size: String,
    /// The seed of every random choice.
    pub seed: u64,
    /// Always `"negative"`: a pair of documents not in `pairs` is unrelated.
    pub unlisted_pairs: String,
    /// Every document.
    pub documents: Vec<TruthDocument>,
    /// What a duplicate verdict should find (`doppel eval --truth` reads
    /// this): each group of duplicates, and each `contains` pair as a group
    /// of two. Groups are not merged transitively.
    pub groups: Vec<Vec<String>>,
    /// The `contains` pairs as `[part, whole]`, the sample corpus's shape.
    pub containment: Vec<[String; 2]>,
    /// Every related pair with its relation.
    pub pairs: Vec<TruthPair>,
}

impl LibraryTruth {
    /// The groups as [`crate::truth`] reads them.
    pub fn truth(&self) -> Truth {
        Truth {
            groups: self.groups.clone(),
            containment: self
                .containment
                .iter()
                .map(|[part, whole]| (part.clone(), whole.clone()))
                .collect(),
            distinct: Vec::new(),
        }
    }

    /// Pairs labelled `relation`.
    pub fn count(&self, relation: Relation) -> usize {
        self.pairs.iter().filter(|p| p.relation == relation).count()
    }
}

/// The relation of two bodies, if any, and for `contains` which one holds
/// the other.
pub fn relation(a: &Body, b: &Body) -> Option<(Relation, Option<Side>)> {
    let units = |body: &Body| -> HashSet<(&'static str, usize)> {
        body.origins
            .iter()
            .filter_map(|o| match o {
                Origin::Unit { source, unit, .. } => Some((*source, *unit)),
                Origin::Own { .. } => None,
            })
            .collect()
    };
    let in_a = units(a);
    let shared: usize = b
        .origins
        .iter()
        .filter_map(|o| match o {
            Origin::Unit {
                source,
                unit,
                bytes,
            } if in_a.contains(&(*source, *unit)) => Some(*bytes),
            _ => None,
        })
        .sum();
    let a_in_b = shared as f64 / a.origin_bytes().max(1) as f64;
    let b_in_a = shared as f64 / b.origin_bytes().max(1) as f64;
    match (a_in_b >= CONTAINED, b_in_a >= CONTAINED) {
        (true, true) => Some((Relation::Duplicate, None)),
        (true, false) => Some((Relation::Contains, Some(Side::B))),
        (false, true) => Some((Relation::Contains, Some(Side::A))),
        _ if shared > 0 || translations(a, b) => Some((Relation::Related, None)),
        _ => None,
    }
}

/// Whether `a` and `b` draw on two different files of one work (two
/// translations); two parts of one file are not related by that alone.
fn translations(a: &Body, b: &Body) -> bool {
    a.books
        .iter()
        .any(|x| b.books.iter().any(|y| x.work == y.work && x.path != y.path))
}

/// Every labelled pair of `docs` (path, body), sorted, and the groups.
pub fn label(docs: &[(String, &Body)]) -> (Vec<TruthPair>, Vec<Vec<String>>) {
    let mut pairs = Vec::new();
    for (i, (pa, ba)) in docs.iter().enumerate() {
        for (pb, bb) in &docs[i + 1..] {
            let (a, b, ba, bb) = if pa < pb {
                (pa, pb, ba, bb)
            } else {
                (pb, pa, bb, ba)
            };
            if let Some((relation, container)) = relation(ba, bb) {
                pairs.push(TruthPair {
                    a: a.clone(),
                    b: b.clone(),
                    relation,
                    container,
                });
            }
        }
    }
    pairs.sort_by(|x, y| (&x.a, &x.b).cmp(&(&y.a, &y.b)));
    (pairs.clone(), groups(&pairs))
}

/// Duplicate cliques (connected duplicates that are all pairwise
/// duplicates; otherwise each duplicate pair alone), then each `contains`
/// pair as a group of two.
fn groups(pairs: &[TruthPair]) -> Vec<Vec<String>> {
    let duplicates: BTreeSet<(&str, &str)> = pairs
        .iter()
        .filter(|p| p.relation == Relation::Duplicate)
        .map(|p| (p.a.as_str(), p.b.as_str()))
        .collect();
    let mut component: BTreeMap<&str, usize> = BTreeMap::new();
    let mut members: Vec<BTreeSet<&str>> = Vec::new();
    for &(a, b) in &duplicates {
        match (component.get(a).copied(), component.get(b).copied()) {
            (Some(x), Some(y)) if x != y => {
                let moved = std::mem::take(&mut members[y]);
                for m in &moved {
                    component.insert(m, x);
                }
                members[x].extend(moved);
            }
            (Some(x), None) => {
                component.insert(b, x);
                members[x].insert(b);
            }
            (None, Some(y)) => {
                component.insert(a, y);
                members[y].insert(a);
            }
            (None, None) => {
                component.insert(a, members.len());
                component.insert(b, members.len());
                members.push([a, b].into());
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for group in members.into_iter().filter(|m| !m.is_empty()) {
        let list: Vec<&str> = group.into_iter().collect();
        let clique = list
            .iter()
            .enumerate()
            .all(|(i, a)| list[i + 1..].iter().all(|b| duplicates.contains(&(*a, *b))));
        if clique {
            out.push(list.iter().map(|s| (*s).to_owned()).collect());
        } else {
            for (i, a) in list.iter().enumerate() {
                for b in &list[i + 1..] {
                    if duplicates.contains(&(*a, *b)) {
                        out.push(vec![(*a).to_owned(), (*b).to_owned()]);
                    }
                }
            }
        }
    }
    out.sort();
    for p in pairs.iter().filter(|p| p.relation == Relation::Contains) {
        out.push(vec![p.a.clone(), p.b.clone()]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(units: &[(&'static str, usize, usize)], work: &'static str) -> Body {
        let path = units[0].0;
        Body {
            text: String::new(),
            origins: units
                .iter()
                .map(|&(source, unit, bytes)| Origin::Unit {
                    source,
                    unit,
                    bytes,
                })
                .collect(),
            books: vec![Book {
                path,
                title: "",
                author: "",
                work,
            }],
            title: String::new(),
            author: String::new(),
        }
    }

    #[test]
    fn relations_follow_the_shared_units() {
        let whole = body(&[("s", 0, 100), ("s", 1, 100), ("s", 2, 800)], "w");
        let copy = body(&[("s", 0, 100), ("s", 1, 100), ("s", 2, 800)], "w");
        let part = body(&[("s", 2, 800)], "w");
        let other_part = body(&[("s", 0, 100)], "w");
        let overlapping = body(&[("s", 1, 100), ("v", 0, 900)], "v");
        let translation = body(&[("t", 0, 900)], "w");
        let stranger = body(&[("u", 0, 900)], "u");
        assert_eq!(relation(&whole, &copy), Some((Relation::Duplicate, None)));
        assert_eq!(
            relation(&part, &whole),
            Some((Relation::Contains, Some(Side::B)))
        );
        assert_eq!(
            relation(&whole, &part),
            Some((Relation::Contains, Some(Side::A)))
        );
        // Disjoint parts of one file share nothing.
        assert_eq!(relation(&part, &other_part), None);
        assert_eq!(
            relation(&overlapping, &whole),
            Some((Relation::Related, None))
        );
        assert_eq!(
            relation(&translation, &whole),
            Some((Relation::Related, None))
        );
        assert_eq!(relation(&stranger, &whole), None);
    }
}
