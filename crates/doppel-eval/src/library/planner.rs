//! How one document of a generated library is built: its body cut from a
//! book (whole, chapters, abridged, an anthology, edited), then laid out
//! as a plain file, an e-text in a licence, or an OCR'd page scan, each
//! seeded by the collection seed and the document's own path (adding a
//! document never changes another).

use crate::error::Result;

use super::boilerplate::Licence;
use super::source::{Body, Book, Corpus};
use super::transform::{abridge, etext, ocr_confusions, scan, ScanStyle};
use crate::{edit_words, vocabulary};
use doppel_core::hash::{hash64, SplitMix64};

/// One generated file.
#[derive(Debug, Clone)]
pub struct LibraryDocument {
    /// Relative to the collection folder, with `/`.
    pub path: String,
    /// `library`, `hard-cases` or `copies`.
    pub set: String,
    /// What the file is (layout, transformations, their rates).
    pub form: String,
    /// The licence or scanning-notice family around the body, if any.
    pub boilerplate: Option<String>,
    /// The file's content.
    pub text: String,
    pub(super) body: Body,
}

impl LibraryDocument {
    /// The text without licence, notice or page furniture (after OCR or
    /// edits, before page layout).
    pub fn body(&self) -> &str {
        &self.body.text
    }

    /// The title the document goes by (in its licence or running heads).
    pub fn title(&self) -> &str {
        &self.body.title
    }
}

/// Builds documents, each seeded by the collection seed and its own path
/// (adding a document never changes another).
pub struct Planner<'a> {
    pub corpus: &'a mut Corpus,
    pub seed: u64,
    pub docs: Vec<LibraryDocument>,
}

impl Planner<'_> {
    pub fn rng(&self, path: &str, what: &str) -> SplitMix64 {
        SplitMix64::new(hash64(format!("{path}#{what}").as_bytes(), self.seed))
    }

    pub fn id(&self, path: &str) -> u64 {
        10_000 + hash64(path.as_bytes(), self.seed) % 90_000
    }

    pub fn whole(&mut self, book: Book) -> Result<Body> {
        Ok(Body::whole(self.corpus.get(book)?))
    }

    pub fn chapters(&mut self, book: Book, first: usize, last: usize) -> Result<Body> {
        let source = self.corpus.get(book)?;
        let mut body = Body::units(source, source.chapter_units(first, last));
        body.title = if first == last {
            format!("{}, chapter {first}", book.title)
        } else {
            format!("{}, chapters {first} to {last}", book.title)
        };
        Ok(body)
    }

    pub fn abridged(&mut self, path: &str, book: Book, drop: &[usize], keep: f64) -> Result<Body> {
        let mut rng = self.rng(path, "abridge");
        let source = self.corpus.get(book)?;
        let mut body = Body::units(source, abridge(source, drop, keep, &mut rng));
        body.title = format!("{} (abridged)", book.title);
        Ok(body)
    }

    pub fn anthology(&mut self, title: &str, author: &str, parts: &[(Book, &str)]) -> Result<Body> {
        let mut bodies = Vec::new();
        for &(book, heading) in parts {
            bodies.push((heading.to_owned(), self.whole(book)?));
        }
        Ok(Body::anthology(title, author, bodies))
    }

    pub fn edited(&self, path: &str, body: &Body, rate: f64) -> Body {
        let mut rng = self.rng(path, "edit");
        let words = vocabulary([body.text.as_str()]);
        body.with_text(edit_words(&body.text, rate, &words, &mut rng).text)
    }

    pub fn push(
        &mut self,
        path: &str,
        form: String,
        boilerplate: Option<String>,
        body: Body,
        text: String,
    ) {
        let set = path
            .split('/')
            .next()
            .filter(|s| ["hard-cases", "copies"].contains(s));
        self.docs.push(LibraryDocument {
            path: path.to_owned(),
            set: set.unwrap_or("library").to_owned(),
            form,
            boilerplate,
            text,
            body,
        });
    }

    pub fn plain(&mut self, path: &str, form: &str, body: Body) {
        let text = body.text.clone();
        self.push(path, form.to_owned(), None, body, text);
    }

    pub fn etext(&mut self, path: &str, form: &str, body: Body, licence: &Licence) {
        let text = etext(
            &body.text,
            licence,
            &body.title,
            &body.author,
            self.id(path),
        );
        let form = format!("{form}; e-text in the {} licence", licence.name);
        self.push(
            path,
            form,
            Some(format!("licence: {}", licence.name)),
            body,
            text,
        );
    }

    /// A page scan with OCR confusions on 2-5 % of the words.
    pub fn scan(&mut self, path: &str, form: &str, body: Body, style: &ScanStyle) {
        let mut rng = self.rng(path, "scan");
        let rate = 0.02 + 0.03 * rng.next_f64();
        let body = body.with_text(ocr_confusions(&body.text, rate, &mut rng));
        let text = scan(
            &body.text,
            &body.title,
            &body.author,
            style,
            self.id(path),
            &mut rng,
        );
        let form = format!(
            "{form}; page scan, OCR confusions on {:.1} % of the words, running heads, page \
             numbers {}, form feeds, line-end hyphens, notice of {}",
            100.0 * rate,
            if style.numbers_at_foot {
                "at the foot"
            } else {
                "in the head"
            },
            style.notice.scanner
        );
        self.push(
            path,
            form,
            Some(format!("scan notice: {}", style.notice.scanner)),
            body,
            text,
        );
    }
}
