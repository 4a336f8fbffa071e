//! hOCR (Tesseract's, the Internet Archive's): a page per `ocr_page`
//! (its image from the `title`'s `image "…"`), a paragraph per `ocr_par`
//! or `ocr_carea`, a line per `ocr_line`, `ocrx_line`, `ocr_header`,
//! `ocr_caption` or `ocr_textfloat`, the words' text (entities decoded,
//! whitespace collapsed), and the mean `x_wconf` (0–100) as the book's
//! confidence.
//!
//! `ppageno` is the page's place in the scanned sequence, counted from 0,
//! not the number printed on it: it gives no label (the page's place in
//! the file names it, as for any unlabelled page).
//!
//! hOCR is read as XHTML (what Tesseract writes), forgiving unclosed void
//! elements (`<meta>`, `<br>`), unquoted attributes and HTML's entities;
//! an HTML file that is not well-formed beyond that is damaged, with the
//! place it goes wrong.

use crate::xml::{self, Break, Confidence, Ev, Events, Flow, Mode};
use crate::{Book, Format, FormatError, Limits};

/// What an open element is to the text.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Page,
    Paragraph,
    Line,
    Word,
    Skipped,
    Other,
}

/// Read an hOCR file.
pub(crate) fn read(bytes: &[u8], limits: &Limits) -> Result<Book, FormatError> {
    let decoded = xml::decode(bytes, Format::Hocr)?;
    let mut events = Events::new(&decoded, Format::Hocr, Mode::Html, limits);
    let mut flow = Flow::new(Format::Hocr, limits);
    let mut confidence = Confidence::default();
    let mut open: Vec<Kind> = Vec::new();
    let mut in_page = 0usize;
    loop {
        let (element, empty) = match events.next().map_err(not_xhtml)? {
            Ev::Eof => break,
            Ev::Start(e) => (e, false),
            Ev::Empty(e) => (e, true),
            Ev::End => {
                match open.pop() {
                    Some(Kind::Paragraph) => flow.brk(Break::Paragraph),
                    Some(Kind::Line) => flow.brk(Break::Line),
                    Some(Kind::Word) => flow.brk(Break::Space),
                    Some(Kind::Page) => in_page -= 1,
                    _ => {}
                }
                continue;
            }
            Ev::Text(text) => {
                if in_page > 0 {
                    flow.text(&text);
                }
                continue;
            }
        };
        let name = xml::local(&element).to_ascii_lowercase();
        let [class, title] = events
            .attrs(&element, ["class", "title"])
            .map(Option::unwrap_or_default);
        let kind = if matches!(name.as_str(), "head" | "script" | "style") {
            Kind::Skipped
        } else if let Some(class) = class.split_ascii_whitespace().find_map(kind_of) {
            class
        } else if name == "br" {
            Kind::Line
        } else {
            Kind::Other
        };
        match kind {
            Kind::Page => {
                flow.page(None, property(&title, "image").map(unquote))?;
                in_page += 1;
            }
            Kind::Paragraph => flow.brk(Break::Paragraph),
            Kind::Line => flow.brk(Break::Line),
            Kind::Word => {
                flow.brk(Break::Space);
                if let Some(wconf) = property(&title, "x_wconf") {
                    if let Ok(wconf) = wconf.trim().parse::<f64>() {
                        confidence.add(wconf / 100.0);
                    }
                }
            }
            Kind::Skipped if !empty => {
                events.skip().map_err(not_xhtml)?;
                continue;
            }
            Kind::Skipped | Kind::Other => {}
        }
        if empty {
            if kind == Kind::Page {
                in_page -= 1;
            }
        } else {
            open.push(kind);
        }
    }
    if flow.pages() == 0 {
        return Err(FormatError::Unusable {
            format: Format::Hocr,
            reason: "no ocr_page holds any text".into(),
        });
    }
    let (text, pages) = flow.finish();
    let mut left_out = Vec::new();
    left_out.extend(events.left_out());
    left_out.extend(decoded.note.clone());
    Ok(Book {
        format: Format::Hocr,
        gzipped: false,
        text,
        pages,
        left_out,
        confidence: confidence.mean(),
    })
}

/// A markup error's reason, saying why it matters for hOCR.
fn not_xhtml(error: FormatError) -> FormatError {
    match error {
        FormatError::Damaged { format, reason } => FormatError::Damaged {
            format,
            reason: format!(
                "not well-formed XHTML ({reason}); doppel reads hOCR as XHTML, as Tesseract writes it"
            ),
        },
        other => other,
    }
}

/// What an hOCR class makes of its element.
fn kind_of(class: &str) -> Option<Kind> {
    Some(match class {
        "ocr_page" => Kind::Page,
        "ocr_par" | "ocr_carea" | "ocrx_block" => Kind::Paragraph,
        "ocr_line" | "ocrx_line" | "ocr_header" | "ocr_caption" | "ocr_textfloat" => Kind::Line,
        "ocrx_word" => Kind::Word,
        _ => return None,
    })
}

/// The value of `key` in an hOCR `title` (`"image 'p1.png'; bbox 0 0 W H"`).
fn property<'t>(title: &'t str, key: &str) -> Option<&'t str> {
    title.split(';').find_map(|p| {
        let (k, v) = p.trim().split_once(char::is_whitespace)?;
        (k == key).then(|| v.trim())
    })
}

fn unquote(value: &str) -> String {
    let v = value.trim();
    for q in ['"', '\''] {
        if let Some(inner) = v.strip_prefix(q).and_then(|v| v.strip_suffix(q)) {
            return inner.to_owned();
        }
    }
    v.to_owned()
}
