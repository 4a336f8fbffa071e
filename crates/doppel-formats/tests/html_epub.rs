//! The HTML and EPUB readers on files made by pandoc from a chapter of
//! Austen (tests/data/make-html-epub.sh), and a hand-written web page.

use doppel_formats::{read, Book, Format, FormatError, Limits, Read, PAGE_BREAK};

fn data(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn book(name: &str) -> Book {
    match read(data(name), &Limits::default()) {
        Ok(Read::Book(book)) => book,
        other => panic!("{name}: {other:?}"),
    }
}

/// The words of a text: runs of letters and digits, lowercased (markup
/// syntax, smart quotes and dashes are not words).
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The source markdown's words: its title block's title and author, then
/// its text.
fn source_words() -> Vec<String> {
    let md = String::from_utf8(data("persuasion.md")).unwrap();
    let body = md.splitn(3, "---").nth(2).unwrap();
    let mut expected = words("Persuasion Jane Austen");
    expected.extend(words(body));
    expected
}

#[test]
fn an_epub_reads_as_its_source_text_a_page_per_chapter_titled() {
    for name in ["persuasion-epub3.epub", "persuasion-epub2.epub"] {
        let book = book(name);
        assert_eq!(book.format, Format::Epub);
        assert_eq!(words(&book.text), source_words(), "{name}");
        let labels: Vec<String> = (0..book.pages.pages().len())
            .map(|i| book.pages.name(i))
            .collect();
        // The title page (its heading), then the chapters in spine order,
        // titled by the table of contents.
        assert_eq!(
            labels,
            ["Persuasion", "Chapter 1", "Chapter 2", "Chapter 3"],
            "{name}"
        );
        let chapter2 = book.pages.pages()[2].start;
        assert!(book.text[chapter2..].starts_with("Chapter 2\n\nMr Shepherd, a civil"));
        assert!(book.text[..chapter2].ends_with(PAGE_BREAK));
        assert!(
            book.left_out.iter().any(|w| w == "the navigation document")
                || book
                    .left_out
                    .iter()
                    .any(|w| w == "the NCX table of contents"),
            "{name}: {:?}",
            book.left_out
        );
        assert!(!book.text.contains('<'), "no markup left");
    }
}

#[test]
fn an_epub_cover_page_is_left_out_and_said() {
    let book = book("persuasion-cover.epub");
    assert_eq!(words(&book.text), source_words());
    assert!(
        book.left_out.contains(&"the cover page".to_string()),
        "{:?}",
        book.left_out
    );
    assert_eq!(book.pages.pages().len(), 4);
}

#[test]
fn an_epub_with_drm_is_encrypted() {
    let error = read(data("encrypted.epub"), &Limits::default()).unwrap_err();
    assert_eq!(
        error,
        FormatError::Encrypted {
            format: Format::Epub
        }
    );
    assert!(error.to_string().contains("encrypted EPUB"));
}

#[test]
fn a_truncated_epub_is_damaged() {
    let mut bytes = data("persuasion-epub3.epub");
    bytes.truncate(bytes.len() / 2);
    match read(bytes, &Limits::default()) {
        Err(FormatError::Damaged {
            format: Format::Epub,
            reason,
        }) => {
            assert!(reason.contains("zip"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_epub_over_the_size_limit_stops_while_inflating() {
    let limits = Limits {
        max_expanded_bytes: 2_000,
        ..Limits::default()
    };
    match read(data("persuasion-epub3.epub"), &limits) {
        Err(FormatError::OverLimit { reason, .. }) => assert!(reason.contains("2000"), "{reason}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_pandoc_html_page_reads_as_its_source_text_without_pages() {
    let book = book("persuasion.html");
    assert_eq!(book.format, Format::Html);
    assert!(book.pages.is_empty(), "one HTML page has no page map");
    // pandoc -s puts the title block in a page-level <header>.
    let mut expected = source_words();
    expected.drain(..3);
    assert_eq!(words(&book.text), expected);
    assert!(book.left_out.contains(&"page header".to_string()));
    assert!(book
        .text
        .contains("\n\nChapter 2\n\nMr Shepherd, a civil, cautious lawyer,"));
}

#[test]
fn a_web_page_reads_as_its_article_only() {
    let book = book("webpage.html");
    let all = words(&String::from_utf8(data("webpage.html")).unwrap());
    let read = words(&book.text);
    assert!(
        all.len() > 330,
        "the page has {} words with its markup",
        all.len()
    );
    // The heading and the article's paragraph: 114 of the page's words.
    assert_eq!(read.len(), 114, "{}", book.text);
    assert!(book
        .text
        .starts_with("Persuasion\n\nSir Walter Elliot, of Kellynch Hall"));
    assert!(book.text.ends_with("the favourite volume always opened."));
    for gone in [
        "Home",
        "cookies",
        "Copyright",
        "Subscribe",
        "Share",
        "dataLayer",
        "Emma",
    ] {
        assert!(!book.text.contains(gone), "{gone} left in: {}", book.text);
    }
    assert_eq!(
        book.left_out,
        [
            "3 scripts",
            "site navigation",
            "page header",
            "page footer",
            "1 sidebar",
            "cookie notice",
            "1 hidden element"
        ]
    );
}

/// The site's licence paragraph, which every page of the web family
/// carries in its footer.
const LICENCE: &str = "The books in The Lantern Reading Room are in the public domain";

#[test]
fn an_article_that_only_repeats_the_footer_is_chrome_too() {
    let a = book("../../../../tests/data/formats/web/licence-a.html");
    let b = book("../../../../tests/data/formats/web/licence-b.html");
    for (name, book) in [("licence-a", &a), ("licence-b", &b)] {
        assert!(!book.text.contains(LICENCE), "{name}: {}", book.text);
        assert!(
            book.left_out
                .contains(&"1 passage repeating the page's chrome".to_string()),
            "{name}: {:?}",
            book.left_out
        );
    }
    // What is left is each page's own: its title and date line, nothing
    // the two share but the words "Published … Added by the editors".
    assert_eq!(
        a.text,
        "Licence\n\nPublished 9 January 2024 · Added by the editors"
    );
    assert_eq!(
        b.text,
        "Reusing our texts\n\nPublished 12 February 2024 · Added by the editors"
    );
}

#[test]
fn a_site_page_keeps_its_article_beside_the_licence_footer() {
    let book = book("../../../../tests/data/formats/web/page-1.html");
    assert!(book
        .text
        .starts_with("Moby-Dick: Loomings\n\nPublished 3 March 2024"));
    assert!(book.text.contains("Call me Ishmael."));
    assert!(book.text.ends_with("as soon as I can."));
    assert!(!book.text.contains(LICENCE));
    assert!(
        !book.left_out.iter().any(|w| w.contains("repeating")),
        "{:?}",
        book.left_out
    );
}

/// An EPUB 2 of `files` (path, content) after its `mimetype`, stored.
fn epub(files: &[(&str, &str)]) -> Vec<u8> {
    use std::io::Write;
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let stored =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    zip.start_file("mimetype", stored).unwrap();
    zip.write_all(b"application/epub+zip").unwrap();
    for (path, content) in files {
        zip.start_file(*path, stored).unwrap();
        zip.write_all(content.as_bytes()).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

const CONTAINER: &str = r#"<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>"#;

const OPF: &str = r#"<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="2.0"><manifest><item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/></manifest><spine toc="ncx"><itemref idref="c1"/></spine></package>"#;

#[test]
fn an_epub_chapter_with_self_closed_elements_keeps_its_text() {
    let chapter = r#"<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title/><link rel="stylesheet" href="s.css"/></head>
<body><div class="x"/><a id="page7"/><p>Anne was the one.</p><span class="pagebreak"/><p>The next page.</p></body></html>"#;
    let ncx = r#"<?xml version="1.0"?><ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1"><navMap><navPoint id="n1"><navLabel><text>Chapter One</text></navLabel><content src="c1.xhtml"/></navPoint></navMap></ncx>"#;
    let bytes = epub(&[
        ("META-INF/container.xml", CONTAINER),
        ("OEBPS/content.opf", OPF),
        ("OEBPS/toc.ncx", ncx),
        ("OEBPS/c1.xhtml", chapter),
    ]);
    let book = match read(bytes, &Limits::default()) {
        Ok(Read::Book(book)) => book,
        other => panic!("{other:?}"),
    };
    assert_eq!(book.text, "Anne was the one.\n\nThe next page.");
    assert_eq!(book.pages.name(0), "Chapter One");
}

#[test]
fn an_ncx_label_with_character_references_names_its_chapter_in_whole_words() {
    let chapter = r#"<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><body><p>Text.</p></body></html>"#;
    let ncx = r#"<?xml version="1.0"?><ncx xmlns="http://www.daisy.org/z3986/2005/ncx/"><navMap><navPoint id="n1"><navLabel><text>Caf&#233; &amp; Th&#xE9;</text></navLabel><content src="c1.xhtml"/></navPoint></navMap></ncx>"#;
    let bytes = epub(&[
        ("META-INF/container.xml", CONTAINER),
        ("OEBPS/content.opf", OPF),
        ("OEBPS/toc.ncx", ncx),
        ("OEBPS/c1.xhtml", chapter),
    ]);
    let book = match read(bytes, &Limits::default()) {
        Ok(Read::Book(book)) => book,
        other => panic!("{other:?}"),
    };
    assert_eq!(book.pages.name(0), "Café & Thé", "not \"Caf é & Th é\"");
}
