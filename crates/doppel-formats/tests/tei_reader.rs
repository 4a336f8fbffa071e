//! The TEI reader: pandoc's TEI of a short text, and hand-checked P5 and
//! P4 snippets with page breaks, notes, verse and a header.

use doppel_formats::{read, read_with, Book, Format, Limits, Read, ReadOptions};

fn book_with(bytes: impl Into<Vec<u8>>, options: &ReadOptions) -> Book {
    match read_with(bytes.into(), &Limits::default(), options) {
        Ok(Read::Book(book)) => book,
        other => panic!("not a book: {other:?}"),
    }
}

fn book(bytes: impl Into<Vec<u8>>) -> Book {
    book_with(bytes, &ReadOptions::default())
}

#[test]
fn tei_from_pandoc_reads_its_text_not_its_header() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/austen.tei.xml");
    let book = book(std::fs::read(path).unwrap());
    assert_eq!(book.format, Format::Tei);
    assert_eq!(
        book.text,
        "Chapter 1\n\n\
         It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want of a wife.\n\n\
         However little known the feelings or views of such a man may be on his first entering a neighbourhood, this truth is so well fixed in the minds of the surrounding families, that he is considered the rightful property of some one or other of their daughters.\n\n\
         My dear Mr.\u{a0}Bennet, said his lady to him one day, have you heard that Netherfield Park is let at last?\n\n\
         Mr.\u{a0}Bennet replied that he had not.\n\n\
         Mr.\u{a0}Bennet made no answer.",
        "pandoc's no-break space after Mr. is kept (the engine normalizes it)"
    );
    assert_eq!(book.left_out, ["the TEI header"]);
    assert!(book.pages.is_empty(), "no pb: no page map");
    assert_eq!(book.confidence, None);
}

const P5: &str = r##"<?xml version="1.0" encoding="UTF-8"?>
<TEI xmlns="http://www.tei-c.org/ns/1.0">
  <teiHeader><fileDesc><titleStmt><title>Poems, header only</title></titleStmt></fileDesc></teiHeader>
  <text>
    <front><titlePage><docTitle><titlePart>POEMS</titlePart></docTitle></titlePage></front>
    <body>
      <pb n="xii" facs="https://iiif.example.org/iiif/b1/p12/full/max/0/default.jpg"/>
      <div type="poem">
        <head>To a <hi rend="italic">Skylark</hi></head>
        <lg><l>Hail to thee, blithe Spirit!</l>
            <l>Bird thou never wert,</l></lg>
        <p>A prose line<note place="foot">A footnote, <hi>kept</hi>.</note> runs on
        <choice><sic>teh</sic><corr>the</corr></choice> page<lb/>and breaks.</p>
        <pb n="13" facs="p13.png"/>
        <p>Next page &amp; <choice><abbr>Mr</abbr><expan>Mister</expan></choice> Shelley.</p>
        <note>A note between paragraphs.</note>
        <p>End.</p>
        <pb/>
      </div>
    </body>
    <back><div><p>Index.</p></div></back>
  </text>
</TEI>"##;

#[test]
fn tei_p5_pages_start_at_pb_and_notes_follow_their_paragraph() {
    let book = book(P5);
    assert_eq!(
        book.text,
        "POEMS\n\x0c\
         To a Skylark\n\n\
         Hail to thee, blithe Spirit!\nBird thou never wert,\n\n\
         A prose line runs on the page\nand breaks.\n\n\
         A footnote, kept.\n\x0c\
         Next page & Mister Shelley.\n\n\
         A note between paragraphs.\n\n\
         End.\n\x0c\
         Index."
    );
    let pages = book.pages.pages();
    assert_eq!(
        pages.len(),
        4,
        "the front matter before the first pb, then 3"
    );
    assert_eq!(
        (pages[0].label.as_deref(), pages[0].image.as_deref()),
        (None, None)
    );
    assert_eq!(pages[1].label.as_deref(), Some("xii"));
    assert_eq!(
        pages[1].image.as_deref(),
        Some("https://iiif.example.org/iiif/b1/p12/full/max/0/default.jpg")
    );
    assert_eq!(pages[2].label.as_deref(), Some("13"));
    assert_eq!(pages[2].image.as_deref(), Some("p13.png"));
    assert_eq!(book.pages.name(3), "4", "a bare pb: its number");
    assert_eq!(book.left_out, ["the TEI header"]);
    assert!(!book.text.contains("header only"));
}

#[test]
fn tei_notes_can_be_left_out_and_are_counted() {
    let book = book_with(P5, &ReadOptions { keep_notes: false });
    assert!(book
        .text
        .contains("A prose line runs on the page\nand breaks.\n\x0c"));
    assert!(!book.text.contains("note"), "{}", book.text);
    assert_eq!(book.left_out, ["the TEI header", "2 notes"]);
}

#[test]
fn tei_without_text_before_its_first_pb_starts_on_that_page() {
    let tei =
        r#"<TEI><text><body><pb n="1"/><p>One.</p><pb n="2"/><p>Two.</p></body></text></TEI>"#;
    let book = book(tei);
    assert_eq!(book.text, "One.\n\x0cTwo.");
    assert_eq!(book.pages.name(0), "1");
    assert_eq!(
        book.pages.range_name(0..book.text.len()).as_deref(),
        Some("1–2")
    );
    assert!(book.left_out.is_empty());
}

#[test]
fn tei_p4_reads_with_its_iso_entities_and_in_utf16() {
    let p4 = "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n\
        <!DOCTYPE TEI.2 SYSTEM \"tei2.dtd\" [<!ENTITY % ISOlat1 SYSTEM \"iso-lat1.ent\"> %ISOlat1;]>\n\
        <TEI.2><teiHeader><fileDesc/></teiHeader><text><body>\
        <p>Caf&eacute; &mdash; na&iuml;ve&#x2019;s</p><p>Second</p></body></text></TEI.2>";
    let utf16: Vec<u8> = format!("\u{feff}{p4}")
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    for bytes in [p4.as_bytes().to_vec(), utf16] {
        let book = book(bytes);
        assert_eq!(book.text, "Café — naïve’s\n\nSecond");
        assert_eq!(book.left_out, ["the TEI header"]);
    }
}

#[test]
fn tei_in_latin1_reads_by_its_declaration() {
    let mut latin1 = b"<?xml version='1.0' encoding='ISO-8859-1'?><TEI><text><p>".to_vec();
    latin1.extend(b"Caf\xe9 cr\xe8me</p></text></TEI>");
    assert_eq!(book(latin1).text, "Café crème");
    let bom = "\u{feff}<?xml version='1.0' encoding='UTF-8'?><TEI><text><p>Café</p></text></TEI>";
    assert_eq!(book(bom).text, "Café", "UTF-8 with a BOM");
    let mut broken = b"<TEI><text><p>Caf".to_vec();
    broken.extend(b"\xe9</p></text></TEI>");
    let book = match read(broken, &Limits::default()) {
        Ok(Read::Book(book)) => book,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        book.text, "Caf\u{fffd}",
        "a bad byte does not lose the book"
    );
    assert_eq!(
        book.left_out,
        ["bytes that are not valid UTF-8 (shown as \u{fffd})"]
    );
}
