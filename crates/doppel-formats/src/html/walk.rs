//! The walk from a page's elements to its reading text, fed by either
//! parser: html5ever's tree (`tree`) or, for well-formed XHTML, the
//! streaming XML reader (`stream`). Both call [`Walk::open`] as an element
//! starts, [`Walk::text`] for its text and [`Walk::close`] as it ends, so
//! what is a block, what is left out and what is chrome is decided here
//! once, whichever parser read the page.

use super::{repeats, Extract, Kind};

/// An element as the walk sees it: its lowercase local name and its
/// attributes by (lowercase) name.
pub(super) trait Element {
    fn name(&self) -> &str;
    fn attr(&self, name: &str) -> Option<&str>;
}

/// The attributes [`Walk::open`] asks an element for: a parser that reads
/// attributes itself need read no others.
pub(super) const ASKED: [&str; 7] = [
    "hidden",
    "aria-hidden",
    "style",
    "role",
    "epub:type",
    "id",
    "class",
];

/// What to do with an element's content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Enter {
    /// Walk it, then call [`Walk::close`] at the element's end.
    Descend,
    /// Skip it: no text, no elements, no [`Walk::close`].
    Skip,
}

/// The walk over one page.
#[derive(Debug, Default)]
pub(super) struct Walk {
    extract: Extract,
    out: Writer,
    /// The text of the page's chrome (header, footer, nav, sidebars,
    /// forms, cookie notices), kept apart to find its repeats in the kept
    /// text.
    chrome: Writer,
    /// Where the first heading's text starts in `out`, while it is open.
    heading_start: Option<usize>,
    /// The elements being walked, innermost last.
    open: Vec<Frame>,
}

/// An element being walked: what its end owes, and its content's context.
#[derive(Debug, Clone, Copy)]
struct Frame {
    block: bool,
    heading: bool,
    inner: Context,
}

impl Walk {
    /// The context of the content being walked now.
    fn context(&self) -> Context {
        self.open.last().map_or_else(Context::default, |f| f.inner)
    }

    fn writer(&mut self, chrome: bool) -> &mut Writer {
        if chrome {
            &mut self.chrome
        } else {
            &mut self.out
        }
    }

