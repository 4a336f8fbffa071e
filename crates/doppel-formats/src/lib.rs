//! Books as curators hold them: a file's bytes become a book's text and
//! its page map, or a reason they cannot.
//!
//! This is the layer below the engine's text pipeline. [`read`] looks at
//! the content (magic bytes, the root element of XML, an EPUB's
//! `mimetype`), never the extension alone, and either hands the bytes back
//! untouched ([`Read::Plain`]: plain text, or a format this crate does not
//! know, decoded and judged by the engine as before) or reads them into a
//! [`Book`]: UTF-8 text whose pages are joined by form feeds
//! ([`pages::PAGE_BREAK`]) so the engine's page furniture sees them, plus a
//! [`PageMap`] naming each page. Everything after (furniture, boilerplate,
//! fingerprints, the diff) works on that text as on any other.
//!
//! Every reader is bounded ([`Limits`]): archives by their expanded size
//! and ratio, XML by its depth and without DTD entity expansion, PDFs a
//! page at a time. A file it cannot read is a [`FormatError`] whose
//! message is the reason a curator reads in the skipped list.

mod alto;
mod archive;
mod caught;
pub mod detect;
pub mod epub;
mod gzip;
mod hocr;
pub mod html;
mod page_files;
pub mod page_folder;
pub mod page_zip;
pub mod pages;
mod pdf;
mod tei;
mod xml;
mod xml_walk;

pub use caught::panic_is_caught;
pub use detect::{detect, Format};
pub use pages::{Page, PageMap, PagedText, PAGE_BREAK};

/// A book read from a structured format.
#[derive(Debug, Clone, PartialEq)]
pub struct Book {
    /// The format it was read from.
    pub format: Format,
    /// Whether it was gzip-compressed.
    pub gzipped: bool,
    /// The text, pages joined by [`PAGE_BREAK`].
    pub text: String,
    /// Where each page starts, its label and image.
    pub pages: PageMap,
    /// What the reader left out of the text on purpose, in words a
    /// curator reads in the document's facts (`"3 scripts"`, `"site
    /// navigation"`, `"the TEI header"`).
    pub left_out: Vec<String>,
    /// The mean word confidence the OCR engine gave, from 0 to 1, when the
    /// format records it (ALTO `WC`, hOCR `x_wconf`).
    pub confidence: Option<f32>,
}

/// What [`read`] made of a file's bytes.
#[derive(Debug, Clone, PartialEq)]
pub enum Read {
    /// Not a structured format: the bytes, untouched, for the engine to
    /// decode as text (or refuse as binary) as it always has.
    Plain(Vec<u8>),
    /// A book read from a structured format.
    Book(Book),
}

/// The bounds every reader keeps, whatever the input claims.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The most bytes an archive (zip, EPUB, gzip) may expand to, all its
    /// entries together.
    pub max_expanded_bytes: u64,
    /// The most an archive may expand to per byte it has (a zip bomb
    /// expands thousands of times).
    pub max_expansion_ratio: u64,
    /// The deepest an XML or HTML element may be nested.
    pub max_depth: usize,
    /// The most pages a book may have.
    pub max_pages: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_expanded_bytes: 1 << 30,
            max_expansion_ratio: 200,
            max_depth: 1_000,
            max_pages: 100_000,
        }
    }
}

/// Why a file in a structured format gives no text: the reason the
/// skipped list shows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    /// A PDF whose pages are images only.
    #[error("scanned PDF without a text layer: run OCR on it first (for example ocrmypdf)")]
    NoTextLayer,
    /// An encrypted document doppel cannot open.
    #[error("encrypted {format}: doppel cannot read it without its password")]
    Encrypted {
        /// The format ("PDF", "EPUB").
        format: Format,
    },
    /// The file is damaged or not what its first bytes say.
    #[error("damaged {format}: {reason}")]
    Damaged {
        /// The format it claims to be.
        format: Format,
        /// What is wrong, in words.
        reason: String,
    },
    /// The file goes over one of the [`Limits`].
    #[error("{format} over a limit: {reason}")]
    OverLimit {
        /// The format.
        format: Format,
        /// Which limit, and by how much.
        reason: String,
    },
    /// The file holds pages of more than one format, or nothing readable.
    #[error("{format}: {reason}")]
    Unusable {
        /// The format.
        format: Format,
        /// Why.
        reason: String,
    },
}

/// What a curator chooses to count as a book's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOptions {
    /// Whether notes (TEI `note`) are kept: a note inside a paragraph
    /// follows the paragraph, one between paragraphs stays where it is.
    /// Kept by default; when dropped, `left_out` counts them.
    pub keep_notes: bool,
}

impl Default for ReadOptions {
    fn default() -> Self {
        Self { keep_notes: true }
    }
}

/// Read `bytes` as the format their content shows, within `limits`.
pub fn read(bytes: Vec<u8>, limits: &Limits) -> Result<Read, FormatError> {
    match detect(&bytes) {
        Format::Alto => alto::read(&bytes, limits).map(Read::Book),
        Format::Hocr => hocr::read(&bytes, limits).map(Read::Book),
        Format::Tei => tei::read(&bytes, limits, &ReadOptions::default()).map(Read::Book),
        Format::Gzip => gzip::read(&bytes, limits, &ReadOptions::default()),
        Format::Html => html::read(&bytes, limits).map(Read::Book),
        Format::Epub => epub::read(&bytes, limits).map(Read::Book),
        Format::PageZip => page_zip::read(bytes, limits),
        Format::PageFolder => page_folder::read(&bytes, limits).map(Read::Book),
        Format::Pdf => pdf::read(bytes, limits).map(Read::Book),
        Format::Text => Ok(Read::Plain(bytes)),
    }
}

/// [`read`], with the curator's `options`.
pub fn read_with(
    bytes: Vec<u8>,
    limits: &Limits,
    options: &ReadOptions,
) -> Result<Read, FormatError> {
    match detect(&bytes) {
        Format::Tei => tei::read(&bytes, limits, options).map(Read::Book),
        Format::Gzip => gzip::read(&bytes, limits, options),
        _ => read(bytes, limits),
    }
}
