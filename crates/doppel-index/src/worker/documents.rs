//! What the documents screen and the keeper signals show about single
//! files: [`facts_of`] reads a file for its size, date, encoding, word
//! count and text quality ([`doppel_core::engine::quality`], held down by
//! a low OCR confidence where the format records one), and for a file in
//! a structured format its format, pages, OCR confidence and what its
//! reader left out;
//! [`neighbours`] lists a document's kept pairs judged under the spec
//! (which algorithms pass and which fail: why two files are, or are not,
//! clustered). Which copy to keep is the library's rule
//! ([`doppel_pairing::keeper`]), from what the index read of each file:
//! its cluster's first member.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Sender};
use std::sync::Arc;

use super::protocol::{DocumentFacts, FormatFacts, Neighbour, Neighbours, Update};
use crate::collection::{read_bytes, DEFAULT_SIZE_CAP};
use crate::index::FolderIndex;
use doppel_core::doc::DocPath;
use doppel_core::engine::quality;
use doppel_core::engine::text::decode::decode_owned;
use doppel_pairing::cluster::ClusterSpec;

/// The facts of document `doc`, read from `file`. A file that cannot be
/// read gives its size and date where known and the problem in words.
pub fn facts_of(doc: &DocPath, file: &Path) -> DocumentFacts {
    let modified = |meta: &std::fs::Metadata| {
        meta.modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .and_then(|d| i64::try_from(d.as_secs()).ok())
    };
    // The file itself, as the walk sees it (a link is not followed).
    let meta = std::fs::symlink_metadata(file).ok();
    let mut facts = DocumentFacts {
        path: doc.clone(),
        size: meta.as_ref().map_or(0, |m| m.len()),
        modified: meta.as_ref().and_then(modified),
        encoding: String::new(),
        quality: Default::default(),
        problem: None,
        book: None,
    };
    let decoded = read_bytes(file, DEFAULT_SIZE_CAP)
        .map_err(Unreadable::from)
        .and_then(|(bytes, identity)| {
            facts.size = identity.size;
            Ok(decode_owned(bytes)?)
        });
    match decoded {
        Ok(d) => {
            facts.encoding = d.encoding.to_ascii_lowercase();
            let confidence = d.book.as_ref().and_then(|b| b.confidence);
            facts.quality = quality::estimate(&d.text).with_confidence(confidence);
            facts.book = d.book.map(|b| FormatFacts {
                format: b.format,
                gzipped: b.gzipped,
                pages: b.pages.pages().len(),
                confidence: b.confidence,
                left_out: b.left_out,
            });
        }
        Err(problem) => facts.problem = Some(problem.to_string()),
    }
    facts
}

