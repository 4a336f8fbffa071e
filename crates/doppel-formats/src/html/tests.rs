use super::*;

fn text(html: &str) -> String {
    extract(html, &Limits::default(), Format::Html)
        .unwrap()
        .text
}

#[test]
fn blocks_are_paragraphs_and_inline_whitespace_collapses() {
    assert_eq!(
        text("<p>One  <b>bold</b>\n word.</p><div>Two<br>lines</div><ul><li>a</li><li>b</li></ul>"),
        "One bold word.\n\nTwo\nlines\n\na\n\nb"
    );
    assert_eq!(
        text("<pre>  kept\n    as is</pre><p>after</p>"),
        "  kept\n    as is\n\nafter"
    );
    assert_eq!(
        text("<p>caf&eacute; &amp; &#8220;tea&#8221;</p>"),
        "café & “tea”"
    );
    assert_eq!(
        text("<table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table>"),
        "a b\n\nc"
    );
    assert_eq!(text("<p>x<span>y</span> <i> z</i></p>"), "xy z");
    // A no-break space separates words; `à` (0xC3 0xA0) and `Ā` (0xC4
    // 0x80) hold continuation bytes that are no space.
    assert_eq!(
        text("<p>Mr.&nbsp;Bennet\u{a0} <b>\u{a0}voilà</b>\u{a0}Āx</p>"),
        "Mr. Bennet voilà Āx"
    );
    assert_eq!(text("<p> \u{a0}lone\t</p>"), "lone");
}

#[test]
fn what_a_reader_does_not_read_is_left_out_and_said() {
    let page = extract(
        "<html><head><title>T</title><style>p{}</style><script>x()</script></head><body>\
         <header><h1>Site</h1></header><nav><a>Home</a></nav>\
         <article><header><h2>Chapter</h2></header><p>Text.</p></article>\
         <p hidden>a</p><p aria-hidden=\"true\">b</p><p style=\"display: none\">c</p>\
         <div id=\"cookie-banner\">We use cookies<button>OK</button></div>\
         <script>y()</script><footer>(c)</footer></body></html>",
        &Limits::default(),
        Format::Html,
    )
    .unwrap();
    assert_eq!(page.text, "Chapter\n\nText.");
    assert_eq!(page.first_heading.as_deref(), Some("Chapter"));
    assert_eq!(
        page.left_out.words(),
        [
            "2 scripts",
            "1 style sheet",
            "site navigation",
            "page header",
            "page footer",
            "cookie notice",
            "3 hidden elements"
        ]
    );
}

#[test]
fn the_declared_charset_decodes_else_utf8_else_a_guess() {
    let latin1 = b"<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=ISO-8859-1\"></head><body>caf\xe9</body></html>";
    assert!(decode(latin1).contains("café"));
    let meta = b"<meta charset='windows-1252'><p>\x93quoted\x94</p>";
    assert!(decode(meta).contains("“quoted”"));
    assert!(decode("<p>déjà vu</p>".as_bytes()).contains("déjà vu"));
    let bom = b"\xef\xbb\xbf<p>x</p>";
    assert_eq!(decode(bom), "<p>x</p>");
    // Undeclared and not UTF-8: chardetng's guess.
    let guessed = decode(
        b"<p>Il \xe9tait une fois, \xe0 la for\xeat, un \xe9l\xe8ve tr\xe8s appliqu\xe9.</p>",
    );
    assert!(
        guessed.contains("était") && guessed.contains("forêt"),
        "{guessed}"
    );
}

#[test]
fn deep_nesting_past_the_limit_is_over_limit_not_a_stack_overflow() {
    // 100,000 unclosed divs: refused before html5ever builds the tree
    // (whose stack scans would take minutes on it).
    let deep = "<div>".repeat(100_000) + "deep";
    let limits = Limits::default();
    match extract(&deep, &limits, Format::Html) {
        Err(FormatError::OverLimit { reason, .. }) => assert!(reason.contains("1000"), "{reason}"),
        other => panic!("{other:?}"),
    }
    let within = "<span>".repeat(900) + "deep" + &"</span>".repeat(900);
    assert_eq!(text(&within), "deep");
}

#[test]
fn megabytes_on_one_line_are_read() {
    let line = "<p>".to_string() + &"word ".repeat(400_000) + "</p>";
    let out = text(&line);
    assert_eq!(out.split(' ').count(), 400_000);
}

#[test]
fn only_a_whole_long_paragraph_repeating_the_chrome_is_chrome() {
    let licence = "Our transcriptions may be reused under the Creative Commons licence.";
    let motto = "Classic books, free to read.";
    let page = extract(
        &format!(
            "<body><nav><a>Licence</a></nav><main><article><h1>Licence</h1>\
             <blockquote><p>{motto}</p></blockquote>\
             <p>As our footer says, \u{201c}{motto}\u{201d} And so they are.</p>\
             <p>{}</p></article></main>\
             <div hidden><p>As our footer says, \u{201c}{motto}\u{201d} And so they are.</p></div>\
             <footer><p>{motto}</p><p>{licence}</p></footer></body>",
            licence.to_uppercase()
        ),
        &Limits::default(),
        Format::Html,
    )
    .unwrap();
    // The heading the nav repeats and the motto (5 words, under the
    // threshold) stay; the quoting paragraph is no copy of the footer's,
    // and a hidden element's copy says nothing of chrome; the licence
    // (11 words, whatever its case) goes.
    assert_eq!(
        page.text,
        format!(
            "Licence\n\n{motto}\n\nAs our footer says, \u{201c}{motto}\u{201d} And so they are."
        )
    );
    assert_eq!(
        page.left_out.words(),
        [
            "site navigation",
            "page footer",
            "1 hidden element",
            "1 passage repeating the page's chrome"
        ]
    );
    assert_eq!(page.first_heading.as_deref(), Some("Licence"));
}

#[test]
fn xhtml_self_closed_elements_swallow_nothing() {
    let page = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n\
        <html xmlns=\"http://www.w3.org/1999/xhtml\"><head><title/></head>\
        <body><div class=\"x\"/><a id=\"p1\"/><p>The body text.</p>\
        <div class=\"cookie-banner\"/><p>Still the book.<br/>Its next line.</p></body></html>";
    let book = read(page.as_bytes(), &Limits::default()).unwrap();
    assert_eq!(
        book.text,
        "The body text.\n\nStill the book.\nIts next line."
    );
    assert_eq!(
        book.left_out,
        ["cookie notice"],
        "an empty one, nothing in it"
    );
    // The same markup, not XHTML, is read as a browser reads HTML.
    let html = "<!DOCTYPE html><html><body><p>A<br/>b</p><title/>lost</body></html>";
    assert_eq!(text(html), "A\nb");
}
