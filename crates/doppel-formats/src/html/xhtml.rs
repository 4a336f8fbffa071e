//! XHTML's self-closed elements, made plain for html5ever.
//!
//! XHTML is XML: `<title/>` and `<div class="x"/>` are empty elements.
//! html5ever parses as a browser given `text/html` does, where a `/` before
//! `>` means nothing on an element that is not void: `<title/>` opens a
//! title that swallows the page up to a `</title>`, `<div class="x"/>`
//! wraps all that follows. An EPUB's chapters are XHTML, and so are many
//! pages saved from the web. Before html5ever sees such a file, each
//! self-closed element that is not void becomes `<x …></x>`: what a
//! browser shows for the same file served as `application/xhtml+xml`.
//! The self-closed elements are found by quick-xml's tokenizer (comments,
//! CDATA and attribute values holding `/>` are not tags); past a bare `&`
//! it reads on, and where it cannot, the rest is left as it is.

use std::borrow::Cow;

use quick_xml::events::Event;
use quick_xml::Reader;

use crate::xml::is_void;

/// Whether `source` is XHTML: it starts with an XML declaration, or its
/// first KiB declares the XHTML namespace.
pub(super) fn is_xhtml(source: &str) -> bool {
    let mut end = source.len().min(1024);
    while !source.is_char_boundary(end) {
        end -= 1;
    }
    let head = &source[..end];
    head.trim_start_matches('\u{feff}')
        .trim_start()
        .starts_with("<?xml")
        || head.contains("http://www.w3.org/1999/xhtml")
}

/// `source` with each self-closed element that is not void (`<p/>`)
/// written open and closed (`<p></p>`); untouched when it has none.
pub(super) fn expand_self_closed(source: &str) -> Cow<'_, str> {
    let mut reader = Reader::from_str(source);
    reader.config_mut().check_end_names = false;
    let mut out = String::new();
    let mut copied = 0;
    loop {
        let at = reader.buffer_position();
        match reader.read_event() {
            Ok(Event::Empty(e)) => {
                let name = e.name().into_inner().to_owned();
                if is_void(&name) {
                    continue;
                }
                // The event ends with its `/>`.
                let end = reader.buffer_position() as usize;
                let slash = end - 2;
                if source.get(slash..end) != Some("/>") {
                    continue;
                }
                if out.is_empty() {
                    out.reserve(source.len() + 64);
                }
                out.push_str(&source[copied..slash]);
                out.push_str("></");
                out.push_str(&name);
                out.push('>');
                copied = end;
            }
            Ok(Event::Eof) => break,
            // Web pages saved as XHTML are not always well-formed (a bare
            // `&`): read on past an error while the reader moves on.
            Err(_) if reader.buffer_position() > at => {}
            Err(_) => break,
            Ok(_) => {}
        }
    }
    if copied == 0 {
        return Cow::Borrowed(source);
    }
    out.push_str(&source[copied..]);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn self_closed_elements_open_and_close_void_ones_stay() {
        let source = r#"<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title/><meta charset="utf-8"/></head><body><div class="x"/><!-- <p/> --><p title="a/>b">One<br/>two<a id='n1' /></p><![CDATA[<q/>]]></body></html>"#;
        assert!(is_xhtml(source));
        assert_eq!(
            expand_self_closed(source),
            r#"<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title></title><meta charset="utf-8"/></head><body><div class="x"></div><!-- <p/> --><p title="a/>b">One<br/>two<a id='n1' ></a></p><![CDATA[<q/>]]></body></html>"#
        );
    }

    #[test]
    fn html_is_not_xhtml_and_a_file_without_self_closed_elements_is_untouched() {
        assert!(!is_xhtml("<!DOCTYPE html><html><p>Hi"));
        assert!(is_xhtml("\u{feff} <?xml version='1.0'?><html>"));
        let plain = "<html><body><p>One<br/>two</p></body></html>";
        assert!(matches!(expand_self_closed(plain), Cow::Borrowed(_)));
    }

    #[test]
    fn a_bare_ampersand_is_read_past() {
        let source = "<html><body><div/><p>a & b</p><span/></body></html>";
        assert_eq!(
            expand_self_closed(source),
            "<html><body><div></div><p>a & b</p><span></span></body></html>"
        );
    }
}
