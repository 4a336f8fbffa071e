//! A book from its page files (HathiTrust's volumes, an OCR run's ALTO
//! or hOCR pages), wherever they come from: a zip ([`crate::page_zip`])
//! or a folder ([`crate::page_folder`]). Each page file is a page, in the
//! order a METS `structMap` gives (with its page labels) or else by the
//! numbers in the names (`2.txt` before `10.txt`), each labelled by its
//! number.
//!
//! Text pages are decoded by their BOM, else as UTF-8, else by
//! chardetng's guess; ALTO, hOCR and other structured pages go through
//! [`crate::read`]. Pages of more than one format are refused; a gap in
//! the numbering, nested zips, images and pages that cannot be read are
//! named in [`Book::left_out`]. The litter of file managers
//! (`__MACOSX/`, `.DS_Store`, `Thumbs.db`) is ignored. Page files are
//! only ever read in memory, so a page named `../x` or `/etc/x` is a name
//! like any other: read as a page if it is one.

use std::collections::HashMap;

use crate::xml_walk::{events, XmlEvent};
use crate::{detect, Book, Format, FormatError, Limits, PagedText, Read};

/// A page's index among the page files, and its label.
type Placed = (usize, Option<String>);

/// A METS `div` with file pointers: its label and the file IDs.
type MetsDiv = (Option<String>, Vec<String>);

/// A page file, read.
struct PageFile {
    name: String,
    bytes: Vec<u8>,
    kind: Format,
}

/// The book of the page files `names` (as the zip or folder names them),
/// read as `format` (the container: a zip or a folder of pages, named in
/// reasons); `read` gives the bytes of the file at an index of `names`,
/// or why it cannot (a zip inflates them one at a time, when asked).
pub(crate) fn read_pages(
    names: Vec<String>,
    mut read: impl FnMut(usize) -> Result<Vec<u8>, FormatError>,
    format: Format,
    limits: &Limits,
) -> Result<Book, FormatError> {
    let mut pages = Vec::new();
    let mut mets = None;
    let mut left_out = Vec::new();
    let (mut images, mut others) = (0usize, 0usize);
    let container = container(format);
    for (index, name) in names.into_iter().enumerate() {
        if is_litter(&name) {
            continue;
        }
        let lower = name.to_ascii_lowercase();
        if lower.ends_with(".zip") || lower.ends_with(".epub") {
            left_out.push(format!("{name}, a zip inside the {container} (not opened)"));
            continue;
        }
        let bytes = read(index)?;
        if bytes.starts_with(b"PK\x03\x04") {
            left_out.push(format!("{name}, a zip inside the {container} (not opened)"));
            continue;
        }
        if is_image(&bytes) {
            images += 1;
            continue;
        }
        if mets.is_none() && is_mets(&bytes) {
            mets = Some((name, bytes));
            continue;
        }
        let kind = detect(&bytes);
        if kind == Format::Text && bytes[..bytes.len().min(8192)].contains(&0) {
            others += 1;
            continue;
        }
        if pages.len() >= limits.max_pages {
            return Err(FormatError::OverLimit {
                format,
                reason: format!("more than {} pages (the page limit)", limits.max_pages),
            });
        }
        pages.push(PageFile { name, bytes, kind });
    }
    if images > 0 {
        left_out.push(count(images, "page image", "page images"));
    }
    if others > 0 {
        left_out.push(count(
            others,
            "other file (not text)",
            "other files (not text)",
        ));
    }
    if pages.is_empty() {
        return Err(FormatError::Unusable {
            format,
            reason: format!("no page files in the {container}"),
        });
    }
    refuse_mixed(&pages, format)?;

    let order = match &mets {
        Some((name, bytes)) => mets_order(name, bytes, &pages, format, limits, &mut left_out)?,
        None => None,
    };
    let order = match order {
        Some(order) => order,
        None => {
            let mut order: Vec<Placed> = (0..pages.len())
                .map(|i| (i, number_label(&pages[i].name)))
                .collect();
            order.sort_by_cached_key(|&(i, _)| natural_key(&pages[i].name));
            left_out.extend(gaps(
                &order.iter().map(|(i, _)| &pages[*i]).collect::<Vec<_>>(),
            ));
            order
        }
    };

    let mut book = PagedText::new();
    let mut confidence = (0f64, 0usize);
    let mut failed = 0;
    for (index, label) in order {
        let page = &mut pages[index];
        let bytes = std::mem::take(&mut page.bytes);
        let read = if page.kind == Format::Text {
            Ok(Read::Plain(bytes))
        } else {
            crate::read(bytes, limits)
        };
        match read {
            Ok(Read::Plain(bytes)) => {
                book.start_page(label, None);
                book.text_mut().push_str(&page_text(&bytes));
            }
            Ok(Read::Book(inner)) => {
                add_book(&mut book, label, &inner);
                if let Some(c) = inner.confidence {
                    confidence.0 += f64::from(c);
                    confidence.1 += 1;
                }
                for words in inner.left_out {
                    if !left_out.contains(&words) {
                        left_out.push(words);
                    }
                }
            }
            Err(error) => {
                failed += 1;
                let name = label.clone().unwrap_or_else(|| page.name.clone());
                left_out.push(format!(
                    "page {name} ({}) cannot be read: {error}",
                    page.name
                ));
                book.start_page(label, None);
            }
        }
    }
    if failed == pages.len() {
        return Err(FormatError::Unusable {
            format,
            reason: format!(
                "none of its {} pages can be read ({})",
                pages.len(),
                left_out.join("; ")
            ),
        });
    }
    let (text, map) = book.finish();
    if map.pages().len() > limits.max_pages {
        return Err(FormatError::OverLimit {
            format,
            reason: format!("more than {} pages (the page limit)", limits.max_pages),
        });
    }
    Ok(Book {
        format,
        gzipped: false,
        text,
        pages: map,
        left_out,
        confidence: (confidence.1 > 0).then(|| (confidence.0 / confidence.1 as f64) as f32),
    })
}

