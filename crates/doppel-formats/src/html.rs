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

use ego_tree::NodeRef;
use scraper::{Html, Node};

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
#[derive(Debug, Default)]
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
#[derive(Debug, Default, Clone)]
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
pub(crate) fn extract(
    source: &str,
    limits: &Limits,
    format: Format,
) -> Result<Extract, FormatError> {
    let over = || FormatError::OverLimit {
        format,
        reason: format!(
            "elements nested more than {} deep (the depth limit)",
            limits.max_depth
        ),
    };
    let source = for_html5ever(source);
    if depth::nesting(&source) > limits.max_depth {
        return Err(over());
    }
    let document = Html::parse_document(&source);
    let mut extract = Extract::default();
    let mut out = Writer::default();
    // The text of the page's chrome (header, footer, nav, sidebars, forms,
    // cookie notices), kept apart to find its repeats in the kept text.
    let mut chrome = Writer::default();
    let mut heading_start: Option<usize> = None;

    enum Step<'a> {
        Enter(NodeRef<'a, Node>, Context, usize),
        Leave {
            block: bool,
            heading: bool,
            chrome: bool,
        },
    }
    let mut stack = vec![Step::Enter(document.tree.root(), Context::default(), 0)];
    while let Some(step) = stack.pop() {
        let (node, context, depth) = match step {
            Step::Enter(node, context, depth) => (node, context, depth),
            Step::Leave {
                block,
                heading,
                chrome: in_chrome,
            } => {
                if heading {
                    if let Some(start) = heading_start.take() {
                        let title = collapse(&out.text[start..]);
                        if !title.is_empty() && extract.first_heading.is_none() {
                            extract.first_heading = Some(title);
                        }
                    }
                }
                if block {
                    if in_chrome {
                        chrome.block();
                    } else {
                        out.block();
                    }
                }
                continue;
            }
        };
        // The tree's own depth too (html5ever adds html, body…).
        if depth > limits.max_depth + 8 {
            return Err(over());
        }
        let mut inner = context;
        let w = if context.chrome {
            &mut chrome
        } else {
            &mut out
        };
        match node.value() {
            Node::Text(text) => {
                if context.pre {
                    w.verbatim(text);
                } else {
                    w.inline(text);
                }
                continue;
            }
            Node::Element(element) => {
                let name = element.name();
                let mut chrome_root = false;
                match left_out(element, &context) {
                    // Inside chrome, all text is the chrome's (only
                    // what is not text is skipped); counted once, as the
                    // outermost element.
                    Some(Kind::Script | Kind::Style | Kind::Template) if context.chrome => continue,
                    Some(_) if context.chrome => {}
                    Some(kind) => {
                        extract.left_out.add(kind);
                        if !kind.is_chrome() {
                            continue;
                        }
                        inner.chrome = true;
                        chrome_root = true;
                    }
                    None => {}
                }
                // From here on, `w` writes to the text this element's
                // content goes to.
                let w = if inner.chrome { &mut chrome } else { &mut out };
                match name {
                    // Metadata, not reading text.
                    "title" | "meta" | "link" | "base" => continue,
                    "br" => {
                        w.line_break();
                        continue;
                    }
                    "img" | "image" => {
                        if !inner.chrome {
                            extract.images += 1;
                        }
                        continue;
                    }
                    "td" | "th" => w.space(),
                    "pre" | "textarea" | "listing" | "xmp" | "plaintext" => inner.pre = true,
                    "article" | "aside" | "main" | "nav" | "section" => inner.sectioned = true,
                    _ => {}
                }
                let block = is_block(name) || chrome_root;
                if block {
                    w.block();
                }
                let heading = matches!(name, "h1" | "h2" | "h3" | "h4" | "h5" | "h6")
                    && !inner.chrome
                    && heading_start.is_none()
                    && extract.first_heading.is_none();
                if heading {
                    heading_start = Some(out.text.len());
                }
                stack.push(Step::Leave {
                    block,
                    heading,
                    chrome: inner.chrome,
                });
            }
            Node::Document | Node::Fragment => {}
            _ => continue,
        }
        // Children pushed last first, so the first is walked first.
        for child in node.children().rev() {
            stack.push(Step::Enter(child, inner, depth + 1));
        }
    }
    let (text, repeated) = repeats::drop_repeats(out.finish(), &chrome.finish());
    for _ in 0..repeated {
        extract.left_out.add(Kind::Repeat);
    }
    extract.text = text;
    Ok(extract)
}

/// What the walk knows of an element's ancestors.
#[derive(Debug, Clone, Copy, Default)]
struct Context {
    /// Inside `pre` (or another element whose whitespace is kept).
    pre: bool,
    /// Inside sectioning content or `main`: a `header` or `footer` there
    /// is the section's (a chapter's title), not the page's.
    sectioned: bool,
    /// Inside an element left out as the page's chrome: its text goes to
    /// the chrome's, not the reading text.
    chrome: bool,
}

