//! ALTO (v2–v4, any namespace prefix): the words of `String/@CONTENT`, a
//! line per `TextLine`, a blank line between `TextBlock`s, a page per
//! `Page` (labelled by `@PRINTED_IMG_NR`), the mean `String/@WC` as the
//! book's confidence.
//!
//! A word hyphenated across lines (`SUBS_TYPE="HypPart1"`/`"HypPart2"`
//! with `SUBS_CONTENT`) is written whole once, on its first part's line;
//! a bare `HYP` stays a hyphen at the line's end. The page image is
//! `Description/sourceImageInformation/fileName`, which ALTO gives once
//! per file: it names the first page's image only (an ALTO file is meant
//! to hold one page; a multi-page one does not say the others').

use crate::xml::{self, local, Break, Confidence, Ev, Events, Flow, Mode};
use crate::{Book, Format, FormatError, Limits};

/// Read an ALTO file.
pub(crate) fn read(bytes: &[u8], limits: &Limits) -> Result<Book, FormatError> {
    let decoded = xml::decode(bytes, Format::Alto)?;
    let mut events = Events::new(&decoded, Format::Alto, Mode::Xml, limits);
    let mut flow = Flow::new(Format::Alto, limits);
    let mut confidence = Confidence::default();
    let mut file_name: Option<String> = None;
    let mut in_file_name = false;
    // The whole word of a hyphenation written at its first part, and the
    // page it was written on.
    let mut joined: Option<(String, usize)> = None;
    loop {
        let (element, empty) = match events.next()? {
            Ev::Eof => break,
            Ev::Start(e) => (e, false),
            Ev::Empty(e) => (e, true),
            Ev::End => {
                in_file_name = false;
                continue;
            }
            Ev::Text(t) => {
                if in_file_name {
                    file_name.get_or_insert_with(String::new).push_str(t.trim());
                }
                continue;
            }
        };
        match local(&element) {
            "fileName" if !empty && file_name.is_none() => in_file_name = true,
            "Page" => {
                let label = events
                    .attr(&element, "PRINTED_IMG_NR")
                    .map(|l| l.trim().to_owned())
                    .filter(|l| !l.is_empty());
                let image = if flow.pages() == 0 {
                    file_name.clone().filter(|f| !f.is_empty())
                } else {
                    None
                };
                flow.page(label, image)?;
            }
            "TextBlock" => flow.brk(Break::Paragraph),
            "TextLine" => flow.brk(Break::Line),
            "SP" => flow.brk(Break::Space),
            "HYP" if joined.is_none() => flow.glue("-"),
            "String" => {
                let [content, wc, subs_type, whole] =
                    events.attrs(&element, ["CONTENT", "WC", "SUBS_TYPE", "SUBS_CONTENT"]);
                if let Some(Ok(wc)) = wc.map(|wc| wc.trim().parse::<f64>()) {
                    confidence.add(wc);
                }
                let content = content.unwrap_or_default();
                let whole = whole.map(|w| w.trim().to_owned()).filter(|w| !w.is_empty());
                match (subs_type.as_deref(), whole, joined.take()) {
                    (Some("HypPart1"), Some(whole), _) => {
                        flow.brk(Break::Space);
                        flow.word(&whole);
                        joined = Some((whole, flow.pages()));
                    }
                    (Some("HypPart2"), _, Some((whole, page))) => {
                        // Punctuation after the word's second part goes
                        // after the whole word, unless SUBS_CONTENT has it.
                        let tail = content.trim_start_matches(char::is_alphanumeric);
                        let tail = tail.trim_end_matches(char::is_whitespace);
                        if page == flow.pages() && !whole.ends_with(tail) {
                            flow.glue(tail);
                        }
                    }
                    _ => {
                        flow.brk(Break::Space);
                        flow.text(&content);
                    }
                }
            }
            _ => {}
        }
    }
    let (text, pages) = flow.finish();
    let mut left_out = Vec::new();
    left_out.extend(events.left_out());
    left_out.extend(decoded.note.clone());
    Ok(Book {
        format: Format::Alto,
        gzipped: false,
        text,
        pages,
        left_out,
        confidence: confidence.mean(),
    })
}
