//! Hostile and odd PDFs, written byte by byte here: one that makes
//! pdf_oxide panic (refused as damaged, and nothing printed to stderr),
//! junk before the header, and loops and nesting that could make a reader
//! loop, take forever or overflow its stack (each read in well under a
//! second in a debug build).

use std::process::Command;

use doppel_formats::{read, Book, Format, FormatError, Limits, Read, PAGE_BREAK};

/// A PDF of `objects` (numbered from 1, the first the catalog), its
/// cross-reference table at the right offsets.
fn pdf<O: AsRef<[u8]>>(objects: &[O]) -> Vec<u8> {
    pdf_after(b"", objects, Offsets::FromHeader)
}

/// Where a PDF after junk counts its xref offsets from.
#[derive(Clone, Copy, PartialEq)]
enum Offsets {
    FromHeader,
    FromFileStart,
}

/// A PDF of `objects` after `junk`.
fn pdf_after<O: AsRef<[u8]>>(junk: &[u8], objects: &[O], offsets_from: Offsets) -> Vec<u8> {
    let mut out = junk.to_vec();
    out.extend(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n");
    let base = match offsets_from {
        Offsets::FromHeader => junk.len(),
        Offsets::FromFileStart => 0,
    };
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len() - base);
        out.extend(format!("{} 0 obj\n", i + 1).as_bytes());
        out.extend(body.as_ref());
        out.extend(b"\nendobj\n");
    }
    let xref = out.len() - base;
    let size = objects.len() + 1;
    out.extend(format!("xref\n0 {size}\n0000000000 65535 f \n").as_bytes());
    for offset in offsets {
        out.extend(format!("{offset:010} 00000 n \n").as_bytes());
    }
    out.extend(
        format!("trailer\n<< /Size {size} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n").as_bytes(),
    );
    out
}

/// A stream object of `dict` entries and `data`.
fn stream(dict: &str, data: &str) -> String {
    format!(
        "<< {dict} /Length {} >>\nstream\n{data}\nendstream",
        data.len()
    )
}

/// A one-page PDF whose page draws `content` (object 4) in Helvetica
/// (object 5), with `more` objects after those.
fn one_page(content: String, resources: &str, more: &[String]) -> Vec<u8> {
    pdf(&one_page_objects(content, resources, more))
}

/// The objects of [`one_page`].
fn one_page_objects(content: String, resources: &str, more: &[String]) -> Vec<String> {
    let mut objects = vec![
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 400] /Contents 4 0 R \
             /Resources << /Font << /F1 5 0 R >> {resources} >> >>"
        ),
        content,
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_string(),
    ];
    objects.extend_from_slice(more);
    objects
}

const LINE: &str = "The quick brown fox jumps over the lazy dog";

fn show(text: &str) -> String {
    format!("BT /F1 12 Tf 40 300 Td ({text}) Tj ET")
}

fn text_of(bytes: Vec<u8>) -> Result<String, FormatError> {
    book_of(bytes).map(|book| book.text)
}

fn book_of(bytes: Vec<u8>) -> Result<Book, FormatError> {
    match read(bytes, &Limits::default())? {
        Read::Book(book) => Ok(book),
        Read::Plain(_) => panic!("a PDF is read as a book"),
    }
}

/// A page whose content stream's TIFF predictor (`/Predictor 2`) has
/// more colours than a row has bytes: pdf_oxide 0.3.78 indexes past the
/// row (`decoders/predictor.rs`) and panics.
fn panicking_pdf() -> Vec<u8> {
    let hex: String = show(LINE).bytes().map(|b| format!("{b:02x}")).collect();
    let params = "/Filter /ASCIIHexDecode \
                  /DecodeParms << /Predictor 2 /Colors 4 /BitsPerComponent 1 /Columns 1 >>";
    one_page(stream(params, &format!("{hex}>")), "", &[])
}

#[test]
fn the_builder_writes_a_pdf_that_reads() {
    assert_eq!(
        text_of(one_page(stream("", &show(LINE)), "", &[])),
        Ok(LINE.to_owned())
    );
}

#[test]
fn junk_before_the_header_reads_whether_offsets_count_from_it_or_from_the_start() {
    let junk = b"\0\x11MacBinary II junk\r\n".repeat(30);
    for offsets in [Offsets::FromHeader, Offsets::FromFileStart] {
        let objects = one_page_objects(stream("", &show(LINE)), "", &[]);
        let bytes = pdf_after(&junk, &objects, offsets);
        assert_eq!(text_of(bytes), Ok(LINE.to_owned()));
    }
}

#[test]
fn a_pdf_that_makes_the_reader_panic_is_damaged_with_the_reason() {
    let err = text_of(panicking_pdf()).unwrap_err();
    assert_eq!(
        err,
        FormatError::Damaged {
            format: Format::Pdf,
            reason: "the PDF reader failed (index out of bounds: the len is 1 but the index is 1)"
                .into()
        }
    );
    assert!(!doppel_formats::panic_is_caught(), "only while reading");
}

/// What the child process does, named by `DOPPEL_HOSTILE_CHILD`.
const CHILD: &str = "DOPPEL_HOSTILE_CHILD";

