//! TEI (P5 `TEI`, P4 `TEI.2`, `teiCorpus`): the text of `<text>` (front,
//! body, back), block elements (`p`, `head`, `lg`, `item`, a `quote` or
//! `note` between paragraphs, …) separated by blank lines, verse lines
//! (`l`) and `lb` by line ends. The `teiHeader` is metadata, left out.
//!
//! `<pb n="…" facs="…"/>` starts a page (label `n`, image `facs`); text
//! before the first `pb` is a first, unlabelled page only when there is
//! some; a TEI without `pb` has no page map.
//!
//! Notes are kept by default ([`ReadOptions::keep_notes`]): one inside a
//! paragraph follows that paragraph (not mid-sentence), one between
//! paragraphs stays in place. In a `choice`, the editor's reading is kept
//! (`corr`, `reg`, `expan`) and the source's (`sic`, `orig`, `abbr`) left
//! out, so a word is not read twice.

use crate::xml::{self, local, Break, Ev, Events, Flow, Mode};
use crate::{Book, Format, FormatError, Limits, ReadOptions};

/// Elements that are blocks of their own, whatever holds them.
const BLOCKS: &[&str] = &[
    "p",
    "head",
    "ab",
    "lg",
    "item",
    "list",
    "div",
    "div1",
    "div2",
    "div3",
    "div4",
    "div5",
    "div6",
    "div7",
    "front",
    "body",
    "back",
    "group",
    "titlePage",
    "docTitle",
    "titlePart",
    "docAuthor",
    "docImprint",
    "docDate",
    "byline",
    "dateline",
    "opener",
    "closer",
    "salute",
    "signed",
    "epigraph",
    "argument",
    "trailer",
    "sp",
    "speaker",
    "table",
    "row",
    "figure",
    "castList",
    "castItem",
    "listBibl",
    "label",
    "postscript",
];

/// Elements that are blocks between paragraphs and inline within one.
const FLOATING: &[&str] = &["quote", "cit", "stage", "bibl", "note", "q", "floatingText"];

/// Elements that hold running text: inside one, a [`FLOATING`] element
/// is inline.
const RUNNING: &[&str] = &["p", "head", "l", "ab", "item", "label", "speaker", "cell"];

/// What an open element is to the text.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Block,
    Line,
    Running,
    Choice,
    Note,
    Other,
}

/// Read a TEI file, with the curator's `options`.
pub(crate) fn read(
    bytes: &[u8],
    limits: &Limits,
    options: &ReadOptions,
) -> Result<Book, FormatError> {
    let decoded = xml::decode(bytes, Format::Tei)?;
    let mut events = Events::new(&decoded, Format::Tei, Mode::Xml, limits);
    let mut flow = Flow::new(Format::Tei, limits);
    let mut open: Vec<Kind> = Vec::new();
    let mut in_text = 0usize;
    let mut running = 0usize;
    let mut header = false;
    let mut notes_dropped = 0usize;
    // A note inside a paragraph, gathered while it is open, written after
    // the paragraph.
    let mut note: Option<String> = None;
    let mut deferred: Vec<String> = Vec::new();
    loop {
        let (element, empty) = match events.next()? {
            Ev::Eof => break,
            Ev::Start(e) => (e, false),
            Ev::Empty(e) => (e, true),
            Ev::End => {
                match open.pop() {
                    Some(Kind::Block) => flow.brk(Break::Paragraph),
                    Some(Kind::Line) => {
                        end_running(&mut flow, &mut running, &mut deferred, Break::Line)
                    }
                    Some(Kind::Running) => {
                        end_running(&mut flow, &mut running, &mut deferred, Break::Paragraph)
                    }
                    Some(Kind::Note) => {
                        if let Some(text) = note.take() {
                            deferred.push(text);
                        }
                    }
                    Some(Kind::Other) if events.depth() + 1 == in_text => in_text = 0,
                    _ => {}
                }
                continue;
            }
            Ev::Text(text) => {
                if let Some(note) = note.as_mut() {
                    note.push_str(&text);
                } else if in_text > 0 {
                    flow.text(&text);
                }
                continue;
            }
        };
        let name = local(&element);
        if name == "teiHeader" && !empty {
            header = true;
            events.skip()?;
            continue;
        }
        if in_text == 0 {
            if name == "text" && !empty {
                // Its depth, to know its end (a `text` may nest in `group`).
                in_text = events.depth();
                open.push(Kind::Other);
            } else if !empty {
                open.push(Kind::Other);
            }
            continue;
        }
        let in_choice = open.last() == Some(&Kind::Choice);
        let kind = match name {
            "pb" => {
                let attr = |name| {
                    let value = events.attr(&element, name)?;
                    Some(value.trim().to_owned()).filter(|v| !v.is_empty())
                };
                let (label, image) = (attr("n"), attr("facs"));
                flow.page(label, image)?;
                Kind::Other
            }
            "lb" => {
                flow.brk(Break::Line);
                Kind::Other
            }
            "sic" | "orig" | "abbr" if in_choice => {
                if !empty {
                    events.skip()?;
                }
                continue;
            }
            "figDesc" | "fw" if !empty => {
                events.skip()?;
                continue;
            }
            "note" if !options.keep_notes => {
                notes_dropped += 1;
                if !empty {
                    events.skip()?;
                }
                continue;
            }
            "note" if running > 0 && note.is_none() => {
                note = Some(String::new());
                Kind::Note
            }
            "choice" => Kind::Choice,
            "l" => {
                flow.brk(Break::Line);
                running += 1;
                Kind::Line
            }
            _ if RUNNING.contains(&name) => {
                flow.brk(Break::Paragraph);
                running += 1;
                Kind::Running
            }
            _ if BLOCKS.contains(&name) || (running == 0 && FLOATING.contains(&name)) => {
                flow.brk(Break::Paragraph);
                Kind::Block
            }
            _ => Kind::Other,
        };
        if let Some(note) = note.as_mut() {
            // Inside a deferred note, structure is a space.
            note.push(' ');
        }
        if empty {
            match kind {
                Kind::Line => end_running(&mut flow, &mut running, &mut deferred, Break::Line),
                Kind::Running => {
                    end_running(&mut flow, &mut running, &mut deferred, Break::Paragraph)
                }
                Kind::Note => {
                    note = None;
                }
                _ => {}
            }
        } else {
            open.push(kind);
        }
    }
    let (text, pages) = flow.finish();
    let mut left_out = Vec::new();
    if header {
        left_out.push("the TEI header".to_owned());
    }
    match notes_dropped {
        0 => {}
        1 => left_out.push("1 note".to_owned()),
        n => left_out.push(format!("{n} notes")),
    }
    left_out.extend(events.left_out());
    left_out.extend(decoded.note.clone());
    Ok(Book {
        format: Format::Tei,
        gzipped: false,
        text,
        pages,
        left_out,
        confidence: None,
    })
}

/// The end of an element of running text (`p`, `l`, …): break by `at`,
/// and after the outermost, write the notes it held.
fn end_running(flow: &mut Flow, running: &mut usize, deferred: &mut Vec<String>, at: Break) {
    *running -= 1;
    flow.brk(at);
    if *running == 0 {
        for text in deferred.drain(..) {
            flow.brk(Break::Paragraph);
            flow.text(&text);
            flow.brk(Break::Paragraph);
        }
    }
}
