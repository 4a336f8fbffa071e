//! A zip of page files is one book (HathiTrust's volumes, an OCR run's
//! ALTO or hOCR pages zipped): its entries are read as
//! the `page_files` module says, directories aside. An EPUB zipped without
//! its `mimetype` first is read as an EPUB; an office document or a Java
//! archive is no book of pages and is handed back as [`Read::Plain`].

use crate::archive::Archive;
use crate::page_files::read_pages;
use crate::{epub, Format, FormatError, Limits, Read};

/// Read a zip of pages, or hand back a zip that is no book of pages (an
/// office document, a Java archive) as [`Read::Plain`].
pub fn read(bytes: Vec<u8>, limits: &Limits) -> Result<Read, FormatError> {
    let mut zip = Archive::open(&bytes, Format::PageZip, limits)?;
    let entries = zip.entries()?;
    let has = |name: &str| entries.iter().any(|e| e.name == name);
    if has("META-INF/container.xml") {
        // An EPUB zipped without its `mimetype` first.
        return epub::read(&bytes, limits).map(Read::Book);
    }
    if has("[Content_Types].xml") || has("mimetype") || has("META-INF/MANIFEST.MF") {
        drop(zip);
        return Ok(Read::Plain(bytes));
    }
    let files: Vec<_> = entries.into_iter().filter(|e| !e.is_dir).collect();
    let names = files.iter().map(|e| e.name.clone()).collect();
    read_pages(names, |i| zip.read(files[i].index), Format::PageZip, limits).map(Read::Book)
}