/// Run this test binary's test `name` alone, output not captured (so a
/// panic message would reach the real stderr), with `CHILD` set to
/// `mode`; its stderr.
fn child_stderr(name: &str, mode: &str) -> String {
    let out = Command::new(std::env::current_exe().unwrap())
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, mode)
        .env_remove("RUST_BACKTRACE")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "the child failed: {stdout}");
    assert!(stdout.contains("1 passed"), "the child ran: {stdout}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// In the child: read the panicking PDF (and, in mode `"loud"`, panic
/// outside the reader too).
#[test]
fn child_reads_the_panicking_pdf() {
    let Ok(mode) = std::env::var(CHILD) else {
        return;
    };
    let err = text_of(panicking_pdf()).unwrap_err();
    assert!(err.to_string().contains("the PDF reader failed"), "{err}");
    if mode == "loud" {
        let elsewhere = std::panic::catch_unwind(|| panic!("a bug elsewhere"));
        assert!(elsewhere.is_err());
    }
}

#[test]
fn a_panic_inside_the_pdf_reader_prints_nothing_one_elsewhere_still_does() {
    let quiet = child_stderr("child_reads_the_panicking_pdf", "quiet");
    assert_eq!(quiet, "", "nothing on stderr");
    let loud = child_stderr("child_reads_the_panicking_pdf", "loud");
    assert!(
        loud.contains("panicked") && loud.contains("a bug elsewhere"),
        "{loud}"
    );
    assert!(!loud.contains("index out of bounds"), "{loud}");
}

#[test]
fn a_page_tree_whose_kids_lead_back_to_an_ancestor_ends() {
    // The root's kids: the page, and a node whose kids are the root and
    // the page again (it claims 3 pages).
    let back = "<< /Type /Pages /Parent 2 0 R /Kids [2 0 R 3 0 R] /Count 2 >>".to_string();
    let mut objects = one_page_objects(stream("", &show(LINE)), "", &[back]);
    objects[1] = "<< /Type /Pages /Kids [3 0 R 6 0 R] /Count 3 >>".into();
    let book = book_of(pdf(&objects)).unwrap();
    let pages: Vec<&str> = book.text.split(PAGE_BREAK).collect();
    assert_eq!(pages[0], LINE);
    assert!(pages[1..].iter().all(|p| p.is_empty()), "{pages:?}");

    // A node that is its own kid.
    let mut objects = one_page_objects(stream("", &show(LINE)), "", &[]);
    objects[1] = "<< /Type /Pages /Kids [3 0 R 2 0 R] /Count 2 >>".into();
    let book = book_of(pdf(&objects)).unwrap();
    assert!(book.text.starts_with(LINE), "{:?}", book.text);
}

/// A Form XObject (`/Subtype /Form`) showing `text`, then drawing the
/// forms `draws` (name, object number) in order.
fn form(text: &str, draws: &[(&str, usize)]) -> String {
    let names: String = draws
        .iter()
        .map(|(n, o)| format!("/{n} {o} 0 R "))
        .collect();
    let calls: String = draws.iter().map(|(n, _)| format!(" /{n} Do")).collect();
    stream(
        &format!(
            "/Type /XObject /Subtype /Form /BBox [0 0 300 400] \
             /Resources << /Font << /F1 5 0 R >> /XObject << {names}>> >>"
        ),
        &format!("{}{calls}", show(text)),
    )
}

#[test]
fn a_form_that_draws_itself_or_its_caller_is_drawn_once() {
    let fm0 = form(LINE, &[("Fm0", 6)]);
    let bytes = one_page(stream("", "/Fm0 Do"), "/XObject << /Fm0 6 0 R >>", &[fm0]);
    assert_eq!(text_of(bytes), Ok(LINE.to_owned()));

    let a = form("alpha", &[("B", 7)]);
    let b = form("beta", &[("A", 6), ("A", 6)]);
    let page = format!("{} /A Do", show(LINE));
    let bytes = one_page(stream("", &page), "/XObject << /A 6 0 R >>", &[a, b]);
    assert_eq!(text_of(bytes), Ok(format!("{LINE}\nalphabeta")));
}

#[test]
fn an_xref_whose_prev_is_itself_ends() {
    let bytes = one_page(stream("", &show(LINE)), "", &[]);
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let at = text.rfind("startxref\n").unwrap() + "startxref\n".len();
    let xref = text[at..].lines().next().unwrap().to_owned();
    let looped = text.replace("/Root 1 0 R >>", &format!("/Root 1 0 R /Prev {xref} >>"));
    assert_ne!(looped, text);
    assert_eq!(text_of(looped.into_bytes()), Ok(LINE.to_owned()));
}

#[test]
fn nesting_five_thousand_deep_reads_on_the_readers_own_stack() {
    // Each overflowed this test's 2 MiB stack (an abort, not a panic)
    // when pdf_oxide ran on the caller's thread.
    let deep = format!("/Deep {}{}", "[".repeat(5_000), "]".repeat(5_000));
    assert_eq!(
        text_of(one_page(stream("", &show(LINE)), &deep, &[])),
        Ok(LINE.to_owned())
    );
    let content = format!(
        "{}{} pop {}",
        "[".repeat(5_000),
        "]".repeat(5_000),
        show(LINE)
    );
    assert_eq!(
        text_of(one_page(stream("", &content), "", &[])),
        Ok(LINE.to_owned())
    );
}
