//! The small XML files of a package (an EPUB's container, OPF, NCX and
//! encryption list, a METS file) as a flat, owned list of events: the
//! bounded stream of [`crate::xml`] (depth limit, every element closed,
//! entities resolved without a DTD) read to its end and kept, so a reader
//! can look back and ahead. Each error names the file it is about.

use std::borrow::Cow;

use crate::xml::{local, Decoded, Ev, Events, Mode};
use crate::{Format, FormatError, Limits};

/// One thing in an XML file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum XmlEvent {
    /// An element starts (`empty`: it also ends there, `<a/>`).
    Start {
        /// Its local name (namespace prefix dropped).
        name: String,
        /// Its attributes by local name, values unescaped.
        attrs: Vec<(String, String)>,
        /// Whether it is empty (`<a/>`): no `End` follows.
        empty: bool,
    },
    /// An element ends.
    End,
    /// Text (entities and character references resolved).
    Text(String),
}

impl XmlEvent {
    /// The value of attribute `name` of a start.
    pub fn attr(&self, name: &str) -> Option<&str> {
        match self {
            XmlEvent::Start { attrs, .. } => attrs
                .iter()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.as_str()),
            _ => None,
        }
    }
}

/// The events of the XML `bytes` (`what` names the file in an error),
/// read by [`Events`] and kept.
pub(crate) fn events(
    bytes: &[u8],
    what: &str,
    format: Format,
    limits: &Limits,
) -> Result<Vec<XmlEvent>, FormatError> {
    let text = crate::html::decode(bytes);
    let transcoded = !matches!(&text, Cow::Borrowed(t) if t.as_ptr() == bytes.as_ptr());
    let decoded = Decoded {
        text,
        note: None,
        transcoded,
    };
    let mut stream = Events::new(&decoded, format, Mode::Xml, limits);
    let mut out = Vec::new();
    loop {
        let (e, empty) = match stream.next().map_err(|e| naming(e, what))? {
            Ev::Start(e) => (e, false),
            Ev::Empty(e) => (e, true),
            Ev::End => {
                out.push(XmlEvent::End);
                continue;
            }
            Ev::Text(t) => {
                out.push(XmlEvent::Text(t.into_owned()));
                continue;
            }
            Ev::Eof => return Ok(out),
        };
        out.push(XmlEvent::Start {
            name: local(&e).to_owned(),
            attrs: stream.attributes(&e),
            empty,
        });
    }
}

/// `error` saying which file of the package it is about.
fn naming(error: FormatError, what: &str) -> FormatError {
    match error {
        FormatError::Damaged { format, reason } => FormatError::Damaged {
            format,
            reason: format!("{what} is not well-formed XML ({reason})"),
        },
        FormatError::OverLimit { format, reason } => FormatError::OverLimit {
            format,
            reason: format!("{what} has {reason}"),
        },
        error => error,
    }
}

/// The text inside the element starting at `events[start]` (to its end),
/// whitespace collapsed. Elements separate words; a reference does not
/// (`Caf&#233;` is one word, though its `é` is an event of its own).
pub(crate) fn text_of(events: &[XmlEvent], start: usize) -> String {
    let mut depth = 0usize;
    let mut text = String::new();
    for event in &events[start..] {
        match event {
            XmlEvent::Start { empty: false, .. } => {
                depth += 1;
                text.push(' ');
            }
            XmlEvent::Start { .. } => text.push(' '),
            XmlEvent::End => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    break;
                }
                text.push(' ');
            }
            XmlEvent::Text(t) => text.push_str(t),
        }
        if depth == 0 {
            break;
        }
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(xml: &str, limits: &Limits) -> Result<Vec<XmlEvent>, FormatError> {
        events(xml.as_bytes(), "content.opf", Format::Epub, limits)
    }

    #[test]
    fn a_package_file_reads_by_local_names_and_its_errors_name_it() {
        let opf = r#"<opf:package xmlns:opf="x"><opf:item opf:id="c1" href="caf&eacute;.xhtml"/> Le
 titre </opf:package>"#;
        let events = read(opf, &Limits::default()).unwrap();
        assert_eq!(events[1].attr("id"), Some("c1"));
        assert_eq!(events[1].attr("href"), Some("café.xhtml"));
        assert_eq!(text_of(&events, 0), "Le titre");

        let ncx = "<navLabel><text>Caf&#233; de l&apos;&#xC9;toile</text></navLabel>";
        let events = read(ncx, &Limits::default()).unwrap();
        assert_eq!(
            text_of(&events, 0),
            "Café de l'Étoile",
            "references join words"
        );
        let ncx = "<navLabel><text>1.</text><text>Title</text><br/>Next</navLabel>";
        let events = read(ncx, &Limits::default()).unwrap();
        assert_eq!(
            text_of(&events, 0),
            "1. Title Next",
            "elements separate them"
        );

        let error = read("<package><spine></package>", &Limits::default()).unwrap_err();
        let message = error.to_string();
        assert!(
            message.contains("content.opf is not well-formed XML (</package> closes <spine>"),
            "{message}"
        );

        let limits = Limits {
            max_depth: 2,
            ..Limits::default()
        };
        let error = read("<a><b><c/><d></d></b></a>", &limits).unwrap_err();
        let message = error.to_string();
        assert!(
            message.contains("content.opf has elements nested deeper than 2"),
            "{message}"
        );
    }
}
