//! Which format a file's bytes are in, by their content: magic bytes for
//! binary containers, the root element (and its namespace or class) for
//! XML and HTML. Only the first few KiB are looked at.

use memchr::memmem;
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
    if pdf_after_junk(bytes) {
        return Format::Pdf;
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

/// How far into a file a PDF's header may start: Acrobat accepts up to
/// 1024 bytes of junk before `%PDF-` (a MacBinary header, a mail or web
/// server's leftovers; PDF 32000-1, annex H), and so does pdftotext.
const PDF_HEADER_WITHIN: usize = 1024;

/// Whether `bytes` are a PDF after some junk: `%PDF-` and a version
/// digit within the first [`PDF_HEADER_WITHIN`] bytes, and a PDF's end
/// (`startxref`, `%%EOF`) within the last 1024, so a text that quotes a
/// PDF header stays text. pdf_oxide finds the header itself, and the xref's offsets
/// whether they count from the header or from the file's start.
fn pdf_after_junk(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(PDF_HEADER_WITHIN + 6)];
    let Some(at) = memmem::find(head, b"%PDF-") else {
        return false;
    };
    let tail = &bytes[bytes.len().saturating_sub(1024)..];
    at < PDF_HEADER_WITHIN
        && head.get(at + 5).is_some_and(u8::is_ascii_digit)
        && contains(tail, b"startxref")
        && contains(tail, b"%%EOF")
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
    memmem::find(haystack, needle).is_some()
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
        let mut junk = vec![b'x'; 1000];
        junk.extend(b"%PDF-1.4\n1 0 obj\n<<>>\nendobj\nstartxref\n1009\n%%EOF\n");
        assert_eq!(detect(&junk), Format::Pdf, "a header after 1000 bytes");
        assert_eq!(detect(&junk[20..]), Format::Pdf);
        junk.splice(0..0, [b'x'; 24]);
        assert_eq!(
            detect(&junk),
            Format::Text,
            "after 1024 bytes, not a header"
        );
        assert_eq!(
            detect(b"Notes. A PDF starts with %PDF-1.7 and ends with %%EOF."),
            Format::Text,
            "a quoted header, without a PDF's end"
        );
        assert_eq!(
            detect(b"junk %PDF-x startxref 9 %%EOF"),
            Format::Text,
            "no version"
        );
        let utf16: Vec<u8> = "\u{feff}<?xml version='1.0' encoding='UTF-16'?><TEI.2>"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        assert_eq!(detect(&utf16), Format::Tei, "UTF-16 XML, by its BOM");
    }
}
