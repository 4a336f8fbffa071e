//! What the XML readers (ALTO, hOCR, TEI, and through [`crate::xml_walk`]
//! the XML files of an EPUB or a METS package) share: decoding a file's
//! bytes to UTF-8 by its BOM or declaration, a bounded event stream over
//! quick-xml (depth within [`Limits::max_depth`], every element closed,
//! entities resolved without a DTD), and [`Flow`], which lays words out
//! into lines, paragraphs and pages the way the crate's text conventions
//! say.
//!
//! quick-xml never reads a DTD: a document's own entities (a "billion
//! laughs", an external `SYSTEM` entity) are never expanded nor fetched.
//! A reference to one is left out of the text and counted, so the curator
//! sees it in the book's `left_out` (a package file's are only left out).

use std::borrow::Cow;

use encoding_rs::{Encoding, UTF_16BE, UTF_16LE, UTF_8};
use quick_xml::escape::{resolve_html5_entity, resolve_xml_entity};
use quick_xml::events::attributes::Attribute;
use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

use crate::{Format, FormatError, Limits, PageMap, PagedText};

/// A file's text decoded to UTF-8.
pub(crate) struct Decoded<'a> {
    /// The text.
    pub text: Cow<'a, str>,
    /// What decoding had to replace, for `left_out`.
    pub note: Option<String>,
    /// Whether byte offsets in `text` differ from the file's.
    pub transcoded: bool,
}

/// Decode `bytes` by their BOM (UTF-8, UTF-16), else the encoding their
/// XML declaration names, else as UTF-8. Bytes invalid in that encoding
/// become U+FFFD and are reported, not refused: one bad byte does not
/// lose a book.
pub(crate) fn decode(bytes: &[u8], format: Format) -> Result<Decoded<'_>, FormatError> {
    let (encoding, body) = if let Some((encoding, bom)) = Encoding::for_bom(bytes) {
        (encoding, &bytes[bom..])
    } else if bytes.starts_with(b"<\0?\0") {
        (UTF_16LE, bytes)
    } else if bytes.starts_with(b"\0<\0?") {
        (UTF_16BE, bytes)
    } else {
        match declared_encoding(bytes) {
            None => (UTF_8, bytes),
            Some(label) => match Encoding::for_label(label.as_bytes()) {
                // A declaration read as ASCII was not written in UTF-16,
                // whatever it says.
                Some(e) if e == UTF_16LE || e == UTF_16BE => (UTF_8, bytes),
                Some(e) => (e, bytes),
                None => {
                    return Err(FormatError::Unusable {
                        format,
                        reason: format!(
                            "it declares the encoding \"{label}\", which doppel does not know"
                        ),
                    })
                }
            },
        }
    };
    let (text, malformed) = encoding.decode_without_bom_handling(body);
    Ok(Decoded {
        note: malformed.then(|| {
            format!(
                "bytes that are not valid {} (shown as \u{fffd})",
                encoding.name()
            )
        }),
        transcoded: encoding != UTF_8,
        text,
    })
}

/// The `encoding="…"` of an XML declaration at the start of `bytes`.
fn declared_encoding(bytes: &[u8]) -> Option<String> {
    let head = &bytes[..bytes.len().min(1024)];
    let head = std::str::from_utf8(head)
        .unwrap_or_else(|e| std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or(""));
    let decl = head.trim_start().strip_prefix("<?xml")?;
    let decl = &decl[..decl.find("?>")?];
    let after = decl[decl.find("encoding")? + "encoding".len()..].trim_start();
    let after = after.strip_prefix('=')?.trim_start();
    let quote = after.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let value = &after[1..];
    Some(value[..value.find(quote)?].trim().to_owned())
}

/// How strictly markup is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// XML: names match exactly.
    Xml,
    /// XHTML written by OCR tools: names match in any case, void elements
    /// (`<meta>`, `<br>`) need not be closed, attributes need no quotes.
    Html,
}

