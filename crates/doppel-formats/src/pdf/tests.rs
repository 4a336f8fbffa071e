//! The PDF reader on PDFs made by the real tools (tests/data/pdf/make.sh):
//! a Tesseract searchable PDF, a Chromium print, a scan without OCR,
//! encrypted and truncated files; and a 10,000-page PDF written here.

use pdf_oxide::writer::{PageLabelsBuilder, PdfWriter};
use similar::{capture_diff_slices, diff_ratio, Algorithm};

use std::time::Duration;

use super::watch::deadline;
use crate::{read, Book, Format, FormatError, Limits, Read, PAGE_BREAK};

const TESSERACT: &[u8] = include_bytes!("../../tests/data/pdf/tesseract.pdf");
const TESSERACT_POPPLER: &str = include_str!("../../tests/data/pdf/tesseract.pdftotext.txt");
const BORN_DIGITAL: &[u8] = include_bytes!("../../tests/data/pdf/born-digital.pdf");
const BORN_DIGITAL_POPPLER: &str = include_str!("../../tests/data/pdf/born-digital.pdftotext.txt");

fn book(bytes: &[u8], limits: &Limits) -> Result<Book, FormatError> {
    match read(bytes.to_vec(), limits)? {
        Read::Book(book) => Ok(book),
        Read::Plain(_) => panic!("a PDF is read as a book"),
    }
}

/// The share of words the same and in the same order (2·matches / both).
fn word_ratio(reference: &str, ours: &str) -> f32 {
    let a: Vec<&str> = reference.split_whitespace().collect();
    let b: Vec<&str> = ours.split_whitespace().collect();
    diff_ratio(
        &capture_diff_slices(Algorithm::Myers, &a, &b),
        a.len(),
        b.len(),
    )
}

fn pages(book: &Book) -> Vec<&str> {
    book.text.split(PAGE_BREAK).collect()
}

#[test]
fn a_tesseract_searchable_pdf_reads_as_pdftotext_does_page_by_page() {
    let book = book(TESSERACT, &Limits::default()).unwrap();
    assert_eq!(book.format, Format::Pdf);
    let ratio = word_ratio(TESSERACT_POPPLER, &book.text);
    assert!(ratio >= 0.9, "words like pdftotext's: {ratio}");
    assert_eq!(book.pages.pages().len(), 3);
    let pages = pages(&book);
    assert_eq!(pages.len(), 3);
    for (i, page) in pages.iter().enumerate() {
        assert!(
            page.starts_with("PERSUASION"),
            "running head first: {page:.40}"
        );
        assert_eq!(book.pages.name(i), (i + 1).to_string(), "no /PageLabels");
    }
    // Each page goes on where the one before stopped.
    assert!(pages[0].contains("Sir Walter Elliot, of Kellynch Hall"));
    assert!(pages[0].ends_with("Charles, son and heir of"));
    assert!(pages[1].starts_with("PERSUASION\n\nCharles Musgrove, Esq."));
    assert!(pages[2].starts_with("PERSUASION\n\nobject of his warmest respect"));
    assert!(book.left_out.is_empty());
}

#[test]
fn a_born_digital_pdf_spells_out_its_ligatures() {
    let book = book(BORN_DIGITAL, &Limits::default()).unwrap();
    assert_eq!(book.pages.pages().len(), 10);
    let ratio = word_ratio(BORN_DIGITAL_POPPLER, &book.text);
    assert!(ratio >= 0.95, "words like pdftotext's: {ratio}");
    // DejaVu Serif's ligature glyphs map to U+FB00–FB02 in the PDF.
    assert!(!book.text.contains(['\u{FB00}', '\u{FB01}', '\u{FB02}']));
    assert!(book.text.contains("in the first year of"), "ﬁ");
    assert!(book.text.contains("domestic affairs"), "ﬀ");
    assert!(!book.text.contains(['\u{0}', '\u{AD}']));
    assert!(book.text.starts_with("Chapter 1"));
}

#[test]
fn a_scan_without_ocr_says_to_run_ocr() {
    let bytes = include_bytes!("../../tests/data/pdf/image-only.pdf");
    let err = book(bytes, &Limits::default()).unwrap_err();
    assert_eq!(err, FormatError::NoTextLayer);
    assert_eq!(
        err.to_string(),
        "scanned PDF without a text layer: run OCR on it first (for example ocrmypdf)"
    );
}

