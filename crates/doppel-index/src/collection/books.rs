//! Which folders are books: a folder whose files are the pages of one book
//! (HathiTrust's numbered page `.txt` files, an ALTO or hOCR file per
//! page, a METS package) is one document, named by the folder's path.
//!
//! A folder (never the root) is a book when ([`PageFolders`] says which
//! rules apply, `[books] page-folders` in the config):
//! - it holds the marker file `.doppelbook` (a curator's say-so; a marker
//!   that says `no` keeps a folder from being a book whatever else holds);
//! - a METS file in it (`*mets*.xml` whose root is `mets`) names its pages;
//! - or its files are numbered pages: at least two files of one
//!   extension, each named by one prefix and a page number of three or
//!   more digits, all as wide (`00000001.xml`, `b1234_0001.hocr`), page
//!   images beside them allowed, and the pages OCR pages by their content
//!   (ALTO or hOCR: such a file is a page by nature). Numbered plain-text
//!   pages (HathiTrust's `00000001.txt`) count only under
//!   [`PageFolders::Numbered`] or with a marker, since a dataset's
//!   documents are often named `000001.txt` too; chapters named `1.txt`,
//!   `2.txt` never count.
//!
//! A book's files (its pages, images and litter among them) go to the
//! formats layer together ([`doppel_formats::page_folder`]); its
//! subfolders are looked at on their own. Its identity is its pages' and
//! the folder's together ([`book_identity`]): a page changed, added or
//! removed changes it, so the book alone is read again.

use std::ffi::OsStr;
use std::fs;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{read_opened, relative, FileEntry, ListedRoot, Skip};
use doppel_core::doc::FileIdentity;
use doppel_formats::page_folder::{self, PageFolderBytes};

/// The marker file that makes a folder a book (or, saying `no`, keeps it
/// from being one).
pub const BOOK_MARKER: &str = ".doppelbook";

/// Page files' extensions (lowercase) for the numbered-pages rule.
const PAGE_EXTENSIONS: [&str; 7] = ["txt", "xml", "alto", "hocr", "html", "htm", "xhtml"];

/// Page images' extensions (lowercase): allowed beside numbered pages.
const IMAGE_EXTENSIONS: [&str; 8] = ["jp2", "jpg", "jpeg", "png", "tif", "tiff", "gif", "webp"];

/// The fewest digits a page number has in the numbered-pages rule.
const PAGE_NUMBER_DIGITS: usize = 3;

/// `[books] page-folders`: which folders are read as books.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PageFolders {
    /// Marked folders, METS packages and folders of numbered OCR pages
    /// (ALTO, hOCR): the default.
    #[default]
    Auto,
    /// As `Auto`, and folders of numbered pages of any format, plain text
    /// included (HathiTrust's page texts).
    Numbered,
    /// Only folders with a [`BOOK_MARKER`] or a METS file.
    Marked,
    /// None: every file is a document of its own.
    Off,
}

/// Why a folder is read as a book.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BookWhy {
    /// It holds a [`BOOK_MARKER`].
    Marker,
    /// A METS file in it names its pages.
    Mets,
    /// Its files are numbered pages.
    NumberedPages,
}

impl std::fmt::Display for BookWhy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BookWhy::Marker => "marked with .doppelbook",
            BookWhy::Mets => "a METS file names its pages",
            BookWhy::NumberedPages => "its files are numbered pages",
        })
    }
}

/// A folder read as one book: why, and its files as listed.
#[derive(Debug, Clone)]
pub struct BookFolder {
    /// Why it is a book.
    pub why: BookWhy,
    /// Its files (pages, images, a METS file), sorted by path.
    pub pages: Vec<FileEntry>,
}

/// Whether `folder` (holding the files `names`) is a book under `mode`,
/// and why. `root` itself never is.
pub fn judge(root: &Path, folder: &Path, names: &[&OsStr], mode: PageFolders) -> Option<BookWhy> {
    if mode == PageFolders::Off || folder == root || names.is_empty() {
        return None;
    }
    match marker(folder) {
        Some(true) => return Some(BookWhy::Marker),
        Some(false) => return None,
        None => {}
    }
    if names.iter().any(|name| is_mets(&folder.join(name))) && names.len() > 1 {
        return Some(BookWhy::Mets);
    }
    let numbered = match mode {
        PageFolders::Numbered => numbered_pages(names).is_some(),
        PageFolders::Auto => {
            numbered_pages(names).is_some_and(|first| is_ocr_page(&folder.join(first)))
        }
        PageFolders::Marked | PageFolders::Off => false,
    };
    numbered.then_some(BookWhy::NumberedPages)
}

