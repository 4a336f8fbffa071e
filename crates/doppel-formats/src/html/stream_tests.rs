//! The stream and html5ever read the same XHTML to the same text, left-out
//! list, first heading and image count; where they would not, the stream
//! gives up.

use std::io::Read as _;

use proptest::prelude::*;

use super::*;
use crate::html::{decode, tree};

/// The stream's reading of `page`, which must exist and equal html5ever's.
fn both(page: &str) -> Extract {
    let limits = Limits::default();
    let streamed = extract(page, &limits).unwrap_or_else(|| panic!("the stream gave up on {page}"));
    let built = tree::extract(page, &limits, Format::Html).unwrap();
    assert_eq!(streamed, built, "{page}");
    streamed
}

/// `body` in an EPUB 3 chapter's XHTML.
fn chapter(body: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE html>\n\
         <html xmlns=\"http://www.w3.org/1999/xhtml\" xmlns:epub=\"http://www.idpf.org/2007/ops\">\n\
         <head>\n  <title>Emma</title>\n  <link rel=\"stylesheet\" href=\"s.css\" />\n</head>\n\
         <body>\n{body}\n</body>\n</html>\n"
    )
}

#[test]
fn the_epub_fixtures_chapters_read_alike() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/formats/emma.epub"
    );
    let mut zip = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
    let mut chapters = 0;
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i).unwrap();
        let name = entry.name().unwrap().to_string();
        if !name.ends_with(".xhtml") {
            continue;
        }
        let mut bytes = Vec::new();
        entry.read_to_end(&mut bytes).unwrap();
        let page = both(&decode(&bytes));
        chapters += 1;
        if name.ends_with("ch002.xhtml") {
            assert!(page
                .text
                .starts_with("CHAPTER I\n\nEmma Woodhouse, handsome, clever, and rich"));
        }
    }
    assert_eq!(chapters, 4, "nav, title page and two chapters");
}

#[test]
fn pandoc_s_html_page_reads_alike() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/formats/emma.html"
    );
    let page = both(&decode(&std::fs::read(path).unwrap()));
    assert!(page
        .text
        .contains("Emma Woodhouse, handsome, clever, and rich"));
}

#[test]
fn html_s_own_readings_of_xhtml_are_kept() {
    // A line end just after `<pre>` is dropped; `</br>` is a second break;
    // a void element's content is its parent's; self-closed elements are
    // empty; entities are HTML's.
    let page = both(&chapter(
        "<pre>\n  kept\n    as is</pre>\
         <p>one<br></br>two<img src=\"a.png\">after</img> the image</p>\
         <div class=\"x\"/><p/><a id=\"n1\"/>\
         <p>caf&eacute;&nbsp;&amp; &#8220;tea&#8221;</p>",
    ));
    assert_eq!(
        page.text,
        "  kept\n    as is\n\none\n\ntwoafter the image\n\ncafé & “tea”"
    );
    assert_eq!(page.images, 1);
}

#[test]
fn what_is_left_out_is_left_out_alike() {
    let page = both(&chapter(
        "<header><p>Site name</p></header><nav epub:type=\"toc\"><ol><li><a href=\"#c\">One</a></li></ol></nav>\
         <section><header><h1>Chapter One</h1></header><p>Text of the chapter.</p>\
         <aside epub:type=\"footnote\" id=\"fn1\"><p>A note, kept.</p></aside>\
         <aside><p>A sidebar.</p></aside></section>\
         <p hidden=\"hidden\">a</p><p aria-hidden=\"true\">b</p><p style=\"display: none\">c</p>\
         <div id=\"cookie-banner\">We use cookies<button>OK</button><script>x()</script></div>\
         <script type=\"text/javascript\">y()</script><style>p {}</style>\
         <footer><p>Released under a licence that every page of the site carries.</p></footer>\
         <p>Released under a licence that every page of the site carries.</p>\
         <svg xmlns=\"http://www.w3.org/2000/svg\"><image width=\"10\" height=\"10\" /></svg>",
    ));
    assert_eq!(
        page.text,
        "Chapter One\n\nText of the chapter.\n\nA note, kept."
    );
    assert_eq!(page.first_heading.as_deref(), Some("Chapter One"));
    assert_eq!(page.images, 1);
    assert!(page
        .left_out
        .words()
        .contains(&"1 passage repeating the page's chrome".to_string()));
}

#[test]
fn the_stream_gives_up_where_html_reads_otherwise() {
    let limits = Limits::default();
    for body in [
        // Not well-formed: html5ever reads on.
        "<p>a & b</p>",
        "<p>open<p>and again</p>",
        // An undefined entity is kept as written; a C1 reference is
        // windows-1252's character.
        "<p>&bogus; here</p>",
        "<p>&#150; dash</p>",
        // A table moves its stray text and elements before itself.
        "<table><tr><td>a</td></tr>stray</table>",
        "<table><tr><td>a</td></tr><p>stray</p></table>",
        // A heading inside a heading closes it.
        "<h1>One <h2>Two</h2></h1>",
        // Raw text: noscript's content is text to html5ever.
        "<nav><noscript><p>menu</p></noscript></nav>",
        "<p>a<textarea>b</textarea></p>",
    ] {
        let page = chapter(body);
        assert!(extract(&page, &limits).is_none(), "{body}");
        // and html5ever reads it: the page is not lost.
        assert!(
            crate::html::extract(&page, &limits, Format::Epub).is_ok(),
            "{body}"
        );
    }
}

