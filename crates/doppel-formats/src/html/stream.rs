//! Well-formed XHTML (an EPUB's chapters, pages saved as XHTML) read in
//! one pass by the streaming XML reader ([`crate::xml::Events`]), with no
//! tree: html5ever's tokenizer, tree builder and arena cost most of an
//! EPUB's reading time.
//!
//! It reads a page only where html5ever would build the same elements
//! from it, and gives up (`None`: html5ever reads the page) at the first
//! thing it cannot be sure of: markup that is not well-formed (an element
//! left open, a bare `&`), a reference HTML reads otherwise, text or an
//! element a table would move out of itself, a block inside a `p`, a
//! heading inside a heading, a list item directly inside another, a link
//! in a link, HTML inside SVG, an element whose content HTML reads as raw
//! text (`noscript`, `iframe`, `textarea`…), CDATA, a NUL. What the two
//! parsers agree on, they agree on to the byte: the tests feed both the
//! same pages. Each check takes the same time at any depth ([`Stack`]).

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
    let mut open = Stack::default();
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
                let in_table = open.last() == Some(Class::Table);
                let in_foreign = open.inside(Class::Foreign);
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

/// The elements [`Class::Once`] stands for.
const ONCE: [&str; 7] = ["a", "button", "form", "nobr", "html", "head", "body"];

/// The classes [`Stack`] counts: heading, paragraph, foreign, then each
/// of [`ONCE`].
const COUNTED: usize = 3 + ONCE.len();

impl Class {
    /// Its place among the classes [`Stack`] counts, if it is one.
    fn counted(self) -> Option<usize> {
        match self {
            Class::Heading => Some(0),
            Class::Paragraph => Some(1),
            Class::Foreign => Some(2),
            Class::Once(name) => ONCE.iter().position(|once| *once == name).map(|i| 3 + i),
            _ => None,
        }
    }

    fn of(name: &str) -> Self {
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
fn html_rebuilds(open: &Stack, name: &str, class: Class) -> bool {
    let inside = |c: Class| open.inside(c);
    if open.last() == Some(Class::Table) && !fits_in_table(name) {
        return true;
    }
    if inside(Class::Foreign) && breaks_out_of_foreign(name) {
        return true;
    }
    match class {
        Class::Heading if inside(Class::Heading) => return true,
        // Whether an item is open closer than a list of its own.
        Class::ListItem if open.items.last() == Some(&true) => return true,
        Class::Definition if open.definitions.last() == Some(&true) => return true,
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

/// The open elements the stream tracks, with what its checks ask of them
/// kept up to date, so that each check takes the same time at any depth
/// (a hostile page nests up to the depth limit).
#[derive(Debug, Default)]
struct Stack {
    classes: Vec<Class>,
    /// How many of each counted class are open ([`Class::counted`]).
    counts: [u32; COUNTED],
    /// The open list items (`true`) and lists (`false`), innermost last.
    items: Vec<bool>,
    /// The open `dd`/`dt` (`true`) and `dl` (`false`), innermost last.
    definitions: Vec<bool>,
}

impl Stack {
    fn push(&mut self, class: Class) {
        if let Some(slot) = class.counted() {
            self.counts[slot] += 1;
        }
        match class {
            Class::ListItem | Class::List => self.items.push(class == Class::ListItem),
            Class::Definition | Class::DefinitionList => {
                self.definitions.push(class == Class::Definition)
            }
            _ => {}
        }
        self.classes.push(class);
    }

    fn pop(&mut self) {
        let Some(class) = self.classes.pop() else {
            return;
        };
        if let Some(slot) = class.counted() {
            self.counts[slot] -= 1;
        }
        match class {
            Class::ListItem | Class::List => {
                self.items.pop();
            }
            Class::Definition | Class::DefinitionList => {
                self.definitions.pop();
            }
            _ => {}
        }
    }

    fn len(&self) -> usize {
        self.classes.len()
    }

    fn last(&self) -> Option<Class> {
        self.classes.last().copied()
    }

    /// Whether an element of `class` (a counted one) is open.
    fn inside(&self, class: Class) -> bool {
        class.counted().is_some_and(|slot| self.counts[slot] > 0)
    }
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
