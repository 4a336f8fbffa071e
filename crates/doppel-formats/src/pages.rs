//! The page map: where each page of a book's text starts, the label the
//! source prints on it, and the image it was read from.
//!
//! A reader joins pages with a form feed (`"\n\x0c"` between two pages,
//! so each page but the first starts right after a form feed at a line's
//! start): the engine's page furniture finds running heads and page
//! numbers by form feeds, and a text cut anywhere still says where pages
//! break. [`PageMap`] holds what a form feed cannot: each page's byte
//! offset, label and image.

use serde::{Deserialize, Serialize};

/// The form feed that separates two pages of a book's text.
pub const PAGE_BREAK: &str = "\n\x0c";

/// One page of a book.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Page {
    /// The byte offset in the book's text where the page begins.
    pub start: usize,
    /// The page's label as the source gives it (a printed page number
    /// such as `"xii"` or `"41"`, or an EPUB chapter's title); `None`
    /// when the source gives none (then the page's number, from 1, names
    /// it).
    pub label: Option<String>,
    /// The page image the text was read from (an ALTO `fileName`, an
    /// hOCR `image`, a TEI `facs`, a IIIF URI), when the source names one.
    pub image: Option<String>,
}

/// The pages of a book's text, in order, each starting after the one
/// before. An empty map means the text has no pages (plain text).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageMap {
    pages: Vec<Page>,
}

impl PageMap {
    /// A map of `pages`, which must start in increasing order.
    ///
    /// # Panics
    /// When two pages do not start in increasing order (a reader's bug).
    pub fn new(pages: Vec<Page>) -> Self {
        assert!(
            pages.windows(2).all(|w| w[0].start < w[1].start),
            "pages start in increasing order"
        );
        Self { pages }
    }

    /// The pages, in order.
    pub fn pages(&self) -> &[Page] {
        &self.pages
    }

    /// Whether the text has no page map.
    pub fn is_empty(&self) -> bool {
        self.pages.is_empty()
    }

    /// The index of the page holding the byte at `offset` (the last page
    /// for an offset past the end); `None` without pages.
    pub fn index_of(&self, offset: usize) -> Option<usize> {
        match self.pages.partition_point(|p| p.start <= offset) {
            0 if self.pages.is_empty() => None,
            0 => Some(0),
            n => Some(n - 1),
        }
    }

    /// What the page at `index` is called: its label, else its number
    /// (from 1).
    pub fn name(&self, index: usize) -> String {
        match self.pages.get(index).and_then(|p| p.label.clone()) {
            Some(label) => label,
            None => (index + 1).to_string(),
        }
    }

    /// The names of the first and last page of the bytes `range`
    /// (`"41"`, or `"41–57"`); `None` without pages.
    pub fn range_name(&self, range: std::ops::Range<usize>) -> Option<String> {
        let first = self.index_of(range.start)?;
        let last = self.index_of(range.end.saturating_sub(1).max(range.start))?;
        Some(if first == last {
            self.name(first)
        } else {
            format!("{}–{}", self.name(first), self.name(last))
        })
    }
}

/// Builds a book's text page by page, with its map.
#[derive(Debug, Default)]
pub struct PagedText {
    text: String,
    pages: Vec<Page>,
}

impl PagedText {
    /// An empty book.
    pub fn new() -> Self {
        Self::default()
    }

    /// Start a new page (labelled and with its image when the source
    /// says): a page break unless it is the first. A page left empty is
    /// still a page (a blank page of the book keeps the numbering).
    pub fn start_page(&mut self, label: Option<String>, image: Option<String>) {
        if !self.pages.is_empty() {
            self.text.push_str(PAGE_BREAK);
        }
        self.pages.push(Page {
            start: self.text.len(),
            label,
            image,
        });
    }

    /// The text so far, to append to (pages break only by
    /// [`Self::start_page`]).
    pub fn text_mut(&mut self) -> &mut String {
        &mut self.text
    }

    /// The text so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The text and its map.
    pub fn finish(self) -> (String, PageMap) {
        (self.text, PageMap::new(self.pages))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_byte_is_on_the_page_that_starts_at_or_before_it() {
        let mut book = PagedText::new();
        book.start_page(Some("xii".into()), None);
        book.text_mut().push_str("first page");
        book.start_page(None, Some("p2.png".into()));
        book.text_mut().push_str("second");
        let (text, map) = book.finish();
        assert_eq!(text, "first page\n\x0csecond");
        assert_eq!(map.index_of(0), Some(0));
        assert_eq!(map.index_of(9), Some(0));
        assert_eq!(map.index_of(12), Some(1));
        assert_eq!(map.name(0), "xii");
        assert_eq!(map.name(1), "2", "no label: its number");
        assert_eq!(map.range_name(0..text.len()).as_deref(), Some("xii–2"));
        assert_eq!(map.range_name(12..14).as_deref(), Some("2"));
        assert_eq!(PageMap::default().range_name(0..4), None);
    }
}
