//! Where each side of a pair matches, in the words a curator checks a
//! match by: "scan pp. 41–57 ≈ e-text lines 1,204–2,311".
//!
//! The index keeps fingerprints, not texts, so a pair's place is found
//! when a report asks: both files are read again (through the formats
//! layer, so a PDF's or an ALTO file's pages come with its text), their
//! boilerplate left out, and [`matched_extent`] finds the stretch of each
//! the other shares; a side with a page map names its pages, the other
//! its lines. Only pairs with a paged side are placed (a plain-text pair's
//! report is as it always was), and a file's format is told from its first
//! bytes before anything is read whole. The last few texts read are kept,
//! since a report lists a book's pairs together.
//!
//! The HTML report also lists each side's matched pages with their page
//! images ([`Places::pages_of_pair`]; the link rules: [`image_link`]).

mod page_images;
pub use page_images::{
    image_link, matched_pages, MatchedPage, PageImage, PairPages, SidePages, LISTED_PAGES,
};

use std::cell::RefCell;
use std::collections::HashMap;
use std::io::Read as _;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use serde::Serialize;

use crate::boilerplate::BoilerplateReport;
use crate::collection::{read_text, DEFAULT_SIZE_CAP};
use crate::scan::ScanReport;
use doppel_core::doc::DocPath;
use doppel_core::engine::locate::{describe, matched_extent};
use doppel_core::engine::text::decode::Decoded;
use doppel_formats::{detect, Format};

/// How many texts a [`Places`] keeps read.
const KEPT_TEXTS: usize = 8;

/// How many bytes tell a file's format.
const SNIFF_BYTES: usize = 8 * 1024;

/// Where a pair matches on each side (`"pp. 41–57"`, `"lines 1–400"`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PairPlace {
    /// Where on the first document.
    pub a: String,
    /// Where on the second.
    pub b: String,
}

/// Finds the places of a folder's pairs, reading its files as asked.
pub struct Places {
    root: PathBuf,
    formats: RefCell<HashMap<DocPath, Format>>,
    texts: RefCell<Vec<(DocPath, Option<Rc<Decoded>>)>>,
}

impl Places {
    /// Places of the documents under `root`.
    pub fn new(root: &Path) -> Self {
        Self {
            root: root.to_path_buf(),
            formats: RefCell::default(),
            texts: RefCell::default(),
        }
    }

    /// Where `a` and `b` match, leaving out each one's `skip` ranges
    /// (boilerplate, bytes of the decoded text); `None` when neither is in
    /// a paged format, a file cannot be read, or they share no run of
    /// words.
    pub fn of_pair(
        &self,
        a: &DocPath,
        skip_a: &[Range<usize>],
        b: &DocPath,
        skip_b: &[Range<usize>],
    ) -> Option<PairPlace> {
        let [(text_a, in_a), (text_b, in_b)] = self.matched(a, skip_a, b, skip_b)?;
        Some(PairPlace {
            a: named(&text_a, &in_a),
            b: named(&text_b, &in_b),
        })
    }

    /// Each side's text and the bytes of it the other shares, when one
    /// side has pages (see [`Self::of_pair`]).
    fn matched(
        &self,
        a: &DocPath,
        skip_a: &[Range<usize>],
        b: &DocPath,
        skip_b: &[Range<usize>],
    ) -> Option<[(Rc<Decoded>, Range<usize>); 2]> {
        if !self.is_paged(a) && !self.is_paged(b) {
            return None;
        }
        let (text_a, text_b) = (self.text(a)?, self.text(b)?);
        let (in_a, in_b) = matched_extent(&text_a.text, skip_a, &text_b.text, skip_b)?;
        Some([(text_a, in_a), (text_b, in_b)])
    }

    /// Where the scanned pair `a`, `b` of `report` matches, their
    /// boilerplate left out.
    pub fn of_scanned_pair(
        &self,
        report: &ScanReport,
        a: &DocPath,
        b: &DocPath,
    ) -> Option<PairPlace> {
        let skip = |doc: &DocPath| learned_ranges(&report.boilerplate, doc);
        self.of_pair(a, &skip(a), b, &skip(b))
    }