/// Words and whitespace, entities among them.
fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "Emma",
            "Woodhouse",
            "handsome,",
            "clever",
            " ",
            "  ",
            "\n",
            "\n  ",
            "\t",
            "&amp;",
            "&nbsp;",
            "&#8220;",
            "&eacute;",
            "&lt;p&gt;",
            "\u{a0}",
            "voilà",
            ".",
        ]),
        0..8,
    )
    .prop_map(|words| words.concat())
}

/// Attributes as books and sites carry them, some of them hiding or
/// marking their element.
fn attrs() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "",
        "",
        "",
        " class=\"calibre1\"",
        " id=\"p12\"",
        " hidden=\"hidden\"",
        " style=\"display:none\"",
        " style=\"font-style: italic\"",
        " aria-hidden=\"true\"",
        " role=\"navigation\"",
        " role=\"doc-endnote\"",
        " epub:type=\"footnote\"",
        " class=\"cookie-notice\"",
    ])
}

/// Inline content: text and phrasing elements; with `renesting`, also
/// those HTML does not nest in themselves (a link in a link).
fn inline(renesting: bool) -> impl Strategy<Value = String> {
    let mut names = vec!["span", "em", "b", "i", "sup", "small"];
    if renesting {
        names.extend(["a", "button"]);
    }
    let leaf = prop_oneof![
        4 => text(),
        1 => Just("<br/>".to_string()),
        1 => Just("<br></br>".to_string()),
        1 => Just("<img src=\"a.png\" alt=\"A\"/>".to_string()),
        1 => Just("<a id=\"x\"/>".to_string()),
    ];
    let element = leaf.prop_recursive(3, 16, 4, move |inner| {
        (
            prop::sample::select(names.clone()),
            attrs(),
            prop::collection::vec(inner, 0..4),
        )
            .prop_map(|(name, attrs, content)| {
                format!("<{name}{attrs}>{}</{name}>", content.concat())
            })
    });
    prop::collection::vec(element, 0..4).prop_map(|parts| parts.concat())
}

/// Flow content: blocks whose content model html5ever builds as written
/// (with `renesting`, also forms in forms and links in links).
fn blocks(renesting: bool) -> impl Strategy<Value = String> {
    let mut names = vec![
        "div",
        "section",
        "article",
        "nav",
        "header",
        "footer",
        "aside",
        "blockquote",
        "main",
    ];
    if renesting {
        names.push("form");
    }
    let leaf = prop_oneof![
        (
            prop::sample::select(vec!["p", "h1", "h2", "h3", "dt", "dd", "figcaption"]),
            attrs(),
            inline(renesting)
        )
            .prop_map(|(name, attrs, content)| format!("<{name}{attrs}>{content}</{name}>")),
        (text(), text()).prop_map(|(a, b)| format!("<pre>\n{a}\n{b}</pre>")),
        prop::collection::vec(inline(renesting), 1..3).prop_map(|cells| {
            let row: String = cells.iter().map(|c| format!("<td>{c}</td>")).collect();
            format!("<table>\n<tbody>\n<tr>{row}</tr>\n<tr>\n{row}</tr></tbody></table>")
        }),
        Just("<hr/>".to_string()),
        Just("<div class=\"x\"/>".to_string()),
        Just("<script>x()</script><style>p {}</style>".to_string()),
        inline(renesting).prop_map(|content| format!("<div>{content}</div>")),
    ];
    let block = leaf.prop_recursive(3, 24, 4, move |inner| {
        let flow = prop::collection::vec(inner, 0..4).prop_map(|b| b.join("\n"));
        prop_oneof![
            (prop::sample::select(names.clone()), attrs(), flow.clone(),)
                .prop_map(|(name, attrs, content)| format!("<{name}{attrs}>{content}</{name}>")),
            prop::collection::vec(flow, 1..3).prop_map(|items| {
                let items: String = items.iter().map(|i| format!("<li>{i}</li>\n")).collect();
                format!("<ul>\n{items}</ul>")
            }),
        ]
    });
    prop::collection::vec(block, 0..6).prop_map(|b| b.join("\n"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn any_chapter_of_well_formed_xhtml_reads_as_html5ever_reads_it(body in blocks(false)) {
        both(&chapter(&body));
    }

    #[test]
    fn where_html_nests_otherwise_the_stream_gives_up_or_agrees(body in blocks(true)) {
        let page = chapter(&body);
        let limits = Limits::default();
        if let Some(streamed) = extract(&page, &limits) {
            prop_assert_eq!(streamed, tree::extract(&page, &limits, Format::Html).unwrap());
        }
    }
}
