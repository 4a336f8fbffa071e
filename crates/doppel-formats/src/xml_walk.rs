//! The small XML files of a package (an EPUB's container, OPF, NCX and
//! encryption list, a METS file) walked as a flat list of events, within
//! the depth limit. quick-xml never expands DTD entities, so a "billion
//! laughs" DTD is only an unknown reference here.

use quick_xml::events::Event;
use quick_xml::Reader;

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

/// The events of the XML `bytes` (`what` names the file in an error).
pub(crate) fn events(
    bytes: &[u8],
    what: &str,
    format: Format,
    limits: &Limits,
) -> Result<Vec<XmlEvent>, FormatError> {
    let text = crate::html::decode(bytes);
    let mut reader = Reader::from_str(&text);
    let damaged = |e: &dyn std::fmt::Display| FormatError::Damaged {
        format,
        reason: format!("{what} is not well-formed XML ({e})"),
    };
    let local = |name: &str| match name.rsplit_once(':') {
        Some((_, local)) => local.to_string(),
        None => name.to_string(),
    };
    let mut out = Vec::new();
    let mut depth = 0usize;
    loop {
        let event = reader.read_event().map_err(|e| damaged(&e))?;
        match event {
            Event::Start(ref e) | Event::Empty(ref e) => {
                let empty = matches!(event, Event::Empty(_));
                if !empty {
                    depth += 1;
                    if depth > limits.max_depth {
                        return Err(FormatError::OverLimit {
                            format,
                            reason: format!(
                                "{what} nests elements more than {} deep (the depth limit)",
                                limits.max_depth
                            ),
                        });
                    }
                }
                let mut attrs = Vec::new();
                for attr in e.attributes().with_checks(false) {
                    let attr = attr.map_err(|e| damaged(&e))?;
                    let value = attr
                        .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                        .map(|v| v.into_owned())
                        .unwrap_or_else(|_| attr.value.clone().into_owned());
                    attrs.push((local(attr.key.as_ref()), value));
                }
                out.push(XmlEvent::Start {
                    name: local(e.name().as_ref()),
                    attrs,
                    empty,
                });
            }
            Event::End(_) => {
                depth = depth.saturating_sub(1);
                out.push(XmlEvent::End);
            }
            Event::Text(e) => out.push(XmlEvent::Text(e.xml10_content().into_owned())),
            Event::CData(e) => out.push(XmlEvent::Text(e.into_inner().into_owned())),
            Event::GeneralRef(r) => {
                let resolved = match r.resolve_char_ref() {
                    Ok(Some(c)) => Some(c.to_string()),
                    _ => quick_xml::escape::resolve_predefined_entity(&r.into_inner())
                        .map(str::to_string),
                };
                if let Some(text) = resolved {
                    out.push(XmlEvent::Text(text));
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    Ok(out)
}

/// The text inside the element starting at `events[start]` (to its end),
/// whitespace collapsed.
pub(crate) fn text_of(events: &[XmlEvent], start: usize) -> String {
    let mut depth = 0usize;
    let mut text = String::new();
    for event in &events[start..] {
        match event {
            XmlEvent::Start { empty: false, .. } => depth += 1,
            XmlEvent::Start { .. } => {}
            XmlEvent::End => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    break;
                }
            }
            XmlEvent::Text(t) => {
                text.push_str(t);
                text.push(' ');
            }
        }
        if depth == 0 {
            break;
        }
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
