//! EPUB 2 and 3: `META-INF/container.xml` names the OPF package, whose
//! `spine` orders the XHTML chapters; each chapter is a page of the book,
//! labelled by its title in the table of contents (the EPUB 3 navigation
//! document or the EPUB 2 NCX), else by its first heading.
//!
//! The navigation document, the NCX, cover pages and pages outside the
//! reading order (`linear="no"`) are left out and named in
//! [`crate::Book::left_out`]. An EPUB whose content files are encrypted
//! (DRM: `META-INF/encryption.xml` naming them) is
//! [`FormatError::Encrypted`]; font obfuscation is not encryption of the
//! text and is read.

use std::collections::HashMap;

use crate::archive::Archive;
use crate::html::{self, Kind, LeftOut};
use crate::xml_walk::{events, text_of, XmlEvent};
use crate::{Book, Format, FormatError, Limits, PagedText};

const FORMAT: Format = Format::Epub;

/// The algorithms of font obfuscation (IDPF and Adobe): listed in
/// `encryption.xml`, but they hide fonts, not the text.
const FONT_OBFUSCATION: [&str; 2] = [
    "http://www.idpf.org/2008/embedding",
    "http://ns.adobe.com/pdf/enc#RC",
];

/// Read an EPUB into a book: a page per spine item.
pub fn read(bytes: &[u8], limits: &Limits) -> Result<Book, FormatError> {
    let mut zip = Archive::open(bytes, FORMAT, limits)?;
    read_archive(&mut zip, limits)
}

/// Read the EPUB in the opened `zip`.
pub(crate) fn read_archive(zip: &mut Archive<'_>, limits: &Limits) -> Result<Book, FormatError> {
    if let Some(index) = zip.index_of("META-INF/encryption.xml") {
        let list = zip.read(index)?;
        if encrypts_content(&list, limits)? {
            return Err(FormatError::Encrypted { format: FORMAT });
        }
    }
    let container = entry(zip, "META-INF/container.xml")?
        .ok_or_else(|| damaged("it has no META-INF/container.xml".into()))?;
    let container = events(&container, "META-INF/container.xml", FORMAT, limits)?;
    let opf_path = container
        .iter()
        .filter(|e| matches!(e, XmlEvent::Start { name, .. } if name == "rootfile"))
        .find(|e| {
            e.attr("media-type")
                .is_none_or(|t| t.contains("oebps-package"))
        })
        .and_then(|e| e.attr("full-path"))
        .ok_or_else(|| damaged("its container.xml names no package (rootfile)".into()))?
        .to_string();
    let opf = entry(zip, &opf_path)?.ok_or_else(|| {
        damaged(format!(
            "its package {opf_path}, named in container.xml, is missing"
        ))
    })?;
    let package = Package::parse(&opf, &opf_path, limits)?;

    let mut labels = HashMap::new();
    let mut left_out = LeftOut::default();
    if let Some(nav) = package.items.values().find(|i| i.has_property("nav")) {
        if let Some(bytes) = entry(zip, &nav.path)? {
            labels = nav_labels(&bytes, &nav.path);
        }
        left_out.add(Kind::Other("the navigation document"));
    }
    if let Some(ncx) = package.ncx.as_ref().and_then(|id| package.items.get(id)) {
        if let Some(bytes) = entry(zip, &ncx.path)? {
            if labels.is_empty() {
                labels = ncx_labels(&bytes, &ncx.path, limits)?;
            }
        }
        left_out.add(Kind::Other("the NCX table of contents"));
    }

    let mut book = PagedText::new();
    let (mut covers, mut nonlinear, mut missing, mut images) = (0, 0, Vec::new(), 0);
    let mut chapters = 0usize;
    for (position, itemref) in package.spine.iter().enumerate() {
        let Some(item) = package.items.get(&itemref.idref) else {
            missing.push(itemref.idref.clone());
            continue;
        };
        if item.has_property("nav") {
            continue;
        }
        let is_cover = package.cover_pages.contains(&item.path)
            || item.has_property("cover")
            || item.id.to_ascii_lowercase().contains("cover") && position == 0;
        if !itemref.linear {
            if is_cover {
                covers += 1;
            } else {
                nonlinear += 1;
            }
            continue;
        }
        if !item.media_type.contains("html") {
            images += 1;
            continue;
        }
        let Some(bytes) = entry(zip, &item.path)? else {
            missing.push(item.path.clone());
            continue;
        };
        let page = html::extract(&html::decode(&bytes), limits, FORMAT)?;
        if page.text.is_empty() && (page.images > 0 || is_cover) {
            covers += 1;
            continue;
        }
        if chapters >= limits.max_pages {
            return Err(FormatError::OverLimit {
                format: FORMAT,
                reason: format!("more than {} chapters (the page limit)", limits.max_pages),
            });
        }
        let label = labels.get(&item.path).cloned().or(page.first_heading);
        book.start_page(label, None);
        chapters += 1;
        book.text_mut().push_str(&page.text);
        left_out.merge(&page.left_out);
    }

    let mut words = left_out.words();
    match covers {
        0 => {}
        1 => words.push("the cover page".into()),
        n => words.push(format!("{n} cover pages")),
    }
    match nonlinear {
        0 => {}
        1 => words.push("1 page outside the reading order (linear=\"no\")".into()),
        n => words.push(format!(
            "{n} pages outside the reading order (linear=\"no\")"
        )),
    }
    if images > 0 {
        words.push(format!("{images} spine items that are not XHTML (images)"));
    }
    for name in &missing {
        words.push(format!("{name}, in the spine, is missing from the EPUB"));
    }
    if chapters == 0 {
        return Err(FormatError::Unusable {
            format: FORMAT,
            reason: if words.is_empty() {
                "its spine names no chapters".into()
            } else {
                format!("no chapters with text (left out: {})", words.join(", "))
            },
        });
    }
    let (text, pages) = book.finish();
    Ok(Book {
        format: FORMAT,
        gzipped: false,
        text,
        pages,
        left_out: words,
        confidence: None,
    })
}