    /// An element starts.
    pub fn open(&mut self, element: &impl Element) -> Enter {
        let context = self.context();
        let mut inner = context;
        let name = element.name();
        let mut chrome_root = false;
        match left_out(element, &context) {
            // Inside chrome, all text is the chrome's (only what is not
            // text is skipped); counted once, as the outermost element.
            Some(Kind::Script | Kind::Style | Kind::Template) if context.chrome => {
                return Enter::Skip
            }
            Some(_) if context.chrome => {}
            Some(kind) => {
                self.extract.left_out.add(kind);
                if !kind.is_chrome() {
                    return Enter::Skip;
                }
                inner.chrome = true;
                chrome_root = true;
            }
            None => {}
        }
        // From here on, `w` writes to the text this element's content goes to.
        let w = self.writer(inner.chrome);
        match name {
            // Metadata, not reading text.
            "title" | "meta" | "link" | "base" => return Enter::Skip,
            "br" => {
                w.line_break();
                return Enter::Skip;
            }
            "img" | "image" => {
                if !inner.chrome {
                    self.extract.images += 1;
                }
                return Enter::Skip;
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
            && self.heading_start.is_none()
            && self.extract.first_heading.is_none();
        if heading {
            self.heading_start = Some(self.out.text.len());
        }
        self.open.push(Frame {
            block,
            heading,
            inner,
        });
        Enter::Descend
    }

    /// Text inside the element walked now.
    pub fn text(&mut self, text: &str) {
        let context = self.context();
        let w = self.writer(context.chrome);
        if context.pre {
            w.verbatim(text);
        } else {
            w.inline(text);
        }
    }

    /// The element last opened with [`Enter::Descend`] ends.
    pub fn close(&mut self) {
        let Some(frame) = self.open.pop() else {
            return;
        };
        if frame.heading {
            if let Some(start) = self.heading_start.take() {
                let title = collapse(&self.out.text[start..]);
                if !title.is_empty() && self.extract.first_heading.is_none() {
                    self.extract.first_heading = Some(title);
                }
            }
        }
        if frame.block {
            self.writer(frame.inner.chrome).block();
        }
    }

    /// The page's reading text, without its paragraphs that repeat the
    /// chrome.
    pub fn finish(self) -> Extract {
        let mut extract = self.extract;
        let (text, repeated) = repeats::drop_repeats(self.out.finish(), &self.chrome.finish());
        for _ in 0..repeated {
            extract.left_out.add(Kind::Repeat);
        }
        extract.text = text;
        extract
    }
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
fn left_out(element: &impl Element, context: &Context) -> Option<Kind> {
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

/// Where the whitespace run at `i` of `bytes` ends.
fn space_run_end(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() {
        match bytes[i] {
            b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' => i += 1,
            0xC2 if bytes.get(i + 1) == Some(&0xA0) => i += 2,
            _ => break,
        }
    }
    i
}

/// The whitespace in a text that is not one plain space between words:
/// memchr's searches, each kept until the walk passes it.
struct Breaks<'t> {
    bytes: &'t [u8],
    /// The next line end, tab or U+00A0's first byte (0xC2 starts other
    /// characters too); the next carriage return or form feed; the next
    /// two spaces. `usize::MAX` where there is none.
    next: [usize; 3],
}

impl<'t> Breaks<'t> {
    fn new(bytes: &'t [u8]) -> Self {
        let mut breaks = Self {
            bytes,
            next: [0; 3],
        };
        for k in 0..3 {
            breaks.search(k, 0);
        }
        breaks
    }

    /// Search `k` again from `from`.
    fn search(&mut self, k: usize, from: usize) {
        let rest = &self.bytes[from..];
        let found = match k {
            0 => memchr::memchr3(b'\n', b'\t', 0xC2, rest),
            1 => memchr::memchr2(b'\r', b'\x0c', rest),
            _ => memchr::memmem::find(rest, b"  "),
        };
        self.next[k] = found.map_or(usize::MAX, |at| from + at);
    }

    /// The first break at or after `from`.
    fn next_from(&mut self, mut from: usize) -> Option<usize> {
        let bytes = self.bytes;
        loop {
            for k in 0..3 {
                if self.next[k] < from {
                    self.search(k, from);
                }
            }
            let at = *self.next.iter().min()?;
            if at == usize::MAX {
                return None;
            }
            if bytes[at] == 0xC2 && bytes.get(at + 1) != Some(&0xA0) {
                from = at + 1;
                continue;
            }
            return Some(at);
        }
    }
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
        // screen), found by bytes, not chars: this runs over every byte
        // of a book's text. Words apart by one plain space are copied as
        // one run (a line of a book at once, not word by word), and the
        // other whitespace is found by memchr ([`Breaks`]).
        let bytes = text.as_bytes();
        let start = space_run_end(bytes, 0);
        let mut end = bytes.len();
        loop {
            match bytes[..end] {
                [.., b' ' | b'\t' | b'\n' | b'\r' | b'\x0c'] => end -= 1,
                [.., 0xC2, 0xA0] => end -= 2,
                _ => break,
            }
        }
        if start > 0 {
            self.space = true;
        }
        if start >= end {
            return;
        }
        let mut breaks = Breaks::new(&bytes[..end]);
        let mut run_start = start;
        let mut first = true;
        while let Some(mut at) = breaks.next_from(run_start) {
            while bytes[at - 1] == b' ' {
                at -= 1;
            }
            self.run(&text[run_start..at], first);
            first = false;
            run_start = space_run_end(bytes, at);
        }
        self.run(&text[run_start..end], first);
        self.space = end < bytes.len();
    }

    /// Words of inline text, apart by single spaces: the first after the
    /// break owed, the others after the one space that ended the last.
    fn run(&mut self, words: &str, first: bool) {
        if first {
            self.flush();
        } else {
            self.text.push(' ');
        }
        self.text.push_str(words);
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

    /// Write the break owed, before a word. It runs once a run of words,
    /// so the text's end is looked at byte by byte (`ends_with(' ')` went
    /// through a `memcmp` call: a tenth of an EPUB's reading time).
    fn flush(&mut self) {
        let bytes = self.text.as_bytes();
        if let Some(&last) = bytes.last() {
            if self.newlines > 0 {
                let ending = bytes.iter().rev().take_while(|&&b| b == b'\n').count();
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

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::Writer;

    proptest! {
        /// Inline text, however a parser splits it, reads as its words
        /// one space apart (HTML's whitespace and U+00A0 between them).
        #[test]
        fn inline_text_is_its_words_one_space_apart(
            pieces in prop::collection::vec("[ a\t\n\r\x0cé\u{a0}£.]{0,12}", 0..8)
        ) {
            let mut w = Writer::default();
            for piece in &pieces {
                w.inline(piece);
            }
            let whole = pieces.concat();
            let words: Vec<&str> = whole
                .split([' ', '\t', '\n', '\r', '\x0c', '\u{a0}'])
                .filter(|w| !w.is_empty())
                .collect();
            prop_assert_eq!(w.finish(), words.join(" "));
        }
    }
}
