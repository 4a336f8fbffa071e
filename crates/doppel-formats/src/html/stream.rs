//! Well-formed XHTML (an EPUB's chapters, pages saved as XHTML) read in
//! one pass by the streaming XML reader ([`crate::xml::Events`]), with no
//! tree: html5ever's tokenizer, tree builder and arena cost most of an
//! EPUB's reading time.
//!
//! It reads a page only where html5ever would build the same elements
//! from it, and gives up (`None`: html5ever reads the page) at the first
//! thing it cannot be sure of: markup that is not well-formed (an element
//! left open, a bare `&`), a reference HTML reads otherwise, text or an
//! element a table would move out of itself, a heading inside a heading,
//! an element whose content HTML reads as raw text (`noscript`, `iframe`,
//! `textarea`…), a NUL. What the two parsers agree on, they agree on to
//! the byte: the tests feed both the same pages.

use std::borrow::Cow;

use quick_xml::events::BytesStart;

use super::walk::{Element, Enter, Walk, ASKED};
use super::Extract;
use crate::xml::{Decoded, Ev, Events, Mode};
use crate::{Format, Limits};

/// The reading text of the XHTML `source`, or `None` when html5ever must
/// read it.
pub(super) fn extract(source: &str, limits: &Limits) -> Option<Extract> {
    let decoded = Decoded {
        text: Cow::Borrowed(source),
        note: None,
        transcoded: false,
    };
    let mut events = Events::new(&decoded, Format::Html, Mode::Html, limits);
    let mut walk = Walk::default();
    // Every open element but those whose content is raw text, innermost
    // last: html5ever rebuilds inside what the walk skips too, and what
    // it moves out of a skipped element (a table's stray text) is read.
    let mut open: Vec<Class> = Vec::new();
    // While the walk skips an element: how many elements were open
    // outside it.
    let mut skipping: Option<usize> = None;
    // Just after `<pre>`: HTML drops a line end there.
    let mut after_pre = false;
    loop {
        let event = events.next().ok()?;
        let at_pre_start = std::mem::take(&mut after_pre);
        let (start, empty) = match event {
            Ev::Start(e) => (e, false),
            Ev::Empty(e) => (e, true),
            Ev::Text(text) => {
                let text = match (at_pre_start, text.strip_prefix('\n')) {
                    (true, Some(rest)) => rest,
                    _ => text.as_ref(),
                };
                let in_table = open.last() == Some(&Class::Table);
                let in_foreign = open.contains(&Class::Foreign);
                if text.contains('\0')
                    || in_table && !is_html_whitespace(text)
                    || events.was_cdata() && !in_foreign
                {
                    return None;
                }
                if skipping.is_none() {
                    walk.text(text);
                }
                continue;
            }
            Ev::End => {
                open.pop();
                match skipping {
                    Some(outside) if open.len() == outside => skipping = None,
                    Some(_) => {}
                    None => walk.close(),
                }
                continue;
            }
            Ev::Eof => break,
        };
        let element = XhtmlElement::new(&events, &start);
        let name = element.name.as_ref();
        let class = Class::of(name);
        if html_rebuilds(&open, name, class) {
            return None;
        }
        let enter = if skipping.is_some() {
            Enter::Skip
        } else {
            walk.open(&element)
        };
        match enter {
            _ if empty => {
                if enter == Enter::Descend {
                    walk.close();
                }
            }
            Enter::Skip if class == Class::RawText => events.skip().ok()?,
            Enter::Skip => {
                skipping.get_or_insert(open.len());
                open.push(class);
            }
            Enter::Descend if class == Class::RawText => return None,
            Enter::Descend => {
                after_pre = matches!(name, "pre" | "listing");
                open.push(class);
            }
        }
    }
    if events.read_unlike_html() {
        return None;
    }
    Some(walk.finish())
}

/// What the stream must know of an open element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    /// `table` and its row groups and rows: HTML moves other content out.
    Table,
    /// `h1`–`h6`.
    Heading,
    /// `p`: a block opening inside closes it.
    Paragraph,
    /// `li`: another inside closes it, unless in a list of its own.
    ListItem,
    /// `ul`, `ol`, `menu`: a list item's own list.
    List,
    /// `dd`, `dt`: another inside closes it, unless in a `dl` of its own.
    Definition,
    /// `dl`.
    DefinitionList,
    /// An element HTML never nests in itself (a link in a link, a form
    /// in a form, `html`, `head`, `body`), by its name.
    Once(&'static str),
    /// SVG or MathML: HTML elements inside break out of them.
    Foreign,
    /// HTML reads its content as text, not elements.
    RawText,
    Other,
}