/// Add a page's book (an ALTO page, an hOCR file of one or more pages).
fn add_book(book: &mut PagedText, label: Option<String>, inner: &Book) {
    let starts = inner.pages.pages();
    if starts.len() <= 1 {
        let image = starts.first().and_then(|p| p.image.clone());
        let inner_label = starts.first().and_then(|p| p.label.clone());
        book.start_page(label.or(inner_label), image);
        book.text_mut().push_str(&inner.text);
        return;
    }
    for (i, page) in starts.iter().enumerate() {
        let end = starts.get(i + 1).map_or(inner.text.len(), |next| {
            next.start - crate::PAGE_BREAK.len()
        });
        let page_label = page
            .label
            .clone()
            .or_else(|| (i == 0).then(|| label.clone()).flatten());
        book.start_page(page_label, page.image.clone());
        book.text_mut()
            .push_str(&inner.text[page.start..end.max(page.start)]);
    }
}

/// Refuse pages of more than one format.
fn refuse_mixed(pages: &[PageFile], format: Format) -> Result<(), FormatError> {
    let mut kinds: Vec<(Format, usize)> = Vec::new();
    for page in pages {
        match kinds.iter_mut().find(|(k, _)| *k == page.kind) {
            Some((_, n)) => *n += 1,
            None => kinds.push((page.kind, 1)),
        }
    }
    if kinds.len() > 1 {
        let list: Vec<String> = kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
        return Err(FormatError::Unusable {
            format,
            reason: format!(
                "its pages are in more than one format ({}): one book's pages share one format",
                list.join(", ")
            ),
        });
    }
    Ok(())
}

fn count(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// A text page's text: by its BOM, else UTF-8, else chardetng's guess;
/// line ends made `\n`, a form feed made a line end (only page breaks
/// are form feeds), trailing whitespace trimmed.
fn page_text(bytes: &[u8]) -> String {
    let text = if let Some((encoding, bom)) = encoding_rs::Encoding::for_bom(bytes) {
        encoding.decode_without_bom_handling(&bytes[bom..]).0
    } else if let Ok(text) = std::str::from_utf8(bytes) {
        std::borrow::Cow::Borrowed(text)
    } else {
        let mut detector = chardetng::EncodingDetector::new();
        detector.feed(bytes, true);
        detector
            .guess(None, true)
            .decode_without_bom_handling(bytes)
            .0
    };
    let text = text.replace("\r\n", "\n").replace(['\r', '\x0c'], "\n");
    text.trim_end().to_string()
}

/// What holds the pages, in words.
fn container(format: Format) -> &'static str {
    match format {
        Format::PageFolder => "folder",
        _ => "zip",
    }
}