#[test]
fn a_pdf_locked_by_a_password_is_refused_one_with_only_an_owner_password_is_read() {
    let bytes = include_bytes!("../../tests/data/pdf/encrypted.pdf");
    let err = book(bytes, &Limits::default()).unwrap_err();
    assert_eq!(
        err,
        FormatError::Encrypted {
            format: Format::Pdf
        }
    );
    assert_eq!(
        err.to_string(),
        "encrypted PDF: doppel cannot read it without its password"
    );

    let bytes = include_bytes!("../../tests/data/pdf/encrypted-empty-user.pdf");
    let opened = book(bytes, &Limits::default()).unwrap();
    let plain = book(BORN_DIGITAL, &Limits::default()).unwrap();
    assert_eq!(opened.text, plain.text, "AES-256, empty user password");
}

#[test]
fn a_truncated_or_garbled_pdf_is_damaged_with_the_reason() {
    let bytes = include_bytes!("../../tests/data/pdf/truncated.pdf");
    let err = book(bytes, &Limits::default()).unwrap_err();
    assert!(
        matches!(
            err,
            FormatError::Damaged {
                format: Format::Pdf,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "damaged PDF: Invalid cross-reference table"
    );

    let mut garbled = b"%PDF-1.7\n".to_vec();
    garbled.extend((0..4000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8));
    let err = book(&garbled, &Limits::default()).unwrap_err();
    assert!(err.to_string().starts_with("damaged PDF: "), "{err}");
}

#[test]
fn junk_before_the_header_is_skipped_as_acrobat_and_pdftotext_do() {
    let plain = book(BORN_DIGITAL, &Limits::default()).unwrap();
    // A MacBinary-like binary header, and a web server's error page.
    let binary: Vec<u8> = (0..300u32).map(|i| (i * 37 % 256) as u8).collect();
    let html = b"<html><body>502 Bad Gateway</body></html>\r\n".repeat(20);
    for junk in [binary, html] {
        let mut bytes = junk.clone();
        bytes.extend_from_slice(BORN_DIGITAL);
        assert_eq!(
            crate::detect(&bytes),
            Format::Pdf,
            "{} bytes before",
            junk.len()
        );
        let read = book(&bytes, &Limits::default()).unwrap();
        assert_eq!(read.text, plain.text, "{} bytes before", junk.len());
        assert_eq!(read.pages, plain.pages);
    }
}

/// A PDF of `n` pages, the first four labelled i–iv, then 1, 2, …
fn long_pdf(n: usize) -> Vec<u8> {
    let mut writer = PdfWriter::new();
    for i in 1..=n {
        writer.add_page(300.0, 400.0).add_text(
            &format!("Leaf {i} of the long book"),
            40.0,
            300.0,
            "Helvetica",
            12.0,
        );
    }
    writer.set_page_labels(PageLabelsBuilder::new().roman_lower(0).decimal(4));
    writer.finish().unwrap()
}

#[test]
fn ten_thousand_pages_are_read_a_page_at_a_time_or_refused_over_the_limit() {
    // The designed behaviour: the default limit (100,000 pages) reads it,
    // a page at a time; a tighter limit refuses it before any page is read.
    let bytes = long_pdf(10_000);
    let book = book(&bytes, &Limits::default()).unwrap();
    assert_eq!(book.pages.pages().len(), 10_000);
    let pages = pages(&book);
    assert_eq!(pages[0], "Leaf 1 of the long book");
    assert_eq!(pages[9_999], "Leaf 10000 of the long book");
    assert_eq!(book.pages.name(0), "i", "/PageLabels");
    assert_eq!(book.pages.name(3), "iv");
    assert_eq!(book.pages.name(4), "1");
    assert_eq!(book.pages.name(9_999), "9996");

    let limits = Limits {
        max_pages: 5_000,
        ..Limits::default()
    };
    let err = crate::read(bytes, &limits).unwrap_err();
    assert_eq!(
        err.to_string(),
        "PDF over a limit: 10000 pages, more than the 5000 allowed"
    );
}

#[test]
fn the_time_a_pdf_may_take_grows_with_its_size_and_pages() {
    assert_eq!(deadline(0, 0), Duration::from_secs(30));
    assert_eq!(
        deadline(50_000_000, 1_000),
        Duration::from_secs(30 + 50 + 100)
    );
}

#[test]
fn a_pdf_over_its_time_is_over_a_limit_and_its_reader_left_behind() {
    // 500 pages take seconds in a debug build: far over 10 ms.
    let bytes = long_pdf(500);
    let err = super::read_within(bytes, &Limits::default(), |_, _| Duration::from_millis(10))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "PDF over a limit: reading it took over 0 s; it may be damaged"
    );
}