/// One step of a document.
pub(crate) enum Ev<'a> {
    /// An element opens.
    Start(BytesStart<'a>),
    /// An element opens and closes at once (`<x/>`, or a void HTML one).
    Empty(BytesStart<'a>),
    /// The innermost open element closes.
    End,
    /// Text, entities resolved (line ends normalized, whitespace as is).
    Text(Cow<'a, str>),
    /// The document ended, every element closed.
    Eof,
}

/// The events of one document, bounded and checked.
pub(crate) struct Events<'a> {
    reader: Reader<&'a [u8]>,
    source: &'a str,
    transcoded: bool,
    format: Format,
    mode: Mode,
    max_depth: usize,
    open: Vec<String>,
    undefined: usize,
    first_undefined: Option<String>,
    /// Character references to C1 controls (`&#150;`), which HTML reads as
    /// the windows-1252 characters they were meant to be, and XML not.
    c1_refs: usize,
    /// Whether the last event was a CDATA section's text.
    last_cdata: bool,
}

impl<'a> Events<'a> {
    /// The events of `decoded`'s text.
    pub fn new(decoded: &'a Decoded<'_>, format: Format, mode: Mode, limits: &Limits) -> Self {
        let source: &str = &decoded.text;
        let mut reader = Reader::from_str(source);
        // Closing tags are matched here (HTML's void elements are not
        // closed); never expanded: `<x/>` stays one event.
        reader.config_mut().check_end_names = false;
        Self {
            reader,
            source,
            transcoded: decoded.transcoded,
            format,
            mode,
            max_depth: limits.max_depth,
            open: Vec::new(),
            undefined: 0,
            first_undefined: None,
            c1_refs: 0,
            last_cdata: false,
        }
    }

    /// How many elements are open.
    pub fn depth(&self) -> usize {
        self.open.len()
    }

    /// The next event.
    pub fn next(&mut self) -> Result<Ev<'a>, FormatError> {
        self.last_cdata = false;
        loop {
            let event = match self.reader.read_event() {
                Ok(event) => event,
                Err(e) => {
                    let at = self.position(self.reader.error_position());
                    return Err(self.damaged(format!("{e} at {at}")));
                }
            };
            match event {
                Event::Start(e) => {
                    let name = e.name().into_inner().to_owned();
                    if self.mode == Mode::Html && is_void(&name) {
                        return Ok(Ev::Empty(e));
                    }
                    if self.open.len() >= self.max_depth {
                        let at = self.position(self.reader.buffer_position());
                        return Err(FormatError::OverLimit {
                            format: self.format,
                            reason: format!(
                                "elements nested deeper than {} (at {at})",
                                self.max_depth
                            ),
                        });
                    }
                    self.open.push(name);
                    return Ok(Ev::Start(e));
                }
                Event::Empty(e) => return Ok(Ev::Empty(e)),
                Event::End(e) => {
                    let name = e.name().into_inner();
                    let matches = |open: &str| match self.mode {
                        Mode::Xml => open == name,
                        Mode::Html => open.eq_ignore_ascii_case(name),
                    };
                    match self.open.last() {
                        Some(open) if matches(open) => {
                            self.open.pop();
                            return Ok(Ev::End);
                        }
                        // HTML reads `</br>` as a second `<br>`; other
                        // void elements' end tags are nothing.
                        _ if self.mode == Mode::Html && name.eq_ignore_ascii_case("br") => {
                            return Ok(Ev::Empty(BytesStart::new("br")))
                        }
                        _ if self.mode == Mode::Html && is_void(name) => continue,
                        open => {
                            let at = self.position(self.reader.buffer_position());
                            let reason = match open {
                                Some(open) => format!("</{name}> closes <{open}> at {at}"),
                                None => format!("</{name}> closes nothing at {at}"),
                            };
                            return Err(self.damaged(reason));
                        }
                    }
                }
                Event::Text(t) => return Ok(Ev::Text(t.xml10_content())),
                Event::CData(t) => {
                    self.last_cdata = true;
                    return Ok(Ev::Text(t.into_inner()));
                }
                Event::GeneralRef(r) => {
                    if let Ok(Some(c)) = r.resolve_char_ref() {
                        if ('\u{80}'..='\u{9f}').contains(&c) {
                            self.c1_refs += 1;
                        }
                        return Ok(Ev::Text(Cow::Owned(c.to_string())));
                    }
                    if let Some(s) = (!r.is_char_ref()).then(|| resolve(&r)).flatten() {
                        return Ok(Ev::Text(Cow::Borrowed(s)));
                    }
                    self.undefined += 1;
                    if self.first_undefined.is_none() {
                        self.first_undefined = Some(format!("&{};", &*r));
                    }
                }
                Event::Eof => {
                    return match self.open.last() {
                        None => Ok(Ev::Eof),
                        Some(open) => {
                            let open = open.clone();
                            let at = self.position(self.source.len() as u64);
                            Err(self.damaged(format!(
                                "the file ends inside <{open}> at {at}: it looks truncated"
                            )))
                        }
                    };
                }
                Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) => {}
            }
        }
    }

    /// Skip the content of the element just opened, through its end.
    pub fn skip(&mut self) -> Result<(), FormatError> {
        let depth = self.depth();
        while self.depth() >= depth {
            if let Ev::Eof = self.next()? {
                break;
            }
        }
        Ok(())
    }

    /// The attribute of `element` whose local name is `name`, entities
    /// resolved (kept as written when one is undefined).
    pub fn attr(&self, element: &BytesStart<'_>, name: &str) -> Option<String> {
        let [value] = self.attrs(element, [name]);
        value.map(Cow::into_owned)
    }

    /// The attributes of `element` named `names` (local names), in one
    /// pass over its attributes, borrowed from the file where no entity
    /// had to be resolved.
    pub fn attrs<'e, const N: usize>(
        &self,
        element: &'e BytesStart<'_>,
        names: [&str; N],
    ) -> [Option<Cow<'e, str>>; N] {
        let by = match self.mode {
            Mode::Xml => Names::Local,
            Mode::Html => Names::LocalAnyCase,
        };
        self.attrs_by(element, names, by)
    }

    /// The attributes of `element` named `names` by their whole name,
    /// prefix included (`epub:type`), in any case, as HTML names them.
    pub fn attrs_qualified<'e, const N: usize>(
        &self,
        element: &'e BytesStart<'_>,
        names: [&str; N],
    ) -> [Option<Cow<'e, str>>; N] {
        self.attrs_by(element, names, Names::Qualified)
    }

    /// The attributes of `element` named `names` as `by` matches names:
    /// read directly from a plain start tag ([`plain_attrs`]; not for an
    /// HTML element's local names, hOCR's, which go the full way), else
    /// through quick-xml's attributes.
    fn attrs_by<'e, const N: usize>(
        &self,
        element: &'e BytesStart<'_>,
        names: [&str; N],
        by: Names,
    ) -> [Option<Cow<'e, str>>; N] {
        if !matches!(by, Names::LocalAnyCase) {
            if let Some(values) = plain_attrs(element.attributes_raw(), names, by) {
                return values;
            }
        }
        let mut values = [const { None }; N];
        for a in self.each_attr(element) {
            let key = match by {
                Names::Local | Names::LocalAnyCase => a.key.local_name().into_inner(),
                Names::Qualified => a.key.into_inner(),
            };
            let found = names.iter().position(|name| by.matches(key, name));
            if let Some(i) = found.filter(|&i| values[i].is_none()) {
                values[i] = Some(value(&a));
            }
        }
        values
    }

    /// Every attribute of `element` in order: its local name and its
    /// value, entities resolved as in [`Events::attr`].
    pub fn attributes(&self, element: &BytesStart<'_>) -> Vec<(String, String)> {
        self.each_attr(element)
            .map(|a| {
                (
                    a.key.local_name().into_inner().to_owned(),
                    value(&a).into_owned(),
                )
            })
            .collect()
    }

    /// The attributes of `element`, read as the mode says; a malformed
    /// one is skipped, not fatal.
    fn each_attr<'e>(&self, element: &'e BytesStart<'_>) -> impl Iterator<Item = Attribute<'e>> {
        let mut attributes = match self.mode {
            Mode::Xml => element.attributes(),
            Mode::Html => element.html_attributes(),
        };
        attributes.with_checks(false);
        attributes.flatten()
    }

    /// Whether the text read so far holds something HTML reads otherwise
    /// than XML: a reference to an undefined entity (HTML keeps it as
    /// written), or a character reference to a C1 control.
    pub fn read_unlike_html(&self) -> bool {
        self.undefined > 0 || self.c1_refs > 0
    }

    /// Whether the last event was the text of a CDATA section (HTML reads
    /// one outside SVG and MathML as a comment).
    pub fn was_cdata(&self) -> bool {
        self.last_cdata
    }

    /// What was left out for want of a DTD, in words.
    pub fn left_out(&self) -> Option<String> {
        let first = self.first_undefined.as_deref()?;
        Some(match self.undefined {
            1 => format!("1 reference to an undefined entity ({first}, not expanded)"),
            n => format!("{n} references to undefined entities (such as {first}, not expanded)"),
        })
    }

    fn damaged(&self, reason: String) -> FormatError {
        FormatError::Damaged {
            format: self.format,
            reason,
        }
    }

    /// Where `offset` of the text is: line and column (and byte, when
    /// offsets are the file's).
    fn position(&self, offset: u64) -> String {
        let offset = (offset as usize).min(self.source.len());
        let mut offset = offset;
        while !self.source.is_char_boundary(offset) {
            offset -= 1;
        }
        let before = &self.source[..offset];
        let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
        let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
        if self.transcoded {
            format!("line {line}, column {column}")
        } else {
            format!("line {line}, column {column} (byte {offset})")
        }
    }
}

