//! A folder of page files is one book, read as the `page_files` module
//! says. The folder is listed and its files read by the layer that owns
//! the folder (doppel's index, which reads a listed file only if it is
//! still the one listed); they arrive here as one byte string, a
//! [`PageFolderBytes`], so that a folder travels every path a file's
//! bytes do (its content hash, the decoder, the diff) and is read by
//! [`crate::read`] like any other format. The string is this crate's own
//! framing, told by its first bytes ([`MAGIC`], which no text file
//! starts with): the pages' names and bytes, length-prefixed, in order.

use crate::page_files::read_pages;
use crate::{Book, Format, FormatError, Limits};

/// The first bytes of a [`PageFolderBytes`] (a NUL first: never text).
pub const MAGIC: &[u8] = b"\0doppel folder of pages v1\n";

/// A folder's page files framed as one byte string, built as they are
/// read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageFolderBytes {
    bytes: Vec<u8>,
}

impl Default for PageFolderBytes {
    fn default() -> Self {
        Self::new()
    }
}

impl PageFolderBytes {
    /// An empty folder.
    pub fn new() -> Self {
        Self {
            bytes: MAGIC.to_vec(),
        }
    }

    /// Add the file `name` (its name in the folder) with its `bytes`.
    pub fn push(&mut self, name: &str, bytes: &[u8]) {
        let name = name.as_bytes();
        let name_len = u32::try_from(name.len()).unwrap_or(u32::MAX);
        self.bytes.reserve(12 + name.len() + bytes.len());
        self.bytes.extend_from_slice(&name_len.to_le_bytes());
        self.bytes.extend_from_slice(&name[..name_len as usize]);
        self.bytes
            .extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        self.bytes.extend_from_slice(bytes);
    }

    /// The framed bytes, for [`crate::read`].
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}

/// Whether a file's first bytes (4 KiB are enough) are a METS file, which
/// orders a book's pages: as a zip or a folder of pages is read, so the
/// layer listing a folder tells a METS package the same way.
pub fn is_mets(bytes: &[u8]) -> bool {
    crate::page_files::is_mets(bytes)
}

/// Read a folder's framed pages.
pub(crate) fn read(bytes: &[u8], limits: &Limits) -> Result<Book, FormatError> {
    let files = unframe(bytes)?;
    let names = files.iter().map(|(name, _)| name.clone()).collect();
    read_pages(
        names,
        |i| Ok(files[i].1.to_vec()),
        Format::PageFolder,
        limits,
    )
}

/// The (name, bytes) of each framed file.
fn unframe(bytes: &[u8]) -> Result<Vec<(String, &[u8])>, FormatError> {
    let damaged = || FormatError::Damaged {
        format: Format::PageFolder,
        reason: "its pages' framing is cut short".into(),
    };
    let mut rest = bytes.strip_prefix(MAGIC).ok_or_else(damaged)?;
    let mut files = Vec::new();
    while !rest.is_empty() {
        let (len, tail) = rest.split_first_chunk::<4>().ok_or_else(damaged)?;
        let len = u32::from_le_bytes(*len) as usize;
        let (name, tail) = tail.split_at_checked(len).ok_or_else(damaged)?;
        let (len, tail) = tail.split_first_chunk::<8>().ok_or_else(damaged)?;
        let len = usize::try_from(u64::from_le_bytes(*len)).map_err(|_| damaged())?;
        let (file, tail) = tail.split_at_checked(len).ok_or_else(damaged)?;
        files.push((String::from_utf8_lossy(name).into_owned(), file));
        rest = tail;
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Read;

    fn folder(pages: &[(&str, &str)]) -> Vec<u8> {
        let mut framed = PageFolderBytes::new();
        for (name, text) in pages {
            framed.push(name, text.as_bytes());
        }
        framed.into_bytes()
    }

    #[test]
    fn a_folders_pages_are_one_book_in_the_order_of_their_numbers() {
        let bytes = folder(&[
            ("10.txt", "The tenth page."),
            ("2.txt", "The second page."),
            ("1.txt", "The first page."),
        ]);
        let Ok(Read::Book(book)) = crate::read(bytes, &Limits::default()) else {
            panic!("read as a book");
        };
        assert_eq!(book.format, Format::PageFolder);
        let labels: Vec<_> = book.pages.pages().iter().map(|p| p.label.clone()).collect();
        assert_eq!(
            labels,
            [Some("1".into()), Some("2".into()), Some("10".into())]
        );
        assert!(book.text.starts_with("The first page."));
        assert!(book.text.ends_with("The tenth page."));
        assert_eq!(book.left_out, ["pages 3–9 are missing from the numbering"]);
    }

    #[test]
    fn a_cut_framing_is_damaged_not_a_panic() {
        let mut bytes = folder(&[("1.txt", "The first page.")]);
        bytes.truncate(bytes.len() - 3);
        let err = crate::read(bytes, &Limits::default()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "damaged folder of pages: its pages' framing is cut short"
        );
    }

    #[test]
    fn a_folder_of_pages_in_two_formats_is_refused_with_the_reason() {
        let alto = "<?xml version=\"1.0\"?><alto xmlns=\"http://www.loc.gov/standards/alto/ns-v3#\"><Layout><Page><PrintSpace><TextBlock><TextLine><String CONTENT=\"Word\"/></TextLine></TextBlock></PrintSpace></Page></Layout></alto>";
        let bytes = folder(&[("1.txt", "The first page."), ("2.xml", alto)]);
        let err = crate::read(bytes, &Limits::default()).unwrap_err();
        assert!(err.to_string().contains("more than one format"), "{err}");
    }
}
