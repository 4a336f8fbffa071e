//! The books a library collection is cut from: files of the shared corpus
//! read into *units* (paragraphs), and bodies assembled from units that
//! remember where every byte came from, so the truth can be computed from
//! provenance instead of from any similarity measure.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::error::{ensure, io, Result};

/// A corpus file the collection uses, with its bibliographic data.
#[derive(Debug, Clone, Copy)]
pub struct Book {
    /// Path under the corpus folder.
    pub path: &'static str,
    pub title: &'static str,
    pub author: &'static str,
    /// The work this file is an expression of: translations of one work
    /// share it (their relation is `related`); otherwise it is the path.
    pub work: &'static str,
}

/// One corpus file cut into units.
#[derive(Debug)]
pub struct Source {
    pub book: Book,
    /// Paragraphs: blocks between blank lines (a single-line block longer
    /// than [`LONG_LINE`] bytes is cut into paragraphs at sentence ends).
    pub units: Vec<String>,
    /// Index of each chapter heading unit, in order.
    pub chapters: Vec<usize>,
}

/// A one-line block longer than this is cut into paragraphs of about
/// [`PARAGRAPH`] bytes (the State of the Union addresses are one line each).
const LONG_LINE: usize = 2_000;
const PARAGRAPH: usize = 900;

impl Source {
    fn parse(book: Book, text: &str) -> Self {
        let text = text.replace("\r\n", "\n");
        let mut units = Vec::new();
        for block in text.split("\n\n") {
            let block = block.trim_matches('\n');
            if block.trim().is_empty() {
                continue;
            }
            if block.len() > LONG_LINE && !block.contains('\n') {
                units.extend(sentence_paragraphs(block));
            } else {
                units.push(block.to_owned());
            }
        }
        let chapters = (0..units.len())
            .filter(|&i| is_chapter_heading(&units[i]))
            .collect();
        Self {
            book,
            units,
            chapters,
        }
    }

    /// Units of chapters `first..=last` (1-based, in heading order): from
    /// the first one's heading to the unit before the heading after `last`.
    pub fn chapter_units(&self, first: usize, last: usize) -> Vec<usize> {
        let start = self.chapters[first - 1];
        let end = self.chapters.get(last).copied().unwrap_or(self.units.len());
        (start..end).collect()
    }
}

/// Cut one long line into paragraphs of about [`PARAGRAPH`] bytes, each
/// ending at a sentence end (". " before a capital).
fn sentence_paragraphs(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = line.as_bytes();
    let mut i = start + PARAGRAPH;
    while i + 2 < line.len() {
        if matches!(bytes[i], b'.' | b'?' | b'!')
            && bytes[i + 1] == b' '
            && bytes[i + 2].is_ascii_uppercase()
        {
            out.push(line[start..=i].to_owned());
            start = i + 2;
            i = start + PARAGRAPH;
        } else {
            i += 1;
        }
    }
    out.push(line[start..].to_owned());
    out
}

/// A unit that opens a chapter: one short line starting `CHAPTER` or
/// `Chapter ` (a volume heading is not a chapter: Emma's chapter 5 is its
/// fifth `CHAPTER`).
pub fn is_chapter_heading(unit: &str) -> bool {
    !unit.contains('\n')
        && unit.len() <= 60
        && (unit.starts_with("CHAPTER") || unit.starts_with("Chapter "))
}

/// The corpus files, read on first use.
pub struct Corpus {
    root: PathBuf,
    loaded: HashMap<&'static str, Source>,
}

impl Corpus {
    pub fn new(root: &Path) -> Result<Self> {
        ensure!(
            root.is_dir(),
            "{} is not a folder (the shared public-domain corpus; see --corpus)",
            root.display()
        );
        Ok(Self {
            root: root.to_path_buf(),
            loaded: HashMap::new(),
        })
    }

    pub fn get(&mut self, book: Book) -> Result<&Source> {
        if !self.loaded.contains_key(book.path) {
            let path = self.root.join(book.path);
            let text = std::fs::read_to_string(&path).map_err(io("read", &path))?;
            self.loaded.insert(book.path, Source::parse(book, &text));
        }
        Ok(&self.loaded[book.path])
    }
}