/// An attribute's value, entities resolved (kept as written when one is
/// undefined).
fn value<'e>(a: &Attribute<'e>) -> Cow<'e, str> {
    a.normalized_value_with(XmlVersion::Implicit1_0, 1, resolve)
        .unwrap_or_else(|_| a.value.clone())
}

/// The values of the attributes `names` (local names) in the attribute
/// text `raw` of an XML start tag, read directly: an OCR word's element
/// carries eight or so attributes of which a reader wants two, and this
/// is most of the time ALTO and hOCR take. `None` (read them the full way,
/// [`Events::attrs`]) for anything but the plain case: a value the reader
/// wants that holds a reference or whitespace to normalize, or text that
/// is not `name="value"` pairs.
fn plain_attrs<'e, const N: usize>(
    raw: &'e str,
    names: [&str; N],
    by: Names,
) -> Option<[Option<Cow<'e, str>>; N]> {
    let bytes = raw.as_bytes();
    let mut values = [const { None }; N];
    let mut i = 0;
    let skip_space = |mut i: usize| {
        while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        i
    };
    loop {
        i = skip_space(i);
        if i >= bytes.len() {
            return Some(values);
        }
        let start = i;
        while i < bytes.len() && bytes[i] != b'=' && !bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        let name = &raw[start..i];
        i = skip_space(i);
        if bytes.get(i) != Some(&b'=') {
            return None;
        }
        i = skip_space(i + 1);
        let quote = *bytes.get(i).filter(|q| matches!(q, b'"' | b'\''))?;
        let from = i + 1;
        // Values are a few bytes: a plain loop beats memchr's setup.
        let to = from + bytes[from..].iter().position(|&b| b == quote)?;
        i = to + 1;
        let key = by.key(name);
        let Some(k) = names.iter().position(|n| by.matches(key, n)) else {
            continue;
        };
        if values[k].is_some() {
            continue;
        }
        let value = &raw[from..to];
        if value
            .bytes()
            .any(|b| matches!(b, b'&' | b'\t' | b'\n' | b'\r' | b'<'))
        {
            return None;
        }
        values[k] = Some(Cow::Borrowed(value));
    }
}