fn damaged(reason: String) -> FormatError {
    FormatError::Damaged {
        format: FORMAT,
        reason,
    }
}

/// The bytes of the entry named `name`, if the zip has it.
fn entry(zip: &mut Archive<'_>, name: &str) -> Result<Option<Vec<u8>>, FormatError> {
    match zip.index_of(name) {
        Some(index) => zip.read(index).map(Some),
        None => Ok(None),
    }
}

/// Whether `encryption.xml` encrypts more than fonts.
fn encrypts_content(list: &[u8], limits: &Limits) -> Result<bool, FormatError> {
    let events = events(list, "META-INF/encryption.xml", FORMAT, limits)?;
    let mut encrypted = 0;
    let mut obfuscated = 0;
    for event in &events {
        if let XmlEvent::Start { name, .. } = event {
            match name.as_str() {
                "EncryptedData" => encrypted += 1,
                "EncryptionMethod"
                    if event
                        .attr("Algorithm")
                        .is_some_and(|a| FONT_OBFUSCATION.contains(&a.trim())) =>
                {
                    obfuscated += 1
                }
                _ => {}
            }
        }
    }
    Ok(encrypted > obfuscated)
}

/// A manifest item.
#[derive(Debug)]
struct Item {
    id: String,
    /// Its path in the zip.
    path: String,
    media_type: String,
    properties: String,
}

impl Item {
    fn has_property(&self, property: &str) -> bool {
        self.properties.split_whitespace().any(|p| p == property)
    }
}

/// A spine entry.
#[derive(Debug)]
struct ItemRef {
    idref: String,
    linear: bool,
}

/// What the reader needs of the OPF package.
#[derive(Debug)]
struct Package {
    /// Manifest items by id.
    items: HashMap<String, Item>,
    spine: Vec<ItemRef>,
    /// The NCX's item id (`spine@toc`).
    ncx: Option<String>,
    /// Paths of cover pages the EPUB 2 guide names.
    cover_pages: Vec<String>,
}