/// Why `element` is left out of the reading text, if it is.
fn left_out(element: &scraper::node::Element, context: &Context) -> Option<Kind> {
    let attr = |name: &str| element.attr(name);
    if attr("hidden").is_some()
        || attr("aria-hidden").is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
        || attr("style").is_some_and(hidden_by_style)
    {
        return Some(Kind::Hidden);
    }
    let role = attr("role").unwrap_or("").trim().to_ascii_lowercase();
    // Notes are the book's text, whatever element holds them (EPUB 3
    // footnotes are `aside`s).
    let note = |v: &str| v.contains("note");
    if role.starts_with("doc-") && note(&role) || attr("epub:type").is_some_and(note) {
        return None;
    }
    let kind = match (element.name(), role.as_str()) {
        ("script", _) => Kind::Script,
        ("style", _) => Kind::Style,
        ("noscript", _) => Kind::Noscript,
        ("template", _) => Kind::Template,
        ("nav", _) | (_, "navigation") => Kind::Nav,
        ("header", _) if !context.sectioned => Kind::Header,
        (_, "banner") => Kind::Header,
        ("footer", _) if !context.sectioned => Kind::Footer,
        (_, "contentinfo") => Kind::Footer,
        ("aside", _) | (_, "complementary") => Kind::Aside,
        ("form", _) | (_, "search") => Kind::Form,
        ("button", _) => Kind::Button,
        _ => {
            let cookie = |v: &str| v.to_ascii_lowercase().contains("cookie");
            if attr("id").is_some_and(cookie) || attr("class").is_some_and(cookie) {
                Kind::Cookie
            } else {
                return None;
            }
        }
    };
    Some(kind)
}

/// Whether an inline `style` hides its element.
fn hidden_by_style(style: &str) -> bool {
    let style: String = style
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    style
        .split(';')
        .any(|decl| decl.starts_with("display:none") || decl.starts_with("visibility:hidden"))
}

/// Whether `name` is a block: its text is a paragraph of its own.
fn is_block(name: &str) -> bool {
    matches!(
        name,
        "address"
            | "article"
            | "aside"
            | "blockquote"
            | "body"
            | "caption"
            | "center"
            | "dd"
            | "details"
            | "dialog"
            | "div"
            | "dl"
            | "dt"
            | "fieldset"
            | "figcaption"
            | "figure"
            | "footer"
            | "form"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "header"
            | "hgroup"
            | "hr"
            | "html"
            | "legend"
            | "li"
            | "main"
            | "nav"
            | "ol"
            | "p"
            | "pre"
            | "section"
            | "summary"
            | "table"
            | "tbody"
            | "tfoot"
            | "thead"
            | "tr"
            | "ul"
            | "listing"
            | "xmp"
            | "plaintext"
    )
}

/// `text` with whitespace runs made one space, trimmed.
fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The text being written, with the break owed before the next word.
#[derive(Debug, Default)]
struct Writer {
    text: String,
    /// Newlines owed (1 a line break, 2 a paragraph break).
    newlines: usize,
    /// A space owed.
    space: bool,
}

impl Writer {
    /// Inline text: whitespace runs become one space.
    fn inline(&mut self, text: &str) {
        // Whitespace is HTML's (space, tab, line ends, form feed) and
        // U+00A0 (no-break spaces separate words in the text as on
        // screen), split by bytes, not chars: this runs over every byte of
        // a book's text. U+00A0 is 0xC2 0xA0, and 0xC2 only ever starts a
        // character.
        let bytes = text.as_bytes();
        let space_at = |i: usize| match bytes[i] {
            b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' => 1,
            0xC2 if bytes.get(i + 1) == Some(&0xA0) => 2,
            _ => 0,
        };
        let mut word_start = None;
        let mut i = 0;
        let mut ends_in_space = false;
        while i < bytes.len() {
            let width = space_at(i);
            if width == 0 {
                word_start.get_or_insert(i);
                ends_in_space = false;
                i += 1;
                continue;
            }
            if i == 0 {
                self.space = true;
            }
            if let Some(start) = word_start.take() {
                self.word(&text[start..i]);
            }
            ends_in_space = true;
            i += width;
        }
        if let Some(start) = word_start {
            self.word(&text[start..]);
        }
        if !ends_in_space {
            self.space = false;
        }
    }

    /// One word of inline text, after the break owed.
    fn word(&mut self, word: &str) {
        self.flush();
        self.text.push_str(word);
        self.space = true;
    }

    /// Preformatted text: kept as it is (line ends made `\n`, form feeds
    /// made line ends, so they never read as page breaks).
    fn verbatim(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        self.flush();
        let text = text.replace("\r\n", "\n");
        self.text.extend(
            text.chars()
                .map(|c| if matches!(c, '\r' | '\x0c') { '\n' } else { c }),
        );
    }

    fn space(&mut self) {
        self.space = true;
    }

    fn line_break(&mut self) {
        self.newlines = (self.newlines + 1).min(2);
    }

    fn block(&mut self) {
        self.newlines = 2;
    }

    /// Write the break owed, before a word. It runs once a word, so the
    /// text's end is looked at byte by byte (`ends_with(' ')` went through
    /// a `memcmp` call: a tenth of an EPUB's reading time).
    fn flush(&mut self) {
        let bytes = self.text.as_bytes();
        if let Some(&last) = bytes.last() {
            let ending = bytes.iter().rev().take_while(|&&b| b == b'\n').count();
            if self.newlines > 0 {
                for _ in ending.min(self.newlines)..self.newlines {
                    self.text.push('\n');
                }
            } else if self.space && last != b'\n' && last != b' ' {
                self.text.push(' ');
            }
        }
        self.newlines = 0;
        self.space = false;
    }

    fn finish(self) -> String {
        let mut text = self.text;
        text.truncate(text.trim_end().len());
        text
    }
}

mod depth;
mod repeats;
mod xhtml;

#[cfg(test)]
#[path = "html/tests.rs"]
mod tests;
