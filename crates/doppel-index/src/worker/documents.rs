//! What the documents screen and the keeper signals show about single
//! files: [`facts_of`] reads a file for its size, date, encoding, word
//! count and text quality ([`doppel_core::engine::quality`], held down by
//! a low OCR confidence where the format records one), and for a file in
//! a structured format its format, pages, OCR confidence and what its
//! reader left out;
//! [`neighbours`] lists a document's kept pairs judged under the spec
//! (which algorithms pass and which fail: why two files are, or are not,
//! clustered); [`suggest_keeper`] picks the copy a curator would most
//! likely keep from those facts.

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

/// Quality scores closer than this are a tie (broken by the next signal).
const QUALITY_TIE: f64 = 0.01;

/// How far a file's text is from the text itself, for the keeper: a plain
/// text is it, an e-book (EPUB, HTML, TEI) holds it in markup, a page
/// format (PDF, ALTO, hOCR, a zip of pages) lays out a scan's OCR with
/// its page furniture, its extra "words" counted as more of the book.
fn distance_from_text(f: &DocumentFacts) -> u8 {
    use doppel_formats::Format;
    match f.book.as_ref().map(|b| b.format) {
        None | Some(Format::Text) => 0,
        Some(Format::Pdf | Format::Alto | Format::Hocr | Format::PageZip | Format::PageFolder) => 2,
        Some(_) => 1,
    }
}

/// The copy a curator would most likely keep: the best text quality (a
/// clean e-text over its scan; of two scans, the one whose OCR engine was
/// surer of its words, [`TextQuality::score`](quality::TextQuality::score)),
/// then, among qualities within
/// `QUALITY_TIE`, a plain text over an e-book over a page format (an
/// OCR'd scan reads almost as clean by words alone), then a UTF-8 file,
/// then the most words (the whole over a part), then the oldest (the
/// original), then the first path. `None` when no file could be read.
pub fn suggest_keeper(members: &[&DocumentFacts]) -> Option<usize> {
    let readable = |f: &DocumentFacts| f.problem.is_none();
    let best = members
        .iter()
        .filter(|f| readable(f))
        .map(|f| f.quality.score())
        .fold(f64::NEG_INFINITY, f64::max);
    members
        .iter()
        .enumerate()
        .filter(|(_, f)| readable(f) && f.quality.score() >= best - QUALITY_TIE)
        .min_by(|(_, x), (_, y)| {
            let utf8 = |f: &DocumentFacts| f.encoding != "utf-8";
            distance_from_text(x)
                .cmp(&distance_from_text(y))
                .then(utf8(x).cmp(&utf8(y)))
                .then(y.quality.words.cmp(&x.quality.words))
                .then(
                    x.modified
                        .unwrap_or(i64::MAX)
                        .cmp(&y.modified.unwrap_or(i64::MAX)),
                )
                .then(x.path.cmp(&y.path))
        })
        .map(|(i, _)| i)
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
    use doppel_core::engine::quality::TextQuality;

    fn facts(path: &str, score: f64, encoding: &str, words: usize, modified: i64) -> DocumentFacts {
        DocumentFacts {
            path: DocPath::from(path),
            size: words as u64 * 6,
            modified: Some(modified),
            encoding: encoding.into(),
            quality: TextQuality {
                words,
                judged: words,
                dictionary: score,
                confusions: 0.0,
                ocr_confidence: None,
            },
            problem: None,
            book: None,
        }
    }

    #[test]
    fn the_cleanest_text_is_suggested_then_utf8_then_the_whole_then_the_oldest() {
        let scan = facts("scan.txt", 0.90, "utf-8", 1000, 1);
        let etext = facts("etext.txt", 0.98, "windows-1252", 1000, 5);
        let etext_utf8 = facts("etext-utf8.txt", 0.985, "utf-8", 1000, 9);
        assert_eq!(suggest_keeper(&[&scan, &etext]), Some(1));
        assert_eq!(suggest_keeper(&[&scan, &etext, &etext_utf8]), Some(2));
        let part = facts("part.txt", 0.98, "utf-8", 400, 0);
        let whole = facts("whole.txt", 0.98, "utf-8", 1000, 3);
        assert_eq!(suggest_keeper(&[&part, &whole]), Some(1));
        let newer = facts("b.txt", 0.98, "utf-8", 1000, 7);
        assert_eq!(suggest_keeper(&[&newer, &whole]), Some(1));
    }

    /// The Emma chapter's files in `sample-corpus/`: Tesseract's PDF and
    /// ALTO read within a point of the e-text and count more words (page
    /// numbers, split words); the e-text is still the one to keep.
    #[test]
    fn a_plain_e_text_is_suggested_over_its_epub_and_its_ocrd_scans() {
        let book = |path: &str, score: f64, words: usize, format| {
            let mut f = facts(path, score, "utf-8", words, 9);
            f.book = Some(FormatFacts {
                format,
                gzipped: false,
                pages: 11,
                confidence: None,
                left_out: Vec::new(),
            });
            f
        };
        use doppel_formats::Format;
        let etext = facts("emma.txt", 0.9997, "windows-1252", 3326, 9);
        let epub = book("emma.epub", 0.9997, 3330, Format::Epub);
        let pdf = book("emma_scan.pdf", 0.9919, 3354, Format::Pdf);
        let alto = book("emma_scan.xml", 0.9934, 3352, Format::Alto);
        assert_eq!(suggest_keeper(&[&pdf, &alto, &epub, &etext]), Some(3));
        assert_eq!(suggest_keeper(&[&pdf, &alto, &epub]), Some(2));
        // A scan that reads clearly better is still the one to keep.
        let garbled = facts("garbled.txt", 0.90, "utf-8", 3300, 1);
        assert_eq!(suggest_keeper(&[&garbled, &pdf]), Some(1));
    }

    #[test]
    fn an_unreadable_file_is_never_suggested() {
        let mut gone = facts("gone.txt", 1.0, "utf-8", 5000, 0);
        gone.problem = Some("unreadable".into());
        let kept = facts("kept.txt", 0.5, "utf-8", 10, 0);
        assert_eq!(suggest_keeper(&[&gone, &kept]), Some(1));
        assert_eq!(suggest_keeper(&[&gone]), None);
    }

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
        assert_eq!(suggest_keeper(&[&unsure, &sure]), Some(1));
        assert_eq!(suggest_keeper(&[&sure, &unsure]), Some(0));
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