/// How attribute names are matched.
#[derive(Debug, Clone, Copy)]
enum Names {
    /// By local name, exactly (XML).
    Local,
    /// By local name in any case (the XHTML an OCR tool writes).
    LocalAnyCase,
    /// By the whole name in any case (HTML).
    Qualified,
}

impl Names {
    /// The part of an attribute's `name` that is matched.
    fn key(self, name: &str) -> &str {
        match self {
            Names::Local | Names::LocalAnyCase => after_prefix(name),
            Names::Qualified => name,
        }
    }

    /// Whether `key` (of [`Names::key`]) is the name `wanted`.
    fn matches(self, key: &str, wanted: &str) -> bool {
        match self {
            Names::Local => key == wanted,
            Names::LocalAnyCase | Names::Qualified => key.eq_ignore_ascii_case(wanted),
        }
    }
}

/// Whether `name` (its local name, in any case) is one of HTML's void
/// elements: never closed, never holding content.
pub(crate) fn is_void(name: &str) -> bool {
    const VOID: [&str; 14] = [
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
        "source", "track", "wbr",
    ];
    let local = after_prefix(name);
    VOID.iter().any(|v| local.eq_ignore_ascii_case(v))
}

/// The five XML entities, then HTML5's (which include the ISO sets TEI P4
/// declares in its DTD: `&mdash;`, `&eacute;`).
fn resolve(name: &str) -> Option<&'static str> {
    resolve_xml_entity(name).or_else(|| resolve_html5_entity(name))
}

