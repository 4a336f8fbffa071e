//! Which format a file's bytes are in, by their content: magic bytes for
//! binary containers, the root element (and its namespace or class) for
//! XML and HTML. Only the first few KiB are looked at.

use serde::Serialize;

/// A format doppel reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Plain text (any encoding the engine decodes).
    Text,
    /// PDF with a text layer.
    Pdf,
    /// EPUB 2 or 3.
    Epub,
    /// HTML or XHTML.
    Html,
    /// TEI XML.
    Tei,
    /// ALTO XML (v2–v4).
    Alto,
    /// hOCR (HTML with `ocr_page` elements).
    Hocr,
    /// A zip of page files.
    PageZip,
    /// A folder of page files ([`crate::page_folder::PageFolderBytes`]).
    PageFolder,
    /// gzip-compressed (of any of the others).
    Gzip,
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Format::Text => "text",
            Format::Pdf => "PDF",
            Format::Epub => "EPUB",
            Format::Html => "HTML",
            Format::Tei => "TEI",
            Format::Alto => "ALTO",
            Format::Hocr => "hOCR",
            Format::PageZip => "zip of pages",
            Format::PageFolder => "folder of pages",
            Format::Gzip => "gzip",
        })
    }
}

/// How many bytes detection looks at.
const SNIFF: usize = 8 * 1024;

/// The format of `bytes`, by content.
pub fn detect(bytes: &[u8]) -> Format {
    if bytes.starts_with(crate::page_folder::MAGIC) {
        return Format::PageFolder;
    }
    if bytes.starts_with(b"%PDF-") {
        return Format::Pdf;
    }
    if bytes.starts_with(b"\x1f\x8b") {
        return Format::Gzip;
    }
    if bytes.starts_with(b"PK\x03\x04") {
        // An EPUB's first entry is its uncompressed `mimetype`.
        let head = &bytes[..bytes.len().min(128)];
        return if contains(head, b"mimetypeapplication/epub+zip") {
            Format::Epub
        } else {
            Format::PageZip
        };
    }
    let head = &bytes[..bytes.len().min(SNIFF)];
    // XML in UTF-16 (with its BOM) is sniffed in UTF-8.
    if let Some((encoding, bom)) = encoding_rs::Encoding::for_bom(head) {
        if encoding != encoding_rs::UTF_8 {
            let (head, _) = encoding.decode_without_bom_handling(&head[bom..]);
            return markup(head.as_bytes()).unwrap_or(Format::Text);
        }
    }
    markup(head).unwrap_or(Format::Text)
}

/// The markup format of a file's first bytes, if it is markup.
fn markup(head: &[u8]) -> Option<Format> {
    let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    let start = head.iter().position(|b| !b.is_ascii_whitespace())?;
    if head[start] != b'<' {
        return None;
    }
    let lower = head.to_ascii_lowercase();
    // The root element: the first `<name` that is not a declaration, a
    // comment or a processing instruction.
    let root = root_element(&lower[start..])?;
    match root.as_slice() {
        b"alto" => Some(Format::Alto),
        b"tei" | b"tei.2" | b"teicorpus" => Some(Format::Tei),
        b"html" if contains(&lower, b"ocr_page") => Some(Format::Hocr),
        b"html" => Some(Format::Html),
        _ if contains(&lower, b"<!doctype html") => Some(Format::Html),
        _ => None,
    }
}

/// The name of the first element of `markup` (lowercase, namespace
/// prefix dropped).
fn root_element(markup: &[u8]) -> Option<Vec<u8>> {
    let mut rest = markup;
    loop {
        let open = rest.iter().position(|&b| b == b'<')?;
        rest = &rest[open + 1..];
        match rest.first()? {
            b'?' | b'!' => continue,
            _ => {
                let end = rest
                    .iter()
                    .position(|b| b.is_ascii_whitespace() || *b == b'>' || *b == b'/')
                    .unwrap_or(rest.len());
                let name = &rest[..end];
                let local = match name.iter().rposition(|&b| b == b':') {
                    Some(colon) => &name[colon + 1..],
                    None => name,
                };
                return Some(local.to_vec());
            }
        }
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_told_by_content_not_name() {
        assert_eq!(detect(b"%PDF-1.7\n..."), Format::Pdf);
        assert_eq!(detect(b"\x1f\x8b\x08\x00"), Format::Gzip);
        assert_eq!(
            detect(b"PK\x03\x04\x0a\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x08\x00\x00\x00mimetypeapplication/epub+zip"),
            Format::Epub
        );
        assert_eq!(detect(b"PK\x03\x04 0001.txt"), Format::PageZip);
        assert_eq!(
            detect(b"<?xml version=\"1.0\"?>\n<alto xmlns=\"http://www.loc.gov/standards/alto/ns-v3#\">"),
            Format::Alto
        );
        assert_eq!(
            detect(b"<?xml version=\"1.0\"?><!-- x --><TEI xmlns=\"http://www.tei-c.org/ns/1.0\">"),
            Format::Tei
        );
        assert_eq!(
            detect(b"<!DOCTYPE html>\n<html><body><div class='ocr_page' title='image \"p.png\"'>"),
            Format::Hocr
        );
        assert_eq!(
            detect(b"<!DOCTYPE html>\n<html lang=en><p>Hi"),
            Format::Html
        );
        assert_eq!(detect(b"  <html:html xmlns:html='x'>"), Format::Html);
        assert_eq!(detect(b"Chapter 1\n<not markup>"), Format::Text);
        assert_eq!(detect(b"<note>a plain XML file</note>"), Format::Text);
        assert_eq!(detect(b""), Format::Text);
        let utf16: Vec<u8> = "\u{feff}<?xml version='1.0' encoding='UTF-16'?><TEI.2>"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        assert_eq!(detect(&utf16), Format::Tei, "UTF-16 XML, by its BOM");
    }
}