/// Whether the file at `path` is an OCR page format (ALTO, hOCR) by its
/// first bytes.
fn is_ocr_page(path: &Path) -> bool {
    matches!(
        doppel_formats::detect(&head(path, 8192)),
        doppel_formats::Format::Alto | doppel_formats::Format::Hocr
    )
}

/// What `folder`'s marker says: `Some(true)` a book, `Some(false)` not
/// one (a marker whose first word is `no` or `false`), `None` no marker.
fn marker(folder: &Path) -> Option<bool> {
    let path = folder.join(BOOK_MARKER);
    let meta = fs::symlink_metadata(&path).ok()?;
    if !meta.is_file() {
        return None;
    }
    let mut head = String::new();
    let _ = fs::File::open(&path).and_then(|f| f.take(256).read_to_string(&mut head));
    let first = head
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .unwrap_or("")
        .to_ascii_lowercase();
    Some(!matches!(first.as_str(), "no" | "false"))
}

/// Whether `path` is a METS file: named so (`mets.xml`, `b1_mets.xml`,
/// `x.mets.xml`) and with a `mets` root element in its first 4 KiB.
fn is_mets(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    if !(name.ends_with(".xml") && name.contains("mets")) {
        return false;
    }
    if !fs::symlink_metadata(path).is_ok_and(|m| m.is_file()) {
        return false;
    }
    page_folder::is_mets(&head(path, 4096))
}

/// The first `bytes` of the file at `path` (fewer, or none, when it is
/// shorter or cannot be read).
fn head(path: &Path, bytes: u64) -> Vec<u8> {
    let mut head = Vec::new();
    let _ = fs::File::open(path).and_then(|f| f.take(bytes).read_to_end(&mut head));
    head
}

/// The first of `names` when they are numbered pages (see the module's
/// rule; content aside).
fn numbered_pages<'a>(names: &[&'a OsStr]) -> Option<&'a OsStr> {
    let mut shape: Option<(String, usize, String)> = None;
    let mut first = None;
    let mut pages = 0;
    for name in names {
        let text = name.to_str()?;
        let (stem, extension) = match text.rsplit_once('.') {
            Some((stem, ext)) => (stem, ext.to_ascii_lowercase()),
            None => return None,
        };
        if IMAGE_EXTENSIONS.contains(&extension.as_str()) {
            continue;
        }
        if !PAGE_EXTENSIONS.contains(&extension.as_str()) {
            return None;
        }
        let digits = stem.len() - stem.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        if digits < PAGE_NUMBER_DIGITS {
            return None;
        }
        let this = (stem[..stem.len() - digits].to_string(), digits, extension);
        match &shape {
            None => shape = Some(this),
            Some(seen) if *seen == this => {}
            Some(_) => return None,
        }
        first.get_or_insert(*name);
        pages += 1;
    }
    first.filter(|_| pages >= 2)
}

/// The identity of a book of `pages` in `folder` (its `lstat`): their
/// sizes summed, the latest of their and the folder's modification and
/// status-change times (a page added, removed or renamed changes the
/// folder's), the folder's device and inode.
pub fn book_identity(folder: &fs::Metadata, pages: &[FileIdentity]) -> FileIdentity {
    let own = FileIdentity::from_metadata(folder);
    FileIdentity {
        size: pages.iter().map(|p| p.size).sum(),
        mtime_ns: pages
            .iter()
            .map(|p| p.mtime_ns)
            .fold(own.mtime_ns, i64::max),
        ctime_ns: pages
            .iter()
            .map(|p| p.ctime_ns)
            .fold(own.ctime_ns, i64::max),
        inode: own.inode,
        dev: own.dev,
    }
}