/// The local name of `element` (namespace prefix dropped).
pub(crate) fn local<'e>(element: &'e BytesStart<'_>) -> &'e str {
    after_prefix(element.name().into_inner())
}

/// `name` without its namespace prefix. Names are short: a byte loop, not
/// `rsplit`'s searcher (a tenth of an ALTO file's reading time).
fn after_prefix(name: &str) -> &str {
    match name.bytes().rposition(|b| b == b':') {
        Some(colon) => &name[colon + 1..],
        None => name,
    }
}

/// What separates the next word from the one before.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Break {
    /// Nothing: the next text continues the word.
    None,
    /// One space.
    Space,
    /// A new line.
    Line,
    /// A blank line.
    Paragraph,
}

/// A book's text laid out word by word: breaks wait until the next word
/// (the strongest wins), so no page starts or ends with one.
pub(crate) struct Flow {
    book: PagedText,
    pending: Break,
    page_empty: bool,
    pages: usize,
    explicit: bool,
    max_pages: usize,
    format: Format,
}

impl Flow {
    /// An empty book of `format`.
    pub fn new(format: Format, limits: &Limits) -> Self {
        Self {
            book: PagedText::new(),
            pending: Break::None,
            page_empty: true,
            pages: 0,
            explicit: false,
            max_pages: limits.max_pages,
            format,
        }
    }

    /// Start a page the source marks.
    pub fn page(
        &mut self,
        label: Option<String>,
        image: Option<String>,
    ) -> Result<(), FormatError> {
        if self.pages >= self.max_pages {
            return Err(FormatError::OverLimit {
                format: self.format,
                reason: format!("more than {} pages", self.max_pages),
            });
        }
        self.book.start_page(label, image);
        self.pages += 1;
        self.explicit = true;
        self.pending = Break::None;
        self.page_empty = true;
        Ok(())
    }

    /// How many pages have started.
    pub fn pages(&self) -> usize {
        self.pages
    }

    /// Separate what comes next by at least `at`.
    pub fn brk(&mut self, at: Break) {
        self.pending = self.pending.max(at);
    }

    /// Add `word` (no whitespace in it) after the pending break. Text
    /// before any page the source marks goes on a first, unlabelled page.
    pub fn word(&mut self, word: &str) {
        if word.is_empty() {
            return;
        }
        if self.pages == 0 {
            self.book.start_page(None, None);
            self.pages = 1;
        }
        let text = self.book.text_mut();
        if !self.page_empty {
            text.push_str(match self.pending {
                Break::None => "",
                Break::Space => " ",
                Break::Line => "\n",
                Break::Paragraph => "\n\n",
            });
        }
        text.push_str(word);
        self.pending = Break::None;
        self.page_empty = false;
    }

    /// Add `s` right after the last word, leaving the pending break for
    /// the next (a hyphen, a word's trailing punctuation).
    pub fn glue(&mut self, s: &str) {
        if !self.page_empty {
            self.book.text_mut().push_str(s);
        }
    }

    /// Add running text, its whitespace collapsed as a browser does.
    pub fn text(&mut self, text: &str) {
        let space = |c: char| c.is_ascii_whitespace();
        if text.starts_with(space) {
            self.brk(Break::Space);
        }
        for (i, word) in text.split(space).filter(|w| !w.is_empty()).enumerate() {
            if i > 0 {
                self.brk(Break::Space);
            }
            self.word(word);
        }
        if text.ends_with(space) {
            self.brk(Break::Space);
        }
    }

    /// The text and its map; without a page the source marked, no map.
    pub fn finish(self) -> (String, PageMap) {
        let explicit = self.explicit;
        let (text, map) = self.book.finish();
        (text, if explicit { map } else { PageMap::default() })
    }
}

