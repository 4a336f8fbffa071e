//! How fast each reader turns a book into text: MB/s of the file's bytes
//! (markup included) on one core, on the repository's fixtures of one
//! chapter of Emma made by Tesseract and pandoc (`tests/data/formats`).
//! A zip (an EPUB, a zip of pages) is measured by the bytes it holds,
//! unzipped: the markup its reader reads (its name says "unzipped").
//! The PDF's pages/s against `pdftotext` are in BENCHMARKS.md.
//!
//! `cargo bench -p doppel-formats --bench read`; whole books of your own
//! beside them with `DOPPEL_BENCH_BOOKS=a.epub,b.html` (the fixtures are
//! one chapter, so a container's fixed cost weighs on them).

#![allow(missing_docs)] // criterion_main! makes an undocumented `main`

use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use doppel_formats::{read, Limits, Read};

const FIXTURES: [(&str, &str); 8] = [
    ("alto", "emma_scan.xml"),
    ("hocr", "emma_scan.hocr"),
    ("html", "emma.html"),
    ("epub", "emma.epub"),
    ("tei", "emma.tei.xml"),
    ("pdf", "emma_scan.pdf"),
    ("page-zip", "emma_pages_txt.zip"),
    ("gzip", "emma.txt.gz"),
];

fn readers(c: &mut Criterion) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/formats");
    let limits = Limits::default();
    let mut group = c.benchmark_group("read");
    let books = std::env::var("DOPPEL_BENCH_BOOKS").unwrap_or_default();
    let books = books
        .split(',')
        .filter(|p| !p.is_empty())
        .map(|p| (p, Path::new(p).to_path_buf()));
    let fixtures = FIXTURES.iter().map(|&(name, file)| (name, dir.join(file)));
    for (name, path) in fixtures.chain(books) {
        let file = path.display();
        let bytes = std::fs::read(&path).expect("the repository's fixture, or a book named");
        let (name, size) = match unzipped_size(&bytes) {
            Some(size) => (format!("{name}, unzipped"), size),
            None => (name.to_string(), bytes.len() as u64),
        };
        group.throughput(Throughput::Bytes(size));
        group.bench_function(name, |b| {
            b.iter(|| match read(bytes.clone(), &limits) {
                Ok(Read::Book(book)) => book.text.len(),
                Ok(Read::Plain(bytes)) => bytes.len(),
                Err(error) => panic!("{file}: {error}"),
            })
        });
    }
    group.finish();
}

/// The bytes a zip holds, unzipped; `None` for a file that is no zip.
fn unzipped_size(bytes: &[u8]) -> Option<u64> {
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).ok()?;
    (0..zip.len())
        .map(|i| zip.by_index_raw(i).ok().map(|entry| entry.size()))
        .sum()
}

criterion_group!(benches, readers);
criterion_main!(benches);
