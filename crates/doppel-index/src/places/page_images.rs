//! The pages a side of a pair matches on, each with its page image, so a
//! curator checking the match can open the scanned page beside the diff.
//!
//! The image is what the source names ([`doppel_formats::Page::image`]:
//! an ALTO `fileName`, an hOCR `image`, a TEI `facs`). An `http(s)://`
//! URI (a IIIF image or manifest) is linked as given. Any other name is a
//! file: a relative one is taken from the document's own folder (the folder
//! itself for a book that is a folder of pages), and a file is linked, as a
//! `file://` URL, only if it is there: the report is read on the curator's
//! machine, and a link to a file that is not there only misleads, so its
//! name is shown instead.

use std::ops::Range;
use std::path::{Component, Path};

use doppel_formats::PageMap;
use percent_encoding::{percent_encode, AsciiSet, CONTROLS};

/// How many pages of a side are listed; the others are counted.
pub const LISTED_PAGES: usize = 20;

/// Bytes a `file://` URL's path segment escapes: the URL standard's path
/// percent-encode set, `%` (so a name holding one is not read as an
/// escape) and `\` (a separator to some browsers); bytes past ASCII are
/// always escaped.
const PATH_SEGMENT: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'`')
    .add(b'{')
    .add(b'}')
    .add(b'\\');

/// A page image as the source names it, and the link to it when there is
/// one to follow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageImage {
    /// The name the source gives (a file name, a path, a URI).
    pub name: String,
    /// An `http(s)://` URI as given, or the `file://` URL of a file that
    /// exists; `None` when the named file is not there.
    pub href: Option<String>,
}

/// A page a side matches on that names its image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchedPage {
    /// What the page is called: its label, else its number from 1.
    pub label: String,
    /// Its image.
    pub image: PageImage,
}

/// The pages of one side's match that name an image, the first
/// [`LISTED_PAGES`] of them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SidePages {
    /// The pages listed, in order.
    pub pages: Vec<MatchedPage>,
    /// Further pages with an image, not listed.
    pub more: usize,
}

impl SidePages {
    /// No page of the match names an image.
    pub fn is_empty(&self) -> bool {
        self.pages.is_empty()
    }
}

/// Where a pair matches ([`super::PairPlace`]) and, on each side, the
/// matched pages with their images (for the HTML report; the JSON and
/// CSV give the place alone).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairPages {
    /// Where each side matches, in words.
    pub place: super::PairPlace,
    /// The first document's matched pages with an image.
    pub a: SidePages,
    /// The second's.
    pub b: SidePages,
}

/// The pages of `map` that `range` (bytes of the text) touches and that
/// name an image, the images of a relative name looked for in `folder`.
pub fn matched_pages(map: &PageMap, range: &Range<usize>, folder: &Path) -> SidePages {
    let (Some(first), Some(last)) = (
        map.index_of(range.start),
        map.index_of(range.end.saturating_sub(1).max(range.start)),
    ) else {
        return SidePages::default();
    };
    let mut side = SidePages::default();
    for (index, page) in map.pages().iter().enumerate().take(last + 1).skip(first) {
        let Some(name) = page
            .image
            .as_deref()
            .map(str::trim)
            .filter(|n| !n.is_empty())
        else {
            continue;
        };
        if side.pages.len() == LISTED_PAGES {
            side.more += 1;
            continue;
        }
        side.pages.push(MatchedPage {
            label: map.name(index),
            image: PageImage {
                name: name.to_owned(),
                href: image_link(name, folder),
            },
        });
    }
    side
}

/// The link to the image `name`: an `http(s)://` URI as given; else the
/// `file://` URL of the file it names (relative to `folder`), if that
/// file exists.
pub fn image_link(name: &str, folder: &Path) -> Option<String> {
    let is_web = ["http://", "https://"].iter().any(|scheme| {
        name.get(..scheme.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(scheme))
    });
    if is_web {
        return Some(name.to_owned());
    }
    let path = folder.join(name);
    if !path.is_file() {
        return None;
    }
    file_url(&std::path::absolute(&path).ok()?)
}

/// The `file://` URL of the absolute `path`: each component
/// percent-encoded from its bytes; `None` for a path a URL cannot name (a
/// Windows network or device path).
fn file_url(path: &Path) -> Option<String> {
    let mut url = String::from("file://");
    for component in path.components() {
        match component {
            Component::Prefix(prefix) => match prefix.kind() {
                std::path::Prefix::Disk(letter) | std::path::Prefix::VerbatimDisk(letter) => {
                    url.push('/');
                    url.push(char::from(letter));
                    url.push(':');
                }
                _ => return None,
            },
            Component::RootDir => {}
            Component::CurDir => continue,
            Component::ParentDir => url.push_str("/.."),
            Component::Normal(part) => {
                url.push('/');
                url.extend(percent_encode(part.as_encoded_bytes(), PATH_SEGMENT));
            }
        }
    }
    Some(url)
}

