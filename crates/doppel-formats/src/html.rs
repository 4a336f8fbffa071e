//! HTML and XHTML into text: the page's reading text as a browser shows
//! it, without what a reader of the book does not read.
//!
//! html5ever (through `scraper`) parses as browsers do (implied end tags,
//! entities, broken markup) into an arena tree; the walk over it keeps an
//! explicit stack, so nesting never grows the call stack. Blocks (`p`,
//! `div`, headings, list items, table rows…) become paragraphs separated
//! by a blank line, inline whitespace collapses to one space, `<br>` and
//! `<pre>` keep their line breaks. Scripts, styles, site navigation, page
//! header and footer, sidebars, forms, buttons, cookie notices and
//! elements the page hides are left out, and [`crate::Book::left_out`]
//! says so in words. A kept paragraph that repeats one of the page's
//! chrome paragraphs word for word (a licence page whose article is the
//! footer's licence) is chrome too (`repeats`). XHTML's self-closed
//! elements (`<title/>`) are written open and closed first (`xhtml`), so
//! html5ever does not read them as left open.
//! A plain HTML file has no pages: its page map is empty.

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::{Book, Format, FormatError, Limits, PageMap};

/// Read an HTML or XHTML file into a book of one unpaged text.
pub fn read(bytes: &[u8], limits: &Limits) -> Result<Book, FormatError> {
    let source = decode(bytes);
    let page = extract(&source, limits, Format::Html)?;
    let left_out = page.left_out.words();
    if page.text.is_empty() {
        let reason = if left_out.is_empty() {
            "no text in the page".to_string()
        } else {
            format!(
                "no text in the page outside what is left out ({})",
                left_out.join(", ")
            )
        };
        return Err(FormatError::Unusable {
            format: Format::Html,
            reason,
        });
    }
    Ok(Book {
        format: Format::Html,
        gzipped: false,
        text: page.text,
        pages: PageMap::default(),
        left_out,
        confidence: None,
    })
}

/// One HTML document's reading text and what was left out of it.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Extract {
    /// The text: blocks separated by a blank line.
    pub text: String,
    /// What was left out, counted.
    pub left_out: LeftOut,
    /// The text of the first `h1`–`h6`, whitespace collapsed.
    pub first_heading: Option<String>,
    /// How many images (`img`, `svg` `image`) the reading text holds.
    pub images: usize,
}

/// A kind of thing left out of the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Kind {
    Script,
    Style,
    Noscript,
    Template,
    Nav,
    Header,
    Footer,
    Aside,
    Form,
    Button,
    Cookie,
    Hidden,
    /// A kept paragraph repeating one of the page's chrome (`repeats`).
    Repeat,
    /// Reader-specific wording (EPUB's navigation document, cover…).
    Other(&'static str),
}

impl Kind {
    /// Whether this is the site's furniture around the page's text, whose
    /// repeats in the kept text are furniture too. Hidden elements,
    /// `noscript` and templates are not: they often hold the page's own
    /// text (a collapsed "read more", a fallback copy of the article).
    fn is_chrome(self) -> bool {
        matches!(
            self,
            Kind::Nav | Kind::Header | Kind::Footer | Kind::Aside | Kind::Form | Kind::Cookie
        )
    }
}

/// What was left out of a text, counted by kind, to say in words.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct LeftOut {
    counts: BTreeMap<Kind, usize>,
}

impl LeftOut {
    /// Count one more of `kind`.
    pub fn add(&mut self, kind: Kind) {
        *self.counts.entry(kind).or_default() += 1;
    }

    /// Add another document's counts.
    pub fn merge(&mut self, other: &LeftOut) {
        for (kind, n) in &other.counts {
            *self.counts.entry(*kind).or_default() += n;
        }
    }

    /// In words: `"2 scripts"`, `"site navigation"`, `"3 hidden elements"`.
    pub fn words(&self) -> Vec<String> {
        let counted = |n: usize, one: &str, many: &str| {
            if n == 1 {
                format!("1 {one}")
            } else {
                format!("{n} {many}")
            }
        };
        self.counts
            .iter()
            .map(|(kind, &n)| match kind {
                Kind::Script => counted(n, "script", "scripts"),
                Kind::Style => counted(n, "style sheet", "style sheets"),
                Kind::Noscript => counted(n, "noscript block", "noscript blocks"),
                Kind::Template => counted(n, "template", "templates"),
                Kind::Nav => "site navigation".into(),
                Kind::Header => "page header".into(),
                Kind::Footer => "page footer".into(),
                Kind::Aside => counted(n, "sidebar", "sidebars"),
                Kind::Form => counted(n, "form", "forms"),
                Kind::Button => counted(n, "button", "buttons"),
                Kind::Cookie => "cookie notice".into(),
                Kind::Hidden => counted(n, "hidden element", "hidden elements"),
                Kind::Repeat => counted(
                    n,
                    "passage repeating the page's chrome",
                    "passages repeating the page's chrome",
                ),
                Kind::Other(words) => (*words).to_string(),
            })
            .collect()
    }
}