/// Files that are no part of a book: file managers' litter.
fn is_litter(name: &str) -> bool {
    let base = base_name(name);
    name.split(['/', '\\']).any(|part| part == "__MACOSX")
        || base.starts_with("._")
        || base.eq_ignore_ascii_case(".DS_Store")
        || base.eq_ignore_ascii_case("Thumbs.db")
        || base.eq_ignore_ascii_case("desktop.ini")
}

fn base_name(name: &str) -> &str {
    name.rsplit(['/', '\\']).next().unwrap_or(name)
}

fn is_image(bytes: &[u8]) -> bool {
    const MAGIC: [&[u8]; 7] = [
        b"\x89PNG",
        b"\xff\xd8\xff",
        b"GIF8",
        b"II*\0",
        b"MM\0*",
        b"\0\0\0\x0cjP  ",
        b"\xff\x4f\xff\x51",
    ];
    MAGIC.iter().any(|m| bytes.starts_with(m))
}

/// Whether a file's `bytes` are METS: a `mets` root element in its first
/// 4 KiB.
pub(crate) fn is_mets(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(4096)];
    let head = String::from_utf8_lossy(head);
    head.contains("<mets:mets") || head.contains("<mets ") || head.contains("<mets>")
}

/// The page's number from its file name (the last run of digits in it,
/// leading zeros dropped), else the name without its extension.
fn number_label(name: &str) -> Option<String> {
    match page_number(name) {
        Some(n) => Some(n.to_string()),
        None => {
            let base = base_name(name);
            let stem = base.rsplit_once('.').map_or(base, |(stem, _)| stem);
            (!stem.is_empty()).then(|| stem.to_string())
        }
    }
}

fn page_number(name: &str) -> Option<u64> {
    let base = base_name(name);
    let stem = base.rsplit_once('.').map_or(base, |(stem, _)| stem);
    let end = stem.rfind(|c: char| c.is_ascii_digit())? + 1;
    let start = stem[..end]
        .rfind(|c: char| !c.is_ascii_digit())
        .map_or(0, |i| i + 1);
    stem[start..end].parse().ok()
}

/// A piece of a name, for natural order: numbers by value.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Chunk {
    /// Digits: compared by their count without leading zeros, then by
    /// themselves (a number's value, however long).
    Number(usize, String),
    Text(String),
}

/// `name` in natural order (`2.txt` < `10.txt`).
fn natural_key(name: &str) -> Vec<Chunk> {
    let mut chunks = Vec::new();
    let mut rest = name;
    while let Some(c) = rest.chars().next() {
        let digits = c.is_ascii_digit();
        let end = rest
            .find(|c: char| c.is_ascii_digit() != digits)
            .unwrap_or(rest.len());
        let (piece, tail) = rest.split_at(end);
        chunks.push(if digits {
            let value = piece.trim_start_matches('0');
            Chunk::Number(value.len(), value.to_string())
        } else {
            Chunk::Text(piece.to_lowercase())
        });
        rest = tail;
    }
    chunks
}

/// The gaps in the pages' numbering, in words.
fn gaps(pages: &[&PageFile]) -> Vec<String> {
    let numbers: Option<Vec<u64>> = pages.iter().map(|p| page_number(&p.name)).collect();
    let Some(numbers) = numbers else {
        return Vec::new();
    };
    numbers
        .windows(2)
        .filter(|w| w[1] > w[0] + 1)
        .map(|w| {
            let (first, last) = (w[0] + 1, w[1] - 1);
            if first == last {
                format!("page {first} is missing from the numbering")
            } else {
                format!("pages {first}–{last} are missing from the numbering")
            }
        })
        .collect()
}