#[cfg(test)]
mod tests {
    use super::*;
    use doppel_formats::Page;

    fn page(start: usize, label: Option<&str>, image: Option<&str>) -> Page {
        Page {
            start,
            label: label.map(str::to_owned),
            image: image.map(str::to_owned),
        }
    }

    #[test]
    fn a_web_image_is_linked_as_given() {
        let nowhere = Path::new("/no/such/folder");
        let iiif = "https://iiif.example.org/iiif/b1/p1/full/max/0/default.jpg";
        assert_eq!(image_link(iiif, nowhere).as_deref(), Some(iiif));
        let manifest = "HTTP://example.org/iiif/b1/manifest.json";
        assert_eq!(image_link(manifest, nowhere).as_deref(), Some(manifest));
        // Other schemes are names of files, and no such file is there.
        assert_eq!(image_link("javascript:alert(1)", nowhere), None);
        assert_eq!(image_link("ftp://example.org/p1.tif", nowhere), None);
    }

    #[test]
    fn a_file_is_linked_only_if_it_is_there() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("scans");
        std::fs::create_dir_all(folder.join("img")).unwrap();
        std::fs::write(folder.join("img/p 1#a%.tif"), b"II*\0").unwrap();
        std::fs::write(dir.path().join("cover.png"), b"\x89PNG").unwrap();
        let folder_url = file_url(&std::path::absolute(&folder).unwrap()).unwrap();
        assert!(folder_url.starts_with("file:///"), "{folder_url}");
        // Relative to the document's folder, escaped for a URL.
        assert_eq!(
            image_link("img/p 1#a%.tif", &folder),
            Some(format!("{folder_url}/img/p%201%23a%25.tif"))
        );
        assert_eq!(
            image_link("../cover.png", &folder),
            Some(format!("{folder_url}/../cover.png"))
        );
        // Not there, or a folder rather than an image: not linked.
        assert_eq!(image_link("img/p2.tif", &folder), None);
        assert_eq!(image_link("img", &folder), None);
        // An absolute path likewise.
        let absolute = std::path::absolute(dir.path().join("cover.png")).unwrap();
        let shown = absolute.to_str().unwrap();
        assert_eq!(
            image_link(shown, Path::new("/elsewhere")),
            file_url(&absolute)
        );
        assert_eq!(
            image_link(
                absolute.with_file_name("gone.png").to_str().unwrap(),
                &folder
            ),
            None
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_name_that_is_not_utf8_is_escaped_byte_by_byte() {
        use std::os::unix::ffi::OsStrExt as _;
        let path = Path::new(std::ffi::OsStr::from_bytes(b"/b\xe9/\xc3\xa9 x.tif"));
        assert_eq!(file_url(path).unwrap(), "file:///b%E9/%C3%A9%20x.tif");
    }

    #[test]
    fn the_matched_pages_with_an_image_are_listed_up_to_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("p2.tif"), b"II*\0").unwrap();
        let map = PageMap::new(vec![
            page(0, Some("i"), Some("p1.tif")),
            page(10, None, Some("p2.tif")),
            page(20, Some("3"), None),
            page(30, Some("4"), Some("https://example.org/p4.jpg")),
            page(40, Some("5"), Some("p5.tif")),
        ]);
        let side = matched_pages(&map, &(12..35), dir.path());
        let listed: Vec<(&str, &str, bool)> = side
            .pages
            .iter()
            .map(|p| {
                (
                    p.label.as_str(),
                    p.image.name.as_str(),
                    p.image.href.is_some(),
                )
            })
            .collect();
        // Pages 2–4 are matched; page 3 names no image.
        assert_eq!(
            listed,
            [
                ("2", "p2.tif", true),
                ("4", "https://example.org/p4.jpg", true)
            ]
        );
        assert_eq!(side.more, 0);
        let many = PageMap::new(
            (0..45)
                .map(|n| page(n * 10, None, Some(&format!("https://example.org/{n}.jpg"))))
                .collect(),
        );
        let side = matched_pages(&many, &(25..432), dir.path());
        assert_eq!(side.pages.len(), LISTED_PAGES);
        assert_eq!(side.pages[0].label, "3");
        assert_eq!(side.more, 42 - LISTED_PAGES);
        // No pages: nothing listed.
        assert!(matched_pages(&PageMap::default(), &(0..10), dir.path()).is_empty());
    }
}
