//! The ALTO and hOCR readers on Tesseract's own output of two page images
//! (tests/data/make-ocr.sh), and on hand-written snippets of what other tools
//! write (hyphenation marks, printed page numbers, HTML entities).

use doppel_formats::{read, Book, Format, FormatError, Limits, Read};

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

/// The words of `text`, a word hyphenated at a line's end joined to the
/// next (the one difference a reader may make from Tesseract's text).
fn words(text: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut glue = false;
    for word in text.split_whitespace() {
        match words.last_mut() {
            Some(last) if glue => last.push_str(word),
            _ => words.push(word.to_owned()),
        }
        glue = word.ends_with('-');
        if glue {
            words.last_mut().unwrap().pop();
        }
    }
    words
}

fn tesseract_words() -> Vec<String> {
    words(&String::from_utf8(fixture("austen.txt")).unwrap())
}

#[test]
fn alto_from_tesseract_reads_the_words_tesseract_read_page_by_page() {
    let book = book(fixture("austen.alto.xml"));
    assert_eq!(book.format, Format::Alto);
    assert_eq!(words(&book.text), tesseract_words());
    let pages = book.pages.pages();
    assert_eq!(pages.len(), 2, "one page per ALTO Page");
    assert_eq!(pages[0].image.as_deref(), Some("page1.png"));
    assert_eq!(
        pages[1].image, None,
        "ALTO names one image per file: the first page's"
    );
    assert!(pages.iter().all(|p| p.label.is_none()), "no PRINTED_IMG_NR");
    let second = &book.text[pages[1].start..];
    assert!(second.starts_with("CHAPTER I\n\n“My dear Mr. Bennet,”"));
    assert!(book.text[..pages[1].start].ends_with("daughters.\n\n41\n\x0c"));
    assert!(
        book.text
            .contains("\nsuch a man may be on his first entering a neigh-\nbourhood, this"),
        "a line per TextLine, a bare line-end hyphen kept: {}",
        book.text
    );
    let confidence = book.confidence.expect("ALTO WC");
    assert!(confidence > 0.0 && confidence <= 1.0, "{confidence}");
    assert!(book.left_out.is_empty(), "{:?}", book.left_out);
}

#[test]
fn hocr_from_tesseract_reads_what_its_alto_reads_with_each_pages_image() {
    let hocr = book(fixture("austen.hocr"));
    let alto = book(fixture("austen.alto.xml"));
    assert_eq!(hocr.format, Format::Hocr);
    assert_eq!(words(&hocr.text), tesseract_words());
    assert_eq!(hocr.text, alto.text, "same lines, paragraphs and pages");
    let images: Vec<_> = hocr.pages.pages().iter().map(|p| p.image.clone()).collect();
    assert_eq!(
        images,
        [Some("page1.png".to_owned()), Some("page2.png".to_owned())]
    );
    assert_eq!(hocr.pages.name(1), "2", "ppageno gives no label");
    let confidence = hocr.confidence.expect("x_wconf");
    assert!(confidence > 0.0 && confidence <= 1.0, "{confidence}");
    assert!(
        (confidence - alto.confidence.unwrap()).abs() < 0.01,
        "the same engine's confidences"
    );
}

#[test]
fn alto_joins_a_marked_hyphenation_once_on_its_first_line() {
    let alto = r#"<?xml version="1.0" encoding="UTF-8"?>
<a:alto xmlns:a="http://www.loc.gov/standards/alto/ns-v2#">
 <a:Description><a:sourceImageInformation><a:fileName>0041.tif</a:fileName></a:sourceImageInformation></a:Description>
 <a:Layout>
  <a:Page ID="P1" PHYSICAL_IMG_NR="45" PRINTED_IMG_NR="41"><a:PrintSpace>
   <a:TextBlock ID="B1">
    <a:TextLine><a:String CONTENT="on" WC="0.9"/><a:SP/><a:String CONTENT="his" WC="0.8"/><a:SP/><a:String CONTENT="neigh" SUBS_TYPE="HypPart1" SUBS_CONTENT="neighbourhood" WC="0.7"/><a:HYP CONTENT="¬"/></a:TextLine>
    <a:TextLine><a:String CONTENT="bourhood," SUBS_TYPE="HypPart2" SUBS_CONTENT="neighbourhood" WC="0.6"/><a:SP/><a:String CONTENT="Tom &amp; Jerry"/></a:TextLine>
   </a:TextBlock>
   <a:TextBlock ID="B2"><a:TextLine><a:String CONTENT="fam" /><a:HYP CONTENT="-"/></a:TextLine><a:TextLine><a:String CONTENT="ilies"/></a:TextLine></a:TextBlock>
  </a:PrintSpace></a:Page>
  <a:Page PRINTED_IMG_NR=" "><a:PrintSpace/></a:Page>
 </a:Layout>
</a:alto>"#;
    let book = book(alto);
    assert_eq!(
        book.text, "on his neighbourhood,\nTom & Jerry\n\nfam-\nilies\n\x0c",
        "the whole word once, with its second part's comma; an unmarked HYP a hyphen"
    );
    let pages = book.pages.pages();
    assert_eq!(pages[0].label.as_deref(), Some("41"), "PRINTED_IMG_NR");
    assert_eq!(pages[0].image.as_deref(), Some("0041.tif"));
    assert_eq!(pages[1].label, None, "a blank label is none");
    assert_eq!(book.pages.name(1), "2");
    assert_eq!(
        book.confidence,
        Some(0.75),
        "mean WC of the words that have one"
    );
}

#[test]
fn hocr_from_other_tools_reads_html_entities_lines_and_unclosed_meta() {
    // As the Internet Archive writes it: ocrx_line, HTML entities, an
    // unclosed <meta>, unquoted and single-quoted attributes.
    let hocr = r#"<html><head><meta charset=utf-8><title>Ignored title</title></head>
<body><div class="ocr_page" title='image "/items/x/x_0007.jp2"; bbox 0 0 2000 3000; ppageno 6'>
<p class="ocr_par"><span class="ocrx_line"><span class="ocrx_word" title="x_wconf 90">Caf&eacute;</span>
<span class=ocrx_word title="x_wconf 70">&amp;&nbsp;Co.</span></span>
<span class="ocrx_line"><span class="ocrx_word" title="x_wconf 80"><em>Ltd</em>&#8230;</span></span></p>
<p class="ocr_par"><span class="ocr_line"><span class="ocrx_word">second</span> <span class="ocrx_word">par</span></span></p>
</div></body></html>"#;
    let book = book(hocr);
    assert_eq!(book.text, "Café &\u{a0}Co.\nLtd…\n\nsecond par");
    assert_eq!(
        book.pages.pages()[0].image.as_deref(),
        Some("/items/x/x_0007.jp2")
    );
    assert_eq!(book.pages.pages()[0].label, None);
    assert_eq!(book.confidence, Some(0.8));
}

#[test]
fn hocr_that_is_not_well_formed_is_damaged_with_the_place() {
    let sloppy = "<html><body><div class='ocr_page'><p class='ocr_par'>one<p class='ocr_par'>two</div></body></html>";
    let err = read(sloppy.into(), &Limits::default()).unwrap_err();
    assert!(
        matches!(
            err,
            FormatError::Damaged {
                format: Format::Hocr,
                ..
            }
        ),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(
        message.starts_with("damaged hOCR: not well-formed XHTML (</div> closes <p> at line 1")
            && message.ends_with("doppel reads hOCR as XHTML, as Tesseract writes it"),
        "{message}"
    );
}