    /// Where `a` and `b` match ([`Self::of_pair`], the boilerplate
    /// `learned` left out) and, on each side, the matched pages that name
    /// a page image, with the link to it ([`image_link`]).
    pub fn pages_of_pair(
        &self,
        learned: &BoilerplateReport,
        a: &DocPath,
        b: &DocPath,
    ) -> Option<PairPages> {
        let (skip_a, skip_b) = (learned_ranges(learned, a), learned_ranges(learned, b));
        let [(text_a, in_a), (text_b, in_b)] = self.matched(a, &skip_a, b, &skip_b)?;
        let side = |doc: &DocPath, decoded: &Decoded, range: &Range<usize>| {
            decoded
                .book
                .as_ref()
                .map_or_else(SidePages::default, |book| {
                    matched_pages(&book.pages, range, &self.folder_of(doc))
                })
        };
        Some(PairPages {
            place: PairPlace {
                a: named(&text_a, &in_a),
                b: named(&text_b, &in_b),
            },
            a: side(a, &text_a, &in_a),
            b: side(b, &text_b, &in_b),
        })
    }

    /// The folder a relative page image of `doc` is looked for in: the
    /// document's own folder, or the document itself when it is a folder
    /// (a book of page files).
    fn folder_of(&self, doc: &DocPath) -> PathBuf {
        let path = self.root.join(doc.to_relative_path());
        if path.is_dir() {
            return path;
        }
        path.parent()
            .map_or_else(|| self.root.clone(), Path::to_path_buf)
    }

    /// The format `doc`'s first bytes show ([`Format::Text`] for a file
    /// that cannot be read).
    pub fn format_of(&self, doc: &DocPath) -> Format {
        if let Some(&format) = self.formats.borrow().get(doc) {
            return format;
        }
        let path = self.root.join(doc.to_relative_path());
        // A document that is a folder is a book of its pages.
        let format = if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir()) {
            Format::PageFolder
        } else {
            self.head(doc).map_or(Format::Text, |head| detect(&head))
        };
        self.formats.borrow_mut().insert(doc.clone(), format);
        format
    }

    /// Whether `doc` is in a format with pages (anything but plain text).
    fn is_paged(&self, doc: &DocPath) -> bool {
        self.format_of(doc) != Format::Text
    }

    /// The first bytes of `doc`'s file.
    fn head(&self, doc: &DocPath) -> Option<Vec<u8>> {
        let file = std::fs::File::open(self.root.join(doc.to_relative_path())).ok()?;
        let mut head = Vec::with_capacity(SNIFF_BYTES);
        file.take(SNIFF_BYTES as u64).read_to_end(&mut head).ok()?;
        Some(head)
    }

    /// `doc`'s decoded text, read again unless it is among the last few.
    fn text(&self, doc: &DocPath) -> Option<Rc<Decoded>> {
        let mut texts = self.texts.borrow_mut();
        if let Some(at) = texts.iter().position(|(d, _)| d == doc) {
            let kept = texts.remove(at);
            let text = kept.1.clone();
            texts.push(kept);
            return text;
        }
        let path = self.root.join(doc.to_relative_path());
        let text = read_text(&path, DEFAULT_SIZE_CAP).ok().map(Rc::new);
        if texts.len() == KEPT_TEXTS {
            texts.remove(0);
        }
        texts.push((doc.clone(), text.clone()));
        text
    }
}

/// Where `range` of `decoded` is, in words ([`describe`]).
fn named(decoded: &Decoded, range: &Range<usize>) -> String {
    describe(
        &decoded.text,
        decoded.book.as_ref().map(|b| &b.pages),
        range,
    )
}

/// The byte ranges of `doc`'s text that `learned` holds as boilerplate.
fn learned_ranges(learned: &BoilerplateReport, doc: &DocPath) -> Vec<Range<usize>> {
    learned.documents.get(doc).map_or_else(Vec::new, |found| {
        let at = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        found
            .ranges
            .iter()
            .map(|r| at(r.start)..at(r.end))
            .collect()
    })
}