/// The listed `files` (sorted by path) with the files of each book folder
/// replaced by one entry for the folder.
pub(super) fn gather_books(
    root: &Path,
    files: Vec<FileEntry>,
    mode: PageFolders,
) -> Vec<FileEntry> {
    if mode == PageFolders::Off {
        return files;
    }
    let mut by_folder: std::collections::BTreeMap<PathBuf, Vec<FileEntry>> = Default::default();
    for file in files {
        let folder = file.path.parent().unwrap_or(root).to_path_buf();
        by_folder.entry(folder).or_default().push(file);
    }
    let mut out = Vec::new();
    for (folder, files) in by_folder {
        let names: Vec<&OsStr> = files.iter().filter_map(|f| f.path.file_name()).collect();
        let why = judge(root, &folder, &names, mode);
        match (why, fs::symlink_metadata(&folder)) {
            (Some(why), Ok(meta)) if meta.is_dir() => {
                out.push(book_entry(root, &folder, &meta, why, files))
            }
            _ => out.extend(files),
        }
    }
    out.sort_by(|a, b| a.doc.cmp(&b.doc));
    out
}

/// The entry of the book `folder` (its `lstat` `meta`) of `pages`.
fn book_entry(
    root: &Path,
    folder: &Path,
    meta: &fs::Metadata,
    why: BookWhy,
    pages: Vec<FileEntry>,
) -> FileEntry {
    let identities: Vec<FileIdentity> = pages.iter().map(|p| p.identity).collect();
    let identity = book_identity(meta, &identities);
    FileEntry {
        path: folder.to_path_buf(),
        doc: relative(root, folder),
        bytes: identity.size,
        identity,
        book: Some(Arc::new(BookFolder { why, pages })),
    }
}

/// The book `folder` (under `root`) is now, when it is one: its page files
/// listed afresh (regular files, not hidden), judged under `mode`.
pub fn book_now(root: &Path, folder: &Path, mode: PageFolders) -> Option<FileEntry> {
    let meta = fs::symlink_metadata(folder).ok().filter(|m| m.is_dir())?;
    let mut pages: Vec<FileEntry> = fs::read_dir(folder)
        .ok()?
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .filter_map(|e| {
            let meta = e.metadata().ok().filter(fs::Metadata::is_file)?;
            let identity = FileIdentity::from_metadata(&meta);
            Some(FileEntry::file(
                e.path(),
                relative(root, &e.path()),
                identity,
            ))
        })
        .collect();
    pages.sort_by(|a, b| a.doc.cmp(&b.doc));
    let names: Vec<&OsStr> = pages.iter().filter_map(|f| f.path.file_name()).collect();
    let why = judge(root, folder, &names, mode)?;
    Some(book_entry(root, folder, &meta, why, pages))
}

/// The document at `path` (under `root`) as it is now: a regular file's
/// entry, a book folder's ([`book_now`]), else `None`.
pub fn entry_now(root: &Path, path: &Path, page_folders: PageFolders) -> Option<FileEntry> {
    let meta = fs::symlink_metadata(path).ok()?;
    if meta.is_dir() {
        return book_now(root, path, page_folders);
    }
    meta.is_file().then(|| {
        let identity = FileIdentity::from_metadata(&meta);
        FileEntry::file(path.to_path_buf(), relative(root, path), identity)
    })
}

