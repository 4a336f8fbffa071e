//! PDF: the text layer of each page, in reading order, one page at a
//! time, read by `pdf_oxide` (chosen by measurement: BENCHMARKS.md, "PDF
//! text extraction: crates against pdftotext").
//!
//! Each PDF page becomes one page of the book, labelled by the PDF's
//! `/PageLabels` when it has them (a preface's `"xii"`), else unlabelled
//! (named by its number). Only one page's text structures are alive at a
//! time (the crate's object cache is bounded), so memory follows the
//! largest page and the book's text, not the whole PDF's parse. A PDF
//! whose pages hold no text is a scan without OCR; an encrypted PDF is read
//! when it opens with the empty user password (owner-password-only
//! restrictions) and refused otherwise. Junk before the header (up to
//! 1 KiB, as [`crate::detect`] accepts) is left to the crate, which finds
//! the header and takes the xref's offsets from it or from the file's
//! start, whichever the file's objects are at. The crate panics on some hostile
//! PDFs: a panic is caught, quietly ([`crate::caught`]), and the file
//! reported damaged. The crate runs on a thread of its own, with a deep
//! stack and a deadline ([`watch`]).

mod clean;
mod watch;

use std::time::Duration;

use pdf_oxide::document::PdfDocument;
use pdf_oxide::extractors::page_labels::{PageLabelExtractor, PageLabelRange};

use crate::{Book, Format, FormatError, Limits, PagedText};
use watch::Watch;

/// The fewest letters and digits a page needs to count as text: a scan
/// may carry a stamped page number or a scanner's signature.
const MIN_LETTERS: usize = 20;

/// Read a PDF's text layer into a book, on a watched thread ([`watch`]).
pub(crate) fn read(bytes: Vec<u8>, limits: &Limits) -> Result<Book, FormatError> {
    read_within(bytes, limits, watch::deadline)
}

/// [`read`], with the time it may take.
fn read_within(
    bytes: Vec<u8>,
    limits: &Limits,
    deadline: fn(usize, usize) -> Duration,
) -> Result<Book, FormatError> {
    let limits = *limits;
    let outcome = watch::run(bytes, deadline, move |bytes, watch| {
        crate::caught::catch(|| read_unguarded(bytes, &limits, watch))
    });
    match outcome {
        Ok(result) => result,
        Err(what) => Err(damaged(format!("the PDF reader failed ({what})"))),
    }
}

fn read_unguarded(bytes: Vec<u8>, limits: &Limits, watch: &Watch) -> Result<Book, FormatError> {
    let doc = PdfDocument::from_bytes(bytes).map_err(|e| damaged(e.to_string()))?;
    if doc.is_encrypted() {
        // Owner-password-only PDFs open with the empty user password.
        match doc.authenticate(b"") {
            Ok(true) => {}
            _ => {
                return Err(FormatError::Encrypted {
                    format: Format::Pdf,
                })
            }
        }
    }
    let count = doc.page_count().map_err(|e| damaged(e.to_string()))?;
    watch.pages(count);
    if count > limits.max_pages {
        return Err(FormatError::OverLimit {
            format: Format::Pdf,
            reason: format!("{count} pages, more than the {} allowed", limits.max_pages),
        });
    }
    // Labels are a number tree in the catalog: cheap, read once. A broken
    // tree only loses the labels, not the text.
    let labels = PageLabelExtractor::extract(&doc).unwrap_or_default();
    let mut book = PagedText::new();
    let mut unreadable = Vec::new();
    let mut has_text = false;
    for index in 0..count {
        if watch.stopped() {
            // Over its time: the watcher has answered for this file, and
            // nobody reads this.
            return Err(damaged("abandoned".into()));
        }
        book.start_page(label(&labels, index), None);
        match doc.extract_text(index) {
            Ok(raw) => {
                let start = book.text().len();
                clean::push_page(&raw, book.text_mut());
                has_text |= clean::letters(&book.text()[start..]) >= MIN_LETTERS;
            }
            Err(e) => unreadable.push((index, e.to_string())),
        }
    }
    if !unreadable.is_empty() && unreadable.len() == count {
        let (_, reason) = &unreadable[0];
        return Err(damaged(format!("no page could be read ({reason})")));
    }
    if !has_text {
        return Err(FormatError::NoTextLayer);
    }
    let left_out = unreadable
        .iter()
        .map(|(index, reason)| format!("the text of page {} (unreadable: {reason})", index + 1))
        .collect();
    let (text, pages) = book.finish();
    Ok(Book {
        format: Format::Pdf,
        gzipped: false,
        text,
        pages,
        left_out,
        confidence: None,
    })
}

/// The page's label when the PDF gives labels; `None` (its number) when
/// it does not.
fn label(ranges: &[PageLabelRange], index: usize) -> Option<String> {
    if ranges.is_empty() {
        return None;
    }
    Some(PageLabelExtractor::get_label(ranges, index))
}

fn damaged(reason: String) -> FormatError {
    FormatError::Damaged {
        format: Format::Pdf,
        reason,
    }
}

#[cfg(test)]
mod tests;