/// The text of `bytes` by the charset they declare: a BOM, then a
/// `<meta charset>` or `http-equiv` content type (or an XML declaration's
/// `encoding`) in the first KiB, else UTF-8 when they are valid UTF-8,
/// else chardetng's guess (legacy single- and double-byte encodings).
pub(crate) fn decode(bytes: &[u8]) -> Cow<'_, str> {
    if let Some((encoding, bom)) = encoding_rs::Encoding::for_bom(bytes) {
        return encoding.decode_without_bom_handling(&bytes[bom..]).0;
    }
    if let Some(encoding) = declared_charset(&bytes[..bytes.len().min(1024)]) {
        // A page saying UTF-16 in ASCII is not UTF-16 (the HTML standard
        // reads it as UTF-8).
        let encoding = encoding.output_encoding();
        return encoding.decode_without_bom_handling(bytes).0;
    }
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Cow::Borrowed(text);
    }
    let mut detector = chardetng::EncodingDetector::new();
    detector.feed(bytes, true);
    let encoding = detector.guess(None, true);
    encoding.decode_without_bom_handling(bytes).0
}

/// The encoding a document's head names: `charset=` inside a `<meta>`
/// tag, or `encoding=` in an `<?xml` declaration.
fn declared_charset(head: &[u8]) -> Option<&'static encoding_rs::Encoding> {
    let lower = head.to_ascii_lowercase();
    let label_after = |at: usize| {
        let rest = &lower[at..];
        let rest = rest.trim_ascii_start();
        let rest = rest.strip_prefix(b"=")?.trim_ascii_start();
        let rest = rest
            .strip_prefix(b"\"")
            .or_else(|| rest.strip_prefix(b"'"))
            .unwrap_or(rest);
        let end = rest
            .iter()
            .position(|b| !(b.is_ascii_alphanumeric() || b"-_:.".contains(b)))
            .unwrap_or(rest.len());
        encoding_rs::Encoding::for_label(&rest[..end])
    };
    if lower.starts_with(b"<?xml") {
        let decl_end = find(&lower, b"?>").unwrap_or(lower.len());
        if let Some(at) = find(&lower[..decl_end], b"encoding") {
            if let Some(encoding) = label_after(at + b"encoding".len()) {
                return Some(encoding);
            }
        }
    }
    let mut from = 0;
    while let Some(at) = find(&lower[from..], b"<meta") {
        let tag_start = from + at;
        let tag_end = find(&lower[tag_start..], b">").map_or(lower.len(), |e| tag_start + e);
        if let Some(c) = find(&lower[tag_start..tag_end], b"charset") {
            if let Some(encoding) = label_after(tag_start + c + b"charset".len()) {
                return Some(encoding);
            }
        }
        from = tag_end;
    }
    None
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(haystack, needle)
}

/// `source` as html5ever should see it: XHTML's self-closed elements
/// written open and closed ([`xhtml`]), HTML as it is.
pub(crate) fn for_html5ever(source: &str) -> Cow<'_, str> {
    if xhtml::is_xhtml(source) {
        xhtml::expand_self_closed(source)
    } else {
        Cow::Borrowed(source)
    }
}

/// The reading text of the HTML `source`, within `limits` (deeper than
/// [`Limits::max_depth`] is [`FormatError::OverLimit`] for `format`).
/// Well-formed XHTML (an EPUB's chapters) is read by the streaming XML
/// reader, everything else by html5ever; both walk the same elements to
/// the same text (`stream`'s tests hold them to it).
pub(crate) fn extract(
    source: &str,
    limits: &Limits,
    format: Format,
) -> Result<Extract, FormatError> {
    if xhtml::is_xhtml(source) {
        if let Some(extract) = stream::extract(source, limits) {
            return Ok(extract);
        }
    }
    tree::extract(source, limits, format)
}

mod depth;
mod repeats;
mod stream;
mod tree;
mod walk;
mod xhtml;

#[cfg(test)]
#[path = "html/tests.rs"]
mod tests;
