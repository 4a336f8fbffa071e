//! Zips of page files (tests/data/make-html-epub.sh makes them with Python's
//! zipfile): order, labels, gaps, litter, mixed formats and hostile zips.

use doppel_formats::{read, Book, Format, FormatError, Limits, Read, PAGE_BREAK};

fn data(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn book(name: &str) -> Book {
    match read(data(name), &Limits::default()) {
        Ok(Read::Book(book)) => book,
        other => panic!("{name}: {other:?}"),
    }
}

fn labels(book: &Book) -> Vec<String> {
    (0..book.pages.pages().len())
        .map(|i| book.pages.name(i))
        .collect()
}

#[test]
fn pages_come_in_the_order_of_their_numbers_labelled_by_them() {
    let book = book("pages-natural.zip");
    assert_eq!(book.format, Format::PageZip);
    let expected: Vec<String> = (1..=12).map(|n| n.to_string()).collect();
    assert_eq!(labels(&book), expected);
    let texts: Vec<&str> = book.text.split(PAGE_BREAK).collect();
    assert_eq!(texts[1], "page 2 text");
    assert_eq!(texts[9], "page 10 text");
    assert!(book.left_out.is_empty(), "{:?}", book.left_out);
}

#[test]
fn a_gap_in_the_numbering_is_read_and_named_litter_ignored() {
    let book = book("pages-gap.zip");
    assert_eq!(
        labels(&book),
        ["1", "2", "3", "4", "5", "6", "8", "9", "10"]
    );
    assert!(book
        .left_out
        .contains(&"page 7 is missing from the numbering".to_string()));
    assert!(
        book.left_out
            .contains(&"vol/extra.zip, a zip inside the zip (not opened)".to_string()),
        "{:?}",
        book.left_out
    );
    assert_eq!(
        book.left_out.len(),
        2,
        "litter is not named: {:?}",
        book.left_out
    );
    let pages: Vec<&str> = book.text.split(PAGE_BREAK).collect();
    assert!(
        pages[0].starts_with("Chapter 1 Sir Walter Elliot, of Kellynch Hall,\nin Somersetshire")
    );
    assert!(!pages[1].starts_with('\u{feff}'), "the BOM is stripped");
    // Page 3 is windows-1252, guessed by chardetng.
    assert!(pages[2].ends_with("Café naïve “quoted”"), "{}", pages[2]);
    assert!(!book.text.contains("not followed"));
}

#[test]
fn a_mets_struct_map_gives_the_order_and_the_labels() {
    let book = book("pages-mets.zip");
    assert_eq!(labels(&book), ["i", "ii", "1", "2"]);
    assert_eq!(
        book.text.split(PAGE_BREAK).collect::<Vec<_>>(),
        [
            "text of p-c.txt",
            "text of p-a.txt",
            "text of p-d.txt",
            "text of p-b.txt"
        ]
    );
}

#[test]
fn pages_of_two_formats_are_unusable() {
    match read(data("pages-mixed.zip"), &Limits::default()) {
        Err(FormatError::Unusable { reason, .. }) => {
            assert!(reason.contains("2 text, 1 ALTO"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn hostile_names_are_read_in_memory_and_never_written() {
    let temp = std::env::temp_dir();
    let before = |dir: &std::path::Path| {
        std::fs::read_dir(dir)
            .map(|d| {
                d.filter_map(|e| e.ok())
                    .map(|e| e.file_name())
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default()
    };
    let (cwd, temp_before) = (before(std::path::Path::new(".")), before(&temp));
    let book = book("pages-evil-names.zip");
    // Read like any other page: by the numbers in their names.
    assert_eq!(book.text, "first\n\x0csecond\n\x0cthird");
    assert_eq!(labels(&book), ["1", "2", "3"]);
    assert_eq!(
        before(std::path::Path::new(".")),
        cwd,
        "nothing written here"
    );
    let new_in_temp: Vec<_> = before(&temp)
        .into_iter()
        .filter(|name| !temp_before.contains(name))
        .filter(|name| name.to_string_lossy().ends_with(".txt"))
        .collect();
    assert!(
        new_in_temp.is_empty(),
        "written to the temp dir: {new_in_temp:?}"
    );
    assert!(!std::path::Path::new("../1.txt").exists());
    assert!(!std::path::Path::new("/etc/2.txt").exists());
}

#[test]
fn a_zip_bomb_stops_at_the_expansion_ratio() {
    let bytes = data("bomb.zip");
    let size = bytes.len();
    match read(bytes, &Limits::default()) {
        Err(FormatError::OverLimit {
            format: Format::PageZip,
            reason,
        }) => {
            assert!(reason.contains(&format!("its {size} bytes")), "{reason}");
            assert!(reason.contains("200 times"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_total_size_limit_holds_across_entries() {
    let limits = Limits {
        max_expanded_bytes: 1_000,
        ..Limits::default()
    };
    match read(data("pages-gap.zip"), &limits) {
        Err(FormatError::OverLimit { reason, .. }) => {
            assert_eq!(
                reason,
                "its entries expand to more than 1000 bytes (the size limit)"
            )
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn more_pages_than_the_limit_is_over_limit() {
    let limits = Limits {
        max_pages: 10,
        ..Limits::default()
    };
    match read(data("pages-natural.zip"), &limits) {
        Err(FormatError::OverLimit { reason, .. }) => {
            assert!(reason.contains("10 pages"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_truncated_or_corrupt_zip_is_damaged() {
    let whole = data("pages-gap.zip");
    let mut cut = whole.clone();
    cut.truncate(whole.len() - 100);
    let mut corrupt = whole.clone();
    // Flip bytes inside the first entry's deflated data.
    for b in &mut corrupt[60..90] {
        *b ^= 0x5a;
    }
    for bytes in [cut, corrupt] {
        match read(bytes, &Limits::default()) {
            Err(FormatError::Damaged { reason, .. }) => assert!(!reason.is_empty()),
            other => panic!("{other:?}"),
        }
    }
}