impl Package {
    fn parse(opf: &[u8], opf_path: &str, limits: &Limits) -> Result<Self, FormatError> {
        let events = events(opf, opf_path, FORMAT, limits)?;
        let base = opf_path.rsplit_once('/').map_or("", |(dir, _)| dir);
        let mut package = Package {
            items: HashMap::new(),
            spine: Vec::new(),
            ncx: None,
            cover_pages: Vec::new(),
        };
        for event in &events {
            let XmlEvent::Start { name, .. } = event else {
                continue;
            };
            let attr = |key| event.attr(key).unwrap_or("").to_string();
            match name.as_str() {
                "item" => {
                    let item = Item {
                        id: attr("id"),
                        path: resolve(base, &attr("href")),
                        media_type: attr("media-type"),
                        properties: attr("properties"),
                    };
                    package.items.insert(item.id.clone(), item);
                }
                "spine" => package.ncx = event.attr("toc").map(str::to_string),
                "itemref" => package.spine.push(ItemRef {
                    idref: attr("idref"),
                    linear: attr("linear").trim() != "no",
                }),
                "reference" if attr("type").eq_ignore_ascii_case("cover") => {
                    package.cover_pages.push(resolve(base, &attr("href")))
                }
                _ => {}
            }
        }
        if package.spine.is_empty() {
            return Err(damaged(format!("its package {opf_path} has no spine")));
        }
        Ok(package)
    }
}

/// The zip path of `href` (percent-encoded, relative to `base`), without
/// its fragment.
fn resolve(base: &str, href: &str) -> String {
    let href = href.split('#').next().unwrap_or("");
    let href = percent_encoding::percent_decode_str(href).decode_utf8_lossy();
    let mut parts: Vec<&str> = if href.starts_with('/') {
        Vec::new()
    } else {
        base.split('/').filter(|p| !p.is_empty()).collect()
    };
    for part in href.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            part => parts.push(part),
        }
    }
    parts.join("/")
}

/// Chapter titles by file from an EPUB 3 navigation document: the first
/// link to each file in its `toc` nav.
fn nav_labels(bytes: &[u8], nav_path: &str) -> HashMap<String, String> {
    let base = nav_path.rsplit_once('/').map_or("", |(dir, _)| dir);
    let document = scraper::Html::parse_document(&html::for_html5ever(&html::decode(bytes)));
    let mut labels = HashMap::new();
    let navs: Vec<_> = document
        .tree
        .nodes()
        .filter_map(scraper::ElementRef::wrap)
        .filter(|e| e.value().name() == "nav")
        .collect();
    let toc = navs
        .iter()
        .find(|n| {
            n.value()
                .attr("epub:type")
                .is_some_and(|t| t.contains("toc"))
        })
        .or(navs.first());
    let Some(toc) = toc else {
        return labels;
    };
    for link in toc
        .descendants()
        .filter_map(scraper::ElementRef::wrap)
        .filter(|e| e.value().name() == "a")
    {
        let Some(href) = link.value().attr("href") else {
            continue;
        };
        let label = link.text().collect::<Vec<_>>().join(" ");
        let label = label.split_whitespace().collect::<Vec<_>>().join(" ");
        if !label.is_empty() {
            labels.entry(resolve(base, href)).or_insert(label);
        }
    }
    labels
}

/// Chapter titles by file from an EPUB 2 NCX: the first `navPoint`
/// pointing into each file.
fn ncx_labels(
    bytes: &[u8],
    ncx_path: &str,
    limits: &Limits,
) -> Result<HashMap<String, String>, FormatError> {
    let base = ncx_path.rsplit_once('/').map_or("", |(dir, _)| dir);
    let events = events(bytes, ncx_path, FORMAT, limits)?;
    let mut labels = HashMap::new();
    let mut label = None;
    for (i, event) in events.iter().enumerate() {
        if let XmlEvent::Start { name, .. } = event {
            match name.as_str() {
                "navLabel" => label = Some(text_of(&events, i)),
                "content" => {
                    if let (Some(label), Some(src)) = (label.take(), event.attr("src")) {
                        if !label.is_empty() {
                            labels.entry(resolve(base, src)).or_insert(label);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    Ok(labels)
}

#[cfg(test)]
mod tests {
    use super::resolve;

    #[test]
    fn hrefs_resolve_against_the_package_folder() {
        assert_eq!(
            resolve("EPUB", "text/ch001.xhtml#c1"),
            "EPUB/text/ch001.xhtml"
        );
        assert_eq!(resolve("OEBPS/text", "../ch%201.xhtml"), "OEBPS/ch 1.xhtml");
        assert_eq!(resolve("", "ch1.xhtml"), "ch1.xhtml");
    }
}