/// The mean of word confidences, each from 0 to 1.
#[derive(Debug, Default)]
pub(crate) struct Confidence {
    sum: f64,
    words: u64,
}

impl Confidence {
    /// Count one word's confidence; values outside 0–1 are ignored.
    pub fn add(&mut self, value: f64) {
        if (0.0..=1.0).contains(&value) {
            self.sum += value;
            self.words += 1;
        }
    }

    /// The mean, when any word had one.
    pub fn mean(&self) -> Option<f32> {
        (self.words > 0).then(|| (self.sum / self.words as f64) as f32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The attributes of the first element of `xml`, read as a reader
    /// reads them.
    fn first_attrs<const N: usize>(xml: &str, names: [&str; N]) -> [Option<String>; N] {
        first_element_attrs(xml, Mode::Xml, |events, e| events.attrs(e, names))
    }

    /// The attributes `names` of the first element of the XHTML `html`, by
    /// their whole names as HTML matches them.
    fn first_html_attrs<const N: usize>(html: &str, names: [&str; N]) -> [Option<String>; N] {
        first_element_attrs(html, Mode::Html, |events, e| {
            events.attrs_qualified(e, names)
        })
    }

    /// What `attrs` reads of the first element of `source`, read in `mode`.
    fn first_element_attrs<const N: usize>(
        source: &str,
        mode: Mode,
        attrs: impl for<'e> Fn(&Events<'_>, &'e BytesStart<'_>) -> [Option<Cow<'e, str>>; N],
    ) -> [Option<String>; N] {
        let decoded = decode(source.as_bytes(), Format::Alto).unwrap();
        let mut events = Events::new(&decoded, Format::Alto, mode, &Limits::default());
        loop {
            match events.next().unwrap() {
                Ev::Start(e) | Ev::Empty(e) => {
                    return attrs(&events, &e).map(|v| v.map(Cow::into_owned))
                }
                Ev::Eof => panic!("no element in {source}"),
                _ => {}
            }
        }
    }

    #[test]
    fn html_attributes_match_by_whole_name_in_any_case() {
        // Plain pairs (read directly): `epub:type` is not `type`.
        assert_eq!(
            first_html_attrs(
                r#"<aside type="x" EPUB:TYPE="footnote" Class='note'>"#,
                ["epub:type", "class", "type"]
            ),
            [
                Some("footnote".into()),
                Some("note".into()),
                Some("x".into())
            ]
        );
        // HTML's own forms (a bare name, an unquoted value): the full way.
        assert_eq!(
            first_html_attrs("<p hidden class=cookie-bar>", ["hidden", "class", "id"]),
            [Some("".into()), Some("cookie-bar".into()), None]
        );
    }

    #[test]
    fn a_word_is_read_directly_and_anything_unusual_the_full_way_alike() {
        let word = r#"<String ID="s1" HPOS="10" VPOS="20" WIDTH="40" HEIGHT="12" WC="0.96" CONTENT="Emma"/>"#;
        assert!(plain_attrs(
            r#" ID="s1" WC="0.96" CONTENT="Emma""#,
            ["CONTENT", "WC"],
            Names::Local
        )
        .is_some());
        assert_eq!(
            first_attrs(word, ["CONTENT", "WC", "SUBS_TYPE"]),
            [Some("Emma".into()), Some("0.96".into()), None]
        );
        // A reference, a namespace prefix, single quotes and spaces around
        // `=`: the same values either way.
        let unusual = "<alto:String alto:CONTENT = 'M&amp;S' WC=\"0.5\"/>";
        assert_eq!(
            first_attrs(unusual, ["CONTENT", "WC"]),
            [Some("M&S".into()), Some("0.5".into())]
        );
        assert!(plain_attrs(" CONTENT='M&amp;S'", ["CONTENT"], Names::Local).is_none());
        // A value with a line break is normalized (XML 1.0: a space).
        assert_eq!(
            first_attrs("<String CONTENT=\"a\nb\"/>", ["CONTENT"]),
            [Some("a b".into())]
        );
        // The first of a repeated attribute counts, as quick-xml reads it.
        assert_eq!(
            first_attrs(r#"<String CONTENT="one" CONTENT="two"/>"#, ["CONTENT"]),
            [Some("one".into())]
        );
    }
}