/// Why a document's facts have no text: the file, or its bytes.
#[derive(Debug, thiserror::Error)]
enum Unreadable {
    #[error(transparent)]
    File(#[from] crate::collection::Skip),
    #[error(transparent)]
    Bytes(#[from] doppel_core::engine::text::decode::DecodeError),
}

/// Most neighbours listed per document.
pub const MAX_NEIGHBOURS: usize = 12;

/// The kept pairs of `doc` under `spec`, nearest first (at most
/// [`MAX_NEIGHBOURS`]); empty for a document the index does not hold.
pub fn neighbours(
    index: &FolderIndex,
    spec: &ClusterSpec,
    doc: &DocPath,
    generation: u64,
) -> Neighbours {
    let lib = index.library();
    let mut list: Vec<Neighbour> = match lib.id_of(doc) {
        None => Vec::new(),
        Some(id) => {
            let own = lib.doc(id).map_or(0, |d| d.shingles);
            lib.neighbours(id)
                .filter_map(|(other, scores)| {
                    let info = lib.doc(other)?;
                    let smaller = own.min(info.shingles);
                    let v = doppel_core::engine::verdict(
                        &scores,
                        &spec.thresholds,
                        &spec.fusion,
                        smaller,
                    );
                    let failing = scores
                        .keys()
                        .filter(|id| !v.passing.contains(id))
                        .copied()
                        .collect();
                    let sims: Vec<f64> = scores
                        .values()
                        .map(|s| s.similarity())
                        .filter(|x| x.is_finite())
                        .collect();
                    let similarity = if sims.is_empty() {
                        0.0
                    } else {
                        sims.iter().sum::<f64>() / sims.len() as f64
                    };
                    Some(Neighbour {
                        path: info.path.clone(),
                        verdict: lib.pair_verdict(doc, &info.path),
                        disputed: lib.is_disputed(doc, &info.path),
                        fusion: v.fusion,
                        passing: v.passing,
                        failing,
                        scores,
                        similarity,
                    })
                })
                .collect()
        }
    };
    list.sort_by(|x, y| {
        (y.fusion, y.passing.len())
            .cmp(&(x.fusion, x.passing.len()))
            .then(y.similarity.total_cmp(&x.similarity))
            .then(x.path.cmp(&y.path))
    });
    list.truncate(MAX_NEIGHBOURS);
    Neighbours {
        generation,
        path: doc.clone(),
        neighbours: list,
    }
}

/// Files read for their facts this many at a time, each batch one
/// [`Update::Facts`], so a front end fills its list as they come.
const FACTS_BATCH: usize = 16;

pub(super) fn spawn_facts_helper(updates: Sender<Update>) -> Sender<Vec<(DocPath, PathBuf)>> {
    let (tx, rx) = mpsc::channel::<Vec<(DocPath, PathBuf)>>();
    let _ = std::thread::Builder::new()
        .name("doppel-facts".into())
        .spawn(move || {
            while let Ok(files) = rx.recv() {
                for chunk in files.chunks(FACTS_BATCH) {
                    let facts = chunk
                        .iter()
                        .map(|(doc, file)| facts_of(doc, file))
                        .collect();
                    if updates.send(Update::Facts(Arc::new(facts))).is_err() {
                        return;
                    }
                }
            }
        });
    tx
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_are_read_from_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.txt");
        std::fs::write(&file, "The cat sat on the mat.\n").unwrap();
        let f = facts_of(&DocPath::from("a.txt"), &file);
        assert_eq!(f.size, 24);
        assert_eq!(f.encoding, "utf-8");
        assert_eq!(f.quality.words, 6);
        assert!(f.modified.is_some() && f.problem.is_none());
        let missing = facts_of(&DocPath::from("b.txt"), &dir.path().join("b.txt"));
        assert!(missing.problem.is_some());
        assert_eq!(f.book, None, "plain text has no format facts");
    }

    #[test]
    fn an_alto_scan_names_its_format_pages_and_ocr_confidence() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("emma_scan.xml");
        let fixture = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/formats/emma_scan.xml"
        );
        std::fs::copy(fixture, &file).unwrap();
        let f = facts_of(&DocPath::from("emma_scan.xml"), &file);
        assert_eq!(f.problem, None);
        let book = f.book.expect("an ALTO file is read as a book");
        assert_eq!(book.format, doppel_formats::Format::Alto);
        assert!(!book.gzipped);
        assert_eq!(book.pages, 11, "one page per ALTO <Page>");
        let c = book.confidence.expect("ALTO records word confidence");
        assert!((0.5..=1.0).contains(&c), "confidence {c}");
        assert!(f.quality.words > 100);
    }

    /// `tests/data/formats/emma_scan.xml` with every word confidence
    /// (`WC`) scaled by `factor`: the same OCR, its engine less sure.
    fn alto_with_confidence(dir: &Path, name: &str, factor: f64) -> PathBuf {
        let fixture = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/formats/emma_scan.xml"
        );
        let xml = std::fs::read_to_string(fixture).unwrap();
        let mut out = String::with_capacity(xml.len());
        let mut rest = xml.as_str();
        while let Some(at) = rest.find(" WC=\"") {
            let (head, tail) = rest.split_at(at + 5);
            let end = tail.find('"').unwrap();
            let wc: f64 = tail[..end].parse().unwrap();
            out.push_str(head);
            out.push_str(&format!("{:.2}", wc * factor));
            rest = &tail[end..];
        }
        out.push_str(rest);
        let file = dir.join(name);
        std::fs::write(&file, out).unwrap();
        file
    }

    /// Two OCR versions of the Emma chapter, the same words, one from an
    /// engine much less sure of them (mean confidence 0.61 against
    /// 0.94): the surer one is the keeper, though the other is older and
    /// first by name; the quality says why.
    #[test]
    fn the_scan_whose_ocr_was_surer_is_suggested() {
        let dir = tempfile::tempdir().unwrap();
        let sure = alto_with_confidence(dir.path(), "b_sure.xml", 1.0);
        let unsure = alto_with_confidence(dir.path(), "a_unsure.xml", 0.65);
        let f = |name: &str, file: &Path, modified: i64| DocumentFacts {
            modified: Some(modified),
            ..facts_of(&DocPath::from(name), file)
        };
        let (sure, unsure) = (f("b_sure.xml", &sure, 9), f("a_unsure.xml", &unsure, 1));
        let confidence = |f: &DocumentFacts| f.book.as_ref().unwrap().confidence.unwrap();
        assert!(confidence(&sure) > 0.9, "{}", confidence(&sure));
        assert!(confidence(&unsure) < 0.65, "{}", confidence(&unsure));
        // The words are the same; only the engine's confidence differs.
        assert_eq!(sure.quality.words_score(), unsure.quality.words_score());
        assert_eq!(sure.quality.score(), sure.quality.words_score());
        assert!(!sure.quality.held_by_confidence());
        assert!(unsure.quality.held_by_confidence());
        let held = unsure.quality.score();
        assert!(
            (held - f64::from(confidence(&unsure)) / 0.9).abs() < 1e-6,
            "{held}"
        );
        // The keeper rule reads the same quality from what the index read.
        let kept = |file: &Path, modified_ns: i64| {
            let decoded = decode_owned(std::fs::read(file).unwrap()).unwrap();
            let identity = doppel_core::doc::FileIdentity {
                mtime_ns: modified_ns,
                ..Default::default()
            };
            Some(crate::reading::keeper_facts(&decoded, &identity, 1 << 20))
        };
        let sure_kept = kept(&dir.path().join("b_sure.xml"), 9);
        let unsure_kept = kept(&dir.path().join("a_unsure.xml"), 1);
        assert_eq!(sure_kept.unwrap().quality, sure.quality.score());
        assert_eq!(unsure_kept.unwrap().quality, unsure.quality.score());
        let alone = vec![Vec::new(); 2];
        let choose = |facts: &[Option<doppel_pairing::keeper::KeeperFacts>]| {
            doppel_pairing::keeper::choose(facts, &[true, true], &alone)
        };
        assert_eq!(choose(&[unsure_kept, sure_kept]), Some(1));
        assert_eq!(choose(&[sure_kept, unsure_kept]), Some(0));
    }

    /// A document without a recorded confidence scores what its words say,
    /// as before: a plain text, a PDF's text layer.
    #[test]
    fn without_a_confidence_the_quality_is_the_words_alone() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.txt");
        let text = "It is a truth universally acknowledged, that a single man in \
                    possession of a good fortune, must be in want of a wifc.\n";
        std::fs::write(&file, text).unwrap();
        let f = facts_of(&DocPath::from("a.txt"), &file);
        assert_eq!(f.quality, quality::estimate(text));
        assert_eq!(f.quality.ocr_confidence, None);
        assert_eq!(
            f.quality.score(),
            (f.quality.dictionary - f.quality.confusions).clamp(0.0, 1.0)
        );
        let pdf = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/formats/emma_scan.pdf"
        );
        let f = facts_of(&DocPath::from("emma_scan.pdf"), Path::new(pdf));
        assert_eq!(f.book.as_ref().unwrap().confidence, None);
        assert_eq!(f.quality.score(), f.quality.words_score());
    }
}