/// The page order and labels a METS file gives: its `structMap`'s
/// `div`s in order, each naming its file by `fptr FILEID` (labelled by
/// `ORDERLABEL`, else `LABEL`, else the file's number). `None` when it
/// names none of the pages.
fn mets_order(
    mets_name: &str,
    bytes: &[u8],
    pages: &[PageFile],
    format: Format,
    limits: &Limits,
    left_out: &mut Vec<String>,
) -> Result<Option<Vec<Placed>>, FormatError> {
    let events = events(bytes, mets_name, format, limits)?;
    let base = mets_name.rsplit_once('/').map_or("", |(dir, _)| dir);
    // Files by ID: their href, resolved like the zip names them.
    let mut files: HashMap<String, String> = HashMap::new();
    let mut file_id = None;
    // Each div with pointers: its label and file IDs, in order; the
    // physical structMap preferred.
    let mut maps: Vec<(bool, Vec<MetsDiv>)> = Vec::new();
    let mut divs: Vec<usize> = Vec::new();
    let mut open: Vec<String> = Vec::new();
    for event in &events {
        match event {
            XmlEvent::Start { name, empty, .. } => {
                match name.as_str() {
                    "file" => file_id = event.attr("ID").map(str::to_string),
                    "FLocat" => {
                        if let (Some(id), Some(href)) = (&file_id, event.attr("href")) {
                            let href = href.strip_prefix("file://").unwrap_or(href);
                            let path = if base.is_empty() || href.starts_with('/') {
                                href.trim_start_matches("./").to_string()
                            } else {
                                format!("{base}/{}", href.trim_start_matches("./"))
                            };
                            files.insert(id.clone(), path);
                        }
                    }
                    "structMap" => {
                        let physical = event
                            .attr("TYPE")
                            .is_some_and(|t| t.eq_ignore_ascii_case("physical"));
                        maps.push((physical, Vec::new()));
                    }
                    "div" if !maps.is_empty() => {
                        let label = event
                            .attr("ORDERLABEL")
                            .or(event.attr("LABEL"))
                            .map(str::trim)
                            .filter(|l| !l.is_empty())
                            .map(str::to_string);
                        let map = &mut maps.last_mut().expect("a structMap").1;
                        map.push((label, Vec::new()));
                        if !empty {
                            divs.push(map.len() - 1);
                        }
                    }
                    "fptr" | "area" => {
                        if let (Some(id), Some(&div), Some((_, map))) =
                            (event.attr("FILEID"), divs.last(), maps.last_mut())
                        {
                            map[div].1.push(id.to_string());
                        }
                    }
                    _ => {}
                }
                if !empty {
                    open.push(name.clone());
                }
            }
            XmlEvent::End => {
                if open.pop().as_deref() == Some("div") {
                    divs.pop();
                }
            }
            XmlEvent::Text(_) => {}
        }
    }
    let Some(map) = maps
        .iter()
        .find(|(physical, _)| *physical)
        .or(maps.first())
        .map(|(_, map)| map)
    else {
        return Ok(None);
    };
    let by_name: HashMap<&str, usize> = pages
        .iter()
        .enumerate()
        .map(|(i, p)| (p.name.as_str(), i))
        .collect();
    let by_base: HashMap<&str, usize> = pages
        .iter()
        .enumerate()
        .map(|(i, p)| (base_name(&p.name), i))
        .collect();
    let mut order = Vec::new();
    let mut placed = vec![false; pages.len()];
    for (label, ids) in map {
        let page = ids.iter().filter_map(|id| files.get(id)).find_map(|path| {
            by_name
                .get(path.as_str())
                .or_else(|| by_base.get(base_name(path)))
                .copied()
        });
        if let Some(page) = page.filter(|&p| !placed[p]) {
            placed[page] = true;
            let label = label.clone().or_else(|| number_label(&pages[page].name));
            order.push((page, label));
        }
    }
    if order.is_empty() {
        left_out.push(format!(
            "{mets_name} names none of the pages: they are in the order of their names"
        ));
        return Ok(None);
    }
    let mut rest: Vec<usize> = (0..pages.len()).filter(|&i| !placed[i]).collect();
    if !rest.is_empty() {
        rest.sort_by_cached_key(|&i| natural_key(&pages[i].name));
        left_out.push(format!(
            "{} not in {mets_name}'s structMap, put after the others",
            count(rest.len(), "page", "pages")
        ));
        order.extend(rest.into_iter().map(|i| (i, number_label(&pages[i].name))));
    }
    Ok(Some(order))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_sort_by_their_numbers_and_label_pages_by_them() {
        let mut names = vec!["10.txt", "2.txt", "vol/00000001.txt", "1.txt", "a9.txt"];
        names.sort_by_cached_key(|n| natural_key(n));
        assert_eq!(
            names,
            ["1.txt", "2.txt", "10.txt", "a9.txt", "vol/00000001.txt"]
        );
        assert_eq!(number_label("vol/00000007.txt").as_deref(), Some("7"));
        assert_eq!(number_label("cover.txt").as_deref(), Some("cover"));
        assert!(is_litter("__MACOSX/._1.txt") && is_litter("pages/.DS_Store"));
        assert!(!is_litter("pages/1.txt"));
    }
}