/// Read the pages of `book` (the folder `folder`), each only while it is
/// the file listed (through `root`, which listed them), into one framed
/// byte string ([`PageFolderBytes`]), at most `cap` bytes in all; with the
/// book's identity as its pages were read.
pub(super) fn read_book(
    root: &ListedRoot,
    folder: &Path,
    book: &BookFolder,
    cap: u64,
) -> Result<(Vec<u8>, FileIdentity), Skip> {
    let total: u64 = book.pages.iter().map(|p| p.bytes).sum();
    if total > cap {
        return Err(Skip::TooLarge { bytes: total, cap });
    }
    let meta = fs::symlink_metadata(folder).map_err(|e| Skip::Unreadable {
        reason: e.to_string(),
    })?;
    let mut framed = PageFolderBytes::new();
    let mut identities = Vec::with_capacity(book.pages.len());
    for page in &book.pages {
        let (file, page_meta) = root.open_listed(page, cap)?;
        let (bytes, identity) = read_opened(file, &page_meta, cap)?;
        let name = page
            .path
            .strip_prefix(folder)
            .unwrap_or(&page.path)
            .to_string_lossy();
        framed.push(&name, &bytes);
        identities.push(identity);
    }
    Ok((framed.into_bytes(), book_identity(&meta, &identities)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&'static str]) -> Vec<&'static OsStr> {
        list.iter().map(|n| OsStr::new(*n)).collect()
    }

    #[test]
    fn numbered_page_files_are_pages_and_chapters_are_not() {
        let pages = |list: &[&'static str]| numbered_pages(&names(list)).is_some();
        assert!(pages(&["00000001.txt", "00000002.txt"]));
        assert!(pages(&[
            "b1234_0001.xml",
            "b1234_0002.xml",
            "b1234_0001.jp2"
        ]));
        // Chapters, one page, mixed widths, prefixes or formats: not pages.
        assert!(!pages(&["1.txt", "2.txt", "3.txt"]));
        assert!(!pages(&["0001.txt"]));
        assert!(!pages(&["0001.txt", "00002.txt"]));
        assert!(!pages(&["a_0001.txt", "b_0002.txt"]));
        assert!(!pages(&["0001.txt", "0002.xml"]));
        assert!(!pages(&["0001.txt", "0002.txt", "notes.txt"]));
        assert!(!pages(&["0001.pdf", "0002.pdf"]));
    }

    #[test]
    fn a_marker_makes_a_book_and_a_marker_saying_no_unmakes_one() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let folder = root.join("chapters");
        fs::create_dir(&folder).unwrap();
        let pages = names(&["0001.txt", "0002.txt"]);
        // Numbered text pages: only when numbered pages of any format count.
        assert_eq!(judge(root, &folder, &pages, PageFolders::Auto), None);
        assert_eq!(
            judge(root, &folder, &pages, PageFolders::Numbered),
            Some(BookWhy::NumberedPages)
        );
        assert_eq!(judge(root, &folder, &pages, PageFolders::Marked), None);
        assert_eq!(judge(root, root, &pages, PageFolders::Auto), None);
        fs::write(folder.join(BOOK_MARKER), "# not a book\nno\n").unwrap();
        assert_eq!(judge(root, &folder, &pages, PageFolders::Numbered), None);
        fs::write(folder.join(BOOK_MARKER), "").unwrap();
        let chapters = names(&["1.txt", "2.txt"]);
        assert_eq!(
            judge(root, &folder, &chapters, PageFolders::Marked),
            Some(BookWhy::Marker)
        );
        assert_eq!(judge(root, &folder, &chapters, PageFolders::Off), None);
    }

    #[test]
    fn a_mets_file_makes_its_folder_a_book() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("vol");
        fs::create_dir(&folder).unwrap();
        fs::write(
            folder.join("vol_mets.xml"),
            "<?xml version=\"1.0\"?>\n<mets:mets xmlns:mets=\"http://www.loc.gov/METS/\">",
        )
        .unwrap();
        let files = names(&["vol_mets.xml", "p1.xml", "p2.xml"]);
        assert_eq!(
            judge(dir.path(), &folder, &files, PageFolders::Marked),
            Some(BookWhy::Mets)
        );
        // Numbered OCR pages are a book by default; numbered texts not.
        let ocr = dir.path().join("ocr");
        fs::create_dir(&ocr).unwrap();
        let alto =
            "<?xml version=\"1.0\"?>\n<alto xmlns=\"http://www.loc.gov/standards/alto/ns-v3#\">";
        for name in ["0001.xml", "0002.xml"] {
            fs::write(ocr.join(name), alto).unwrap();
        }
        let numbered = names(&["0001.xml", "0002.xml"]);
        assert_eq!(
            judge(dir.path(), &ocr, &numbered, PageFolders::Auto),
            Some(BookWhy::NumberedPages)
        );
        fs::write(
            ocr.join("0001.xml"),
            "<record>a dataset's document</record>",
        )
        .unwrap();
        assert_eq!(judge(dir.path(), &ocr, &numbered, PageFolders::Auto), None);
        // A file merely named so is not METS.
        fs::write(folder.join("vol_mets.xml"), "<alto/>").unwrap();
        assert_eq!(
            judge(dir.path(), &folder, &files, PageFolders::Marked),
            None
        );
    }
}