impl Class {
    fn of(name: &str) -> Self {
        const ONCE: [&str; 7] = ["a", "button", "form", "nobr", "html", "head", "body"];
        match name {
            "table" | "thead" | "tbody" | "tfoot" | "tr" => Class::Table,
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => Class::Heading,
            "p" => Class::Paragraph,
            "li" => Class::ListItem,
            "ul" | "ol" | "menu" => Class::List,
            "dd" | "dt" => Class::Definition,
            "dl" => Class::DefinitionList,
            "svg" | "math" => Class::Foreign,
            "noscript" | "iframe" | "noembed" | "noframes" | "xmp" | "textarea" | "plaintext"
            | "script" | "style" | "title" => Class::RawText,
            _ => match ONCE.iter().find(|once| **once == name) {
                Some(once) => Class::Once(once),
                None => Class::Other,
            },
        }
    }
}

/// Whether html5ever, meeting `name` (of `class`) inside `open`, would
/// build other elements than the ones written: close an open one, move
/// it, or leave foreign content.
fn html_rebuilds(open: &[Class], name: &str, class: Class) -> bool {
    let inside = |c: Class| open.contains(&c);
    if open.last() == Some(&Class::Table) && !fits_in_table(name) {
        return true;
    }
    if inside(Class::Foreign) && breaks_out_of_foreign(name) {
        return true;
    }
    // Whether `item` is open closer than a list of its own.
    let item_open = |item: Class, list: Class| {
        open.iter().rev().find(|c| **c == item || **c == list) == Some(&item)
    };
    match class {
        Class::Heading if inside(Class::Heading) => return true,
        Class::ListItem if item_open(Class::ListItem, Class::List) => return true,
        Class::Definition if item_open(Class::Definition, Class::DefinitionList) => return true,
        Class::Once(_) if inside(class) => return true,
        Class::Once("head" | "body")
            if inside(Class::Once("head")) || inside(Class::Once("body")) =>
        {
            return true
        }
        _ => {}
    }
    inside(Class::Paragraph) && closes_p(name)
}

/// Whether an element named `name` closes an open `p` (HTML's "close a p
/// element" start tags).
fn closes_p(name: &str) -> bool {
    matches!(
        name,
        "address"
            | "article"
            | "aside"
            | "blockquote"
            | "center"
            | "details"
            | "dialog"
            | "dir"
            | "div"
            | "dl"
            | "fieldset"
            | "figcaption"
            | "figure"
            | "footer"
            | "header"
            | "hgroup"
            | "main"
            | "menu"
            | "nav"
            | "ol"
            | "p"
            | "search"
            | "section"
            | "summary"
            | "ul"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "pre"
            | "listing"
            | "form"
            | "li"
            | "dd"
            | "dt"
            | "plaintext"
            | "table"
            | "hr"
            | "xmp"
    )
}

/// Whether an element named `name` inside SVG or MathML is HTML's again
/// (the HTML standard's list for foreign content).
fn breaks_out_of_foreign(name: &str) -> bool {
    matches!(
        name,
        "b" | "big"
            | "blockquote"
            | "body"
            | "br"
            | "center"
            | "code"
            | "dd"
            | "div"
            | "dl"
            | "dt"
            | "em"
            | "embed"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "head"
            | "hr"
            | "i"
            | "img"
            | "li"
            | "listing"
            | "menu"
            | "meta"
            | "nobr"
            | "ol"
            | "p"
            | "pre"
            | "ruby"
            | "s"
            | "small"
            | "span"
            | "strong"
            | "strike"
            | "sub"
            | "sup"
            | "table"
            | "tt"
            | "u"
            | "ul"
            | "var"
            | "font"
    )
}

/// Whether HTML keeps an element named `name` where a table or row
/// has it, instead of moving it before the table.
fn fits_in_table(name: &str) -> bool {
    matches!(
        name,
        "caption"
            | "colgroup"
            | "col"
            | "thead"
            | "tbody"
            | "tfoot"
            | "tr"
            | "td"
            | "th"
            | "script"
            | "style"
            | "template"
    )
}

/// Whether `text` is only HTML's whitespace.
fn is_html_whitespace(text: &str) -> bool {
    text.bytes()
        .all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c'))
}

/// An XHTML element as the walk asks for it: its name in lower case as
/// html5ever gives it (prefix kept), and the attributes the walk asks for.
struct XhtmlElement<'e> {
    name: Cow<'e, str>,
    attrs: [Option<Cow<'e, str>>; ASKED.len()],
}

impl<'e> XhtmlElement<'e> {
    fn new(events: &Events<'_>, start: &'e BytesStart<'_>) -> Self {
        let name = start.name().into_inner();
        let name = if name.bytes().any(|b| b.is_ascii_uppercase()) {
            Cow::Owned(name.to_ascii_lowercase())
        } else {
            Cow::Borrowed(name)
        };
        Self {
            name,
            attrs: events.attrs_qualified(start, ASKED),
        }
    }
}

impl Element for XhtmlElement<'_> {
    fn name(&self) -> &str {
        &self.name
    }

    fn attr(&self, name: &str) -> Option<&str> {
        let i = ASKED.iter().position(|asked| *asked == name)?;
        self.attrs[i].as_deref()
    }
}

#[cfg(test)]
#[path = "stream_tests.rs"]
mod tests;
