//! Hostile input to the XML readers and to gzip: entity expansion,
//! external entities, deep nesting, truncation, a huge single line, gzip
//! bombs and nested gzips. Each reads within bounds or fails with a
//! reason; none hangs or balloons.

use std::io::Write as _;

use doppel_formats::{read, Book, Format, FormatError, Limits, Read};
use flate2::{write::GzEncoder, Compression};

fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn book(bytes: impl Into<Vec<u8>>) -> Book {
    match read(bytes.into(), &Limits::default()) {
        Ok(Read::Book(book)) => book,
        other => panic!("not a book: {other:?}"),
    }
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::best());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

#[test]
fn billion_laughs_is_never_expanded() {
    let mut dtd = String::from("<!DOCTYPE TEI [\n<!ENTITY lol0 \"lol\">\n");
    for i in 1..10 {
        let refs = format!("&lol{};", i - 1).repeat(10);
        dtd.push_str(&format!("<!ENTITY lol{i} \"{refs}\">\n"));
    }
    dtd.push_str("]>\n");
    let tei = format!("{dtd}<TEI><text><p>Before &lol9; after.</p></text></TEI>");
    let book = book(tei.clone());
    assert_eq!(book.text, "Before after.", "the reference is left out");
    assert_eq!(
        book.left_out,
        ["1 reference to an undefined entity (&lol9;, not expanded)"]
    );
    // The same in ALTO, in an attribute: kept as written, not expanded.
    let alto = format!("{dtd}<alto><Layout><Page><TextBlock><TextLine><String CONTENT=\"&lol9;\"/><String CONTENT=\"ok\"/></TextLine></TextBlock></Page></Layout></alto>");
    assert_eq!(book_text(alto), "&lol9; ok");
}

fn book_text(bytes: impl Into<Vec<u8>>) -> String {
    book(bytes).text
}

#[test]
fn external_entities_are_never_fetched() {
    let hocr = "<?xml version=\"1.0\"?>\n<!DOCTYPE html [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]>\n\
        <html><body><div class='ocr_page'><span class='ocrx_word'>a&xxe;b</span></div></body></html>";
    let book = book(hocr);
    assert_eq!(book.text, "ab");
    assert_eq!(
        book.left_out,
        ["1 reference to an undefined entity (&xxe;, not expanded)"]
    );
}

#[test]
fn nesting_deeper_than_the_limit_is_over_it() {
    let depth = 5_000;
    let tei = format!(
        "<TEI><text><body>{}deep{}</body></text></TEI>",
        "<hi>".repeat(depth),
        "</hi>".repeat(depth)
    );
    let err = read(tei.into_bytes(), &Limits::default()).unwrap_err();
    assert!(
        matches!(
            err,
            FormatError::OverLimit {
                format: Format::Tei,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .starts_with("TEI over a limit: elements nested deeper than 1000 (at line 1, column "),
        "{err}"
    );
    let shallow = Limits {
        max_depth: 4,
        ..Limits::default()
    };
    let alto = fixture("austen.alto.xml");
    assert!(matches!(
        read(alto, &shallow),
        Err(FormatError::OverLimit {
            format: Format::Alto,
            ..
        })
    ));
}

#[test]
fn a_truncated_file_is_damaged_with_the_place_it_ends() {
    let alto = fixture("austen.alto.xml");
    let cut = &alto[..alto.len() / 2];
    let line = cut.iter().filter(|&&b| b == b'\n').count() + 1;
    let err = read(cut.to_vec(), &Limits::default()).unwrap_err();
    assert!(
        matches!(
            err,
            FormatError::Damaged {
                format: Format::Alto,
                ..
            }
        ),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(
        message.contains(&format!("line {line}, column")),
        "{message}"
    );
    // Cut between elements, it ends inside the open ones.
    let tei = "<TEI><text><body><p>Some text</p>\n<p>more";
    let err = read(tei.into(), &Limits::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "damaged TEI: the file ends inside <p> at line 2, column 8 (byte 41): it looks truncated"
    );
}

#[test]
fn megabytes_on_one_line_read_in_one_pass() {
    // 5 MB of ALTO on a single line, and the same words as TEI.
    let word = "<String CONTENT=\"word\" WC=\"0.5\"/><SP/>";
    let count = 5_000_000 / word.len();
    let alto = format!(
        "<alto><Layout><Page><TextBlock><TextLine>{}</TextLine></TextBlock></Page></Layout></alto>",
        word.repeat(count)
    );
    assert!(alto.len() > 5_000_000 && !alto.contains('\n'));
    let book = book(alto);
    assert_eq!(book.text.len(), count * 5 - 1);
    assert_eq!(book.text.split(' ').count(), count);
    assert_eq!(book.confidence, Some(0.5));
    let tei = format!(
        "<TEI><text><p>{}</p></text></TEI>",
        "word &amp; ".repeat(count)
    );
    assert_eq!(book_text(tei).split(' ').count(), 2 * count);
}

#[test]
fn a_gzipped_book_reads_as_the_book_and_says_so() {
    let alto = fixture("austen.alto.xml");
    let plain = book(alto.clone());
    let gzipped = book(gzip(&alto));
    assert!(gzipped.gzipped);
    assert_eq!(gzipped.format, Format::Alto);
    assert_eq!(gzipped.text, plain.text);
    assert_eq!(gzipped.pages, plain.pages);
    let text = fixture("austen.txt");
    assert_eq!(
        read(gzip(&text), &Limits::default()),
        Ok(Read::Plain(text)),
        "a gzipped plain text is its text"
    );
}

#[test]
fn a_gzip_bomb_is_over_the_limit_with_its_numbers() {
    let bomb = gzip(&vec![b' '; 2 << 20]);
    let err = read(bomb.clone(), &Limits::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "gzip over a limit: its {} bytes expand more than 200 times (past {} bytes): a gzip bomb?",
            bomb.len(),
            bomb.len() * 200
        )
    );
    let small = Limits {
        max_expanded_bytes: 500,
        ..Limits::default()
    };
    let err = read(gzip(&fixture("austen.txt")), &small).unwrap_err();
    assert_eq!(
        err.to_string(),
        "gzip over a limit: it expands past 500 bytes, the most doppel unpacks"
    );
}

#[test]
fn a_gzip_inside_a_gzip_or_a_truncated_gzip_is_refused() {
    let twice = gzip(&gzip(b"<TEI><text><p>x</p></text></TEI>"));
    assert_eq!(
        read(twice, &Limits::default()).unwrap_err().to_string(),
        "gzip: a gzip inside a gzip: doppel unpacks one layer only"
    );
    let whole = gzip(&fixture("austen.hocr"));
    let err = read(whole[..whole.len() / 2].to_vec(), &Limits::default()).unwrap_err();
    assert!(
        matches!(
            err,
            FormatError::Damaged {
                format: Format::Gzip,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .starts_with("damaged gzip: cannot decompress it after "),
        "{err}"
    );
}