/// Where a body's text came from: a unit of a source, or text of the
/// collection's own (an anthology's headings), which no other body shares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    Unit {
        source: &'static str,
        unit: usize,
        bytes: usize,
    },
    Own {
        bytes: usize,
    },
}

/// The text of a document without boilerplate or page furniture, with the
/// units it is made of. Transformations (edits, OCR, modernized spelling)
/// change `text` and keep `origins`: the relation of two documents is
/// decided by the units they share, as a curator would decide it.
#[derive(Debug, Clone)]
pub struct Body {
    pub text: String,
    pub origins: Vec<Origin>,
    /// The corpus files the body draws on.
    pub books: Vec<Book>,
    pub title: String,
    pub author: String,
}

impl Body {
    /// The given units of `source`, in order, separated by blank lines.
    pub fn units(source: &Source, units: impl IntoIterator<Item = usize>) -> Self {
        let mut text = String::new();
        let mut origins = Vec::new();
        for unit in units {
            let u = &source.units[unit];
            if !text.is_empty() {
                text.push_str("\n\n");
            }
            text.push_str(u);
            origins.push(Origin::Unit {
                source: source.book.path,
                unit,
                bytes: u.len(),
            });
        }
        text.push('\n');
        Self {
            text,
            origins,
            books: vec![source.book],
            title: source.book.title.to_owned(),
            author: source.book.author.to_owned(),
        }
    }

    pub fn whole(source: &Source) -> Self {
        Self::units(source, 0..source.units.len())
    }

    /// A body of `parts`, each after a heading of the collection's own
    /// (an anthology): its title and author are given.
    pub fn anthology(title: &str, author: &str, parts: Vec<(String, Body)>) -> Self {
        let mut out = Self {
            text: String::new(),
            origins: Vec::new(),
            books: Vec::new(),
            title: title.to_owned(),
            author: author.to_owned(),
        };
        for (heading, part) in parts {
            if !out.text.is_empty() {
                out.text.push('\n');
            }
            out.text.push_str(&heading);
            out.text.push_str("\n\n");
            out.text.push_str(&part.text);
            out.origins.push(Origin::Own {
                bytes: heading.len(),
            });
            out.origins.extend(part.origins);
            for book in part.books {
                if !out.books.iter().any(|b| b.path == book.path) {
                    out.books.push(book);
                }
            }
        }
        out
    }

    /// The same body with its text replaced (a transformation's output).
    pub fn with_text(&self, text: String) -> Self {
        Self {
            text,
            ..self.clone()
        }
    }

    /// Bytes of the units and own text the body is made of.
    pub fn origin_bytes(&self) -> usize {
        self.origins
            .iter()
            .map(|o| match o {
                Origin::Unit { bytes, .. } | Origin::Own { bytes } => *bytes,
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOOK: Book = Book {
        path: "x/book.txt",
        title: "Book",
        author: "Someone",
        work: "x/book.txt",
    };

    #[test]
    fn units_are_paragraphs_and_chapters_are_found() {
        let s = Source::parse(
            BOOK,
            "TITLE\n\nCHAPTER I\n\nOne line\nand two.\n\n\n\nVOLUME II\n\nCHAPTER II\n\nMore.\n",
        );
        assert_eq!(s.units.len(), 6);
        assert_eq!(s.units[2], "One line\nand two.");
        assert_eq!(s.chapters, vec![1, 4]);
        assert_eq!(s.chapter_units(1, 1), vec![1, 2, 3]);
        assert_eq!(s.chapter_units(2, 2), vec![4, 5]);
        let b = Body::units(&s, s.chapter_units(2, 2));
        assert_eq!(b.text, "CHAPTER II\n\nMore.\n");
        assert_eq!(b.origin_bytes(), "CHAPTER II".len() + "More.".len());
    }

    #[test]
    fn long_lines_become_sentence_paragraphs() {
        let sentence = "This sentence is about fifty bytes long, roughly. ";
        let line = sentence.repeat(100);
        let s = Source::parse(BOOK, line.trim_end());
        assert!(s.units.len() > 3, "{}", s.units.len());
        assert_eq!(s.units.join(" "), line.trim_end());
        assert!(s.units.iter().all(|u| u.ends_with('.')));
    }
}
