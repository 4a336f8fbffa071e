use std::time::Duration;

use proptest::prelude::*;

use super::*;

fn far() -> Instant {
    Instant::now() + Duration::from_secs(60)
}

fn diff(a: &str, b: &str) -> DiffParts {
    diff_texts(a.into(), b.into(), &DiffOptions::new(far()))
}

fn kinds(side: &DiffSide) -> Vec<DiffKind> {
    side.words.iter().map(|w| w.kind).collect()
}

/// The marked characters of each word of `side` that has any, as
/// (word as shown, marked characters).
fn marked(side: &DiffSide) -> Vec<(String, String)> {
    (0..side.words.len())
        .filter_map(|i| {
            let chars: String = side
                .word_chars(i)
                .filter(|&(at, _)| {
                    side.marks
                        .iter()
                        .any(|&(s, e)| (s as usize) <= at && at < e as usize)
                })
                .map(|(_, c)| c)
                .collect();
            (!chars.is_empty()).then(|| (side.word_text(i), chars))
        })
        .collect()
}

/// `words` laid out as text: lines of at most `width` bytes, CRLF or LF,
/// a blank line every `para` words, optionally the last word of a line
/// hyphenated across the line end.
fn layout(words: &[String], width: usize, crlf: bool, para: usize, hyphenate: bool) -> String {
    let eol = if crlf { "\r\n" } else { "\n" };
    let mut out = String::new();
    let mut col = 0;
    for (i, w) in words.iter().enumerate() {
        if i > 0 && i % para == 0 {
            out.push_str(eol);
            out.push_str(eol);
            col = 0;
        } else if col > 0 && col + 1 + w.len() > width {
            let long = w.len() >= 6 && w.chars().all(|c| c.is_ascii_alphabetic());
            if hyphenate && long {
                out.push(' ');
                out.push_str(&w[..3]);
                out.push('-');
                out.push_str(eol);
                out.push_str(&w[3..]);
                col = w.len() - 3;
                continue;
            }
            out.push_str(eol);
            col = 0;
        } else if col > 0 {
            out.push(' ');
            col += 1;
        }
        out.push_str(w);
        col += w.len();
    }
    out
}

fn word() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "the",
        "whale",
        "Ishmael",
        "sea,",
        "harpoon",
        "said",
        "and",
        "of",
        "\"Call",
        "me",
        "ship.",
        "Queequeg",
        "hunting",
        "mast-head",
        "Ahab's",
        "white",
        "a",
        "boat",
    ])
    .prop_map(str::to_owned)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// A text against itself, however it is wrapped, hyphenated or ended:
    /// every word equal, nothing marked, nothing moved.
    #[test]
    fn a_text_against_itself_rewrapped_is_all_equal(
        words in prop::collection::vec(word(), 0..200),
        wa in 20usize..90, wb in 20usize..90, para in 5usize..60,
        crlf: bool, hyphenate: bool,
    ) {
        let a = layout(&words, wa, false, para, false);
        let b = layout(&words, wb, crlf, para, hyphenate);
        let d = diff(&a, &b);
        prop_assert_eq!(d.left.words.len(), words.len());
        prop_assert_eq!(d.right.words.len(), words.len());
        prop_assert!(kinds(&d.left).iter().chain(&kinds(&d.right)).all(|&k| k == DiffKind::Equal));
        prop_assert_eq!(d.equal, 1.0);
        prop_assert!(d.left.marks.is_empty() && d.right.marks.is_empty() && d.moves.is_empty());
        let shown: Vec<String> = (0..words.len()).map(|i| d.right.word_text(i)).collect();
        prop_assert_eq!(shown, words);
    }

    /// Words inserted into (or deleted from) a text are found exactly:
    /// those and only those are inserted (deleted), the rest equal.
    #[test]
    fn inserted_and_deleted_words_are_found_exactly(
        words in prop::collection::vec(word(), 1..150),
        at in prop::collection::btree_set(0usize..150, 1..8),
    ) {
        let mut edited = words.clone();
        let mut added = Vec::new();
        for (n, &k) in at.iter().enumerate().rev() {
            let k = k.min(edited.len());
            edited.insert(k, format!("zzinserted{n}"));
            added.push(k);
        }
        let (a, b) = (words.join(" "), edited.join(" "));
        let d = diff(&a, &b);
        let is_new: Vec<bool> = edited.iter().map(|w| w.starts_with("zzinserted")).collect();
        let expect = |new: bool, kind| if new { kind } else { DiffKind::Equal };
        prop_assert_eq!(kinds(&d.right), is_new.iter().map(|&n| expect(n, DiffKind::Inserted)).collect::<Vec<_>>());
        prop_assert!(kinds(&d.left).iter().all(|&k| k == DiffKind::Equal));
        // The same edit the other way round is a deletion.
        let back = diff(&b, &a);
        prop_assert_eq!(kinds(&back.left), is_new.iter().map(|&n| expect(n, DiffKind::Deleted)).collect::<Vec<_>>());
        let n = words.len() as f64;
        prop_assert!((d.equal - 2.0 * n / (2.0 * n + at.len() as f64)).abs() < 1e-12);
    }
}

#[test]
fn ocr_confusions_are_marked_character_by_character() {
    let etext = "It is a truth universally acknowledged, that a single man in possession\n\
                 of a good fortune, must be in want of a wife.\n\nHowever little known the \
                 feelings, all the objection.";
    let scan = "PRIDE AND PREJUDICE  1\r\n\r\nIt is a truth universally acknowledged, that a \
                single man in posses-\r\nsion of a good fortune, rnust be in want of a wifc.\r\n\r\n\
                However little known tlie feelings, a1l the objeetion.";
    let d = diff(etext, scan);
    let pairs = |side| marked(side);
    assert_eq!(
        pairs(&d.left),
        [
            ("must".into(), "m".into()),
            ("wife.".into(), "e".into()),
            ("the".into(), "h".into()),
            ("all".into(), "l".into()),
            ("objection.".into(), "c".into()),
        ]
    );
    assert_eq!(
        pairs(&d.right),
        [
            ("rnust".into(), "rn".into()),
            ("wifc.".into(), "c".into()),
            ("tlie".into(), "li".into()),
            ("a1l".into(), "1".into()),
            ("objeetion.".into(), "e".into()),
        ]
    );
    // The running head is only on the scan; the hyphenated word is equal.
    assert_eq!(kinds(&d.right)[..4], [DiffKind::Inserted; 4]);
    let possession = (0..d.right.words.len())
        .find(|&i| d.right.word_text(i) == "possession")
        .unwrap();
    assert_eq!(d.right.words[possession].kind, DiffKind::Equal);
    let changed = |s: &DiffSide| kinds(s).iter().filter(|&&k| k == DiffKind::Changed).count();
    assert_eq!((changed(&d.left), changed(&d.right)), (5, 5));
}

#[test]
fn unlike_replacements_are_changed_whole_and_long_ones_deleted_and_inserted() {
    let d = diff("the quick brown fox", "the quick red fox");
    assert_eq!(kinds(&d.left)[2], DiffKind::Changed);
    assert_eq!(kinds(&d.right)[2], DiffKind::Changed);
    assert!(d.left.marks.is_empty() && d.right.marks.is_empty(), "{d:?}");
    assert_eq!(d.equal, 0.75);
    let d = diff(
        "start one two three four five six end",
        "start seven eight nine ten eleven twelve end",
    );
    assert!(kinds(&d.left)[1..7].iter().all(|&k| k == DiffKind::Deleted));
    assert!(kinds(&d.right)[1..7]
        .iter()
        .all(|&k| k == DiffKind::Inserted));
}

#[test]
fn a_moved_paragraph_is_one_moved_block_even_with_a_misread_word() {
    let first = "First paragraph about whales and ships, and it goes on for a while longer.";
    let middle: Vec<String> = (0..60).map(|i| format!("middle{i}")).collect();
    let middle = middle.join(" ");
    let a = format!("{first}\n\n{middle}\n");
    let b = format!("{middle}\n\n{}\n", first.replace("ships", "sliips"));
    let d = diff(&a, &b);
    assert_eq!(d.moves.len(), 1, "{:?}", kinds(&d.left));
    let m = d.moves[0];
    let moved = |s: &DiffSide| kinds(s).iter().filter(|&&k| k == DiffKind::Moved).count();
    // All of the first paragraph's 14 words but the misread one.
    assert_eq!((moved(&d.left), moved(&d.right)), (13, 13));
    assert_eq!(m.left, (0, 14));
    assert_eq!(m.right, (60, 74));
    assert_eq!(d.right.word_text(m.right.0 as usize), "First");
}

#[test]
fn a_chapter_is_located_in_its_book() {
    let book: Vec<String> = (0..4000)
        .map(|i| format!("w{}", (i * 7919) % 5003))
        .collect();
    let chapter = book[2500..2700].join(" ");
    let d = diff(&chapter, &book.join(" "));
    assert_eq!(
        d.region,
        Some(DiffRegion {
            side: Side::Right,
            words: (2500, 2700)
        })
    );
    assert!(kinds(&d.left).iter().all(|&k| k == DiffKind::Equal));
    assert_eq!(diff(&book.join(" "), &book.join(" ")).region, None);
    // A short excerpt with two words misread, on the left this time.
    let mut excerpt = book[1000..1060].to_vec();
    excerpt[10] = "misread".into();
    excerpt[40] = "misread".into();
    let d = diff(&book.join(" "), &excerpt.join(" "));
    assert_eq!(
        d.region,
        Some(DiffRegion {
            side: Side::Left,
            words: (1000, 1060)
        })
    );
    let equal = kinds(&d.right)
        .iter()
        .filter(|&&k| k == DiffKind::Equal)
        .count();
    assert_eq!(equal, 58);
}

#[test]
fn shared_words_are_marked() {
    let winnow = Winnow::new(Default::default());
    let passage = "It is a truth universally acknowledged, that a single man in \
                   possession of a good fortune, must be in want of a wife.";
    let a = format!("Unrelated opening words here.\n{passage}\n");
    let b = format!("{passage}\nSomething else entirely different.\n");
    let grams = winnow.kgrams(&doppel_core::engine::text::normalize(passage));
    let hashes: HashSet<u32> = doppel_core::engine::algo::winnow::winnow(&grams, winnow.config.w)
        .iter()
        .map(|m| kept(m.hash))
        .collect();
    let options = DiffOptions {
        shared: Some(Shared {
            winnow: &winnow,
            hashes: &hashes,
        }),
        ..DiffOptions::new(far())
    };
    let d = diff_texts(a, b, &options);
    let shared = |s: &DiffSide, word: &str| {
        let i = (0..s.words.len())
            .find(|&i| s.word_text(i) == word)
            .unwrap();
        s.words[i].shared
    };
    assert!(shared(&d.left, "universally") && shared(&d.right, "universally"));
    assert!(!shared(&d.left, "Unrelated") && !shared(&d.right, "entirely"));
}

#[test]
fn a_passed_deadline_still_gives_every_word() {
    let a: String = (0..3000).map(|i| format!("word{i} of a\n")).collect();
    let b: String = (0..3000).map(|i| format!("word{} of b\n", i * 7)).collect();
    let d = diff_texts(a, b, &DiffOptions::new(Instant::now()));
    assert!(d.truncated);
    assert_eq!((d.left.words.len(), d.right.words.len()), (9000, 9000));
}

#[test]
fn lines_start_where_the_text_says() {
    let d = diff("one\r\ntwo\n\nthree\n", "x");
    assert_eq!(d.left.lines, [0, 5, 9, 10]);
    assert_eq!(d.left.line_of(6), 1);
    assert_eq!(d.left.words_in(5, 9), 1..2);
}

/// The sample corpus's scan against its e-text (the bar): most
/// words equal, and every OCR confusion the issue names marked on both
/// sides exactly at the misread characters.
#[test]
fn the_sample_scan_against_its_etext() {
    let root =
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("sample-corpus");
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    let d = diff(
        &read("austen/pride-prejudice-ch1-3.txt"),
        &read("scans/pride-prejudice-ch1-3-ocr.txt"),
    );
    assert!(d.equal >= 0.9, "{}", d.equal);
    let right = marked(&d.right);
    for (word, chars) in [
        ("rnust", "rn"),
        ("wifc.", "c"),
        ("tlie", "li"),
        ("a1l", "1"),
        ("objeetion", "e"),
    ] {
        assert!(
            right.iter().any(
                |(w, c)| w.trim_end_matches(['.', ',']) == word.trim_end_matches('.') && c == chars
            ),
            "{word}: {right:?}"
        );
    }
    let left = marked(&d.left);
    for (word, chars) in [
        ("must", "m"),
        ("wife.", "e"),
        ("the", "h"),
        ("all", "l"),
        ("objection", "c"),
    ] {
        assert!(
            left.iter().any(|(w, c)| w.starts_with(word) && c == chars),
            "{word}"
        );
    }
}

/// The sample corpus's reordered chapters (III, I, II against I, II, III):
/// chapters I and II align, chapter III is one block moved, all of it but
/// a word where the chapters meet.
#[test]
fn the_sample_reordered_chapters_are_one_moved_block() {
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("sample-corpus/misc");
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    let d = diff(&read("alice-ch1-3.txt"), &read("alice-ch1-3-reordered.txt"));
    assert_eq!(d.moves.len(), 1, "{:?}", d.moves);
    let count = |s: &DiffSide, kind| kinds(s).iter().filter(|&&k| k == kind).count();
    let (moved, n) = (count(&d.left, DiffKind::Moved), d.left.words.len());
    assert_eq!(moved, count(&d.right, DiffKind::Moved));
    assert!(moved + count(&d.left, DiffKind::Equal) + 1 >= n);
    assert!(moved > n / 4, "{moved} of {n}");
    // Chapter III: the end of A, the start of B (whose first word, the
    // heading's `CHAPTER`, pairs with A's first).
    let m = d.moves[0];
    assert_eq!(m.left.1 as usize, n, "{m:?}");
    assert_eq!(m.right.0, 1, "{m:?}");
}

/// The compared words' normalized forms, joined: what the comparison
/// reads of a side.
fn compared_keys(w: &words::Words) -> String {
    w.compared()
        .iter()
        .map(|&i| w.key(i as usize))
        .collect::<Vec<_>>()
        .join(" ")
}

/// What the engine reads of `text`: normalized, less `furniture`.
fn engine_reads(text: &str, furniture: &[Range<usize>]) -> String {
    use doppel_core::engine::text::page_furniture::strip_ranges;
    doppel_core::engine::text::normalize(&strip_ranges(text, furniture.iter().cloned()))
}

/// `text` with its page furniture found as the worker finds it.
fn furniture(text: &str) -> Vec<Range<usize>> {
    doppel_core::engine::text::page_furniture::find(text)
        .unwrap()
        .into_iter()
        .map(|f| f.range)
        .collect()
}

/// A scan against an e-text, the scan's page furniture left out of the
/// comparison as the worker leaves it out.
fn scan_diff(scan: &str, etext: &str) -> DiffParts {
    let found = furniture(scan);
    let options = DiffOptions {
        ignored: [&found, &[]],
        ..DiffOptions::new(far())
    };
    diff_texts(scan.into(), etext.into(), &options)
}

/// Prose lines for a synthetic page.
fn prose(lines: usize, seed: usize) -> String {
    let words = [
        "the", "reader", "of", "old", "books", "finds", "that", "every", "copy", "tells",
    ];
    (0..lines)
        .map(|l| {
            (0..9)
                .map(|k| words[(l * 7 + k * 3 + seed) % words.len()])
                .collect::<Vec<_>>()
                .join(" ")
                + "\n"
        })
        .collect()
}

/// A two-page scan: `det-` ends the first page, its folio below it; the
/// second opens with its running head, then `ected`. The e-text has
/// `detected`: no change, the joined word shown whole, the furniture
/// still in the text on its page.
#[test]
fn a_word_hyphenated_across_a_page_break_is_one_equal_word() {
    let (top, bottom) = (prose(24, 0), prose(24, 5));
    let scan = format!(
        "{top}and the errors were det-\n\n12\n\u{c}THE ART OF READING  13\n\nected by {bottom}"
    );
    let etext = format!("{top}and the errors were detected by {bottom}");
    let found = furniture(&scan);
    let furniture_text: Vec<&str> = found.iter().map(|r| scan[r.clone()].trim()).collect();
    assert!(
        furniture_text.contains(&"12") && furniture_text.contains(&"THE ART OF READING  13"),
        "{furniture_text:?}"
    );
    let d = scan_diff(&scan, &etext);
    assert_eq!(change_stretches(&d.left.words, &d.right.words), []);
    assert_eq!(d.equal, 1.0);
    let i = (0..d.left.words.len())
        .find(|&i| d.left.word_text(i) == "detected")
        .expect("the joined word");
    let w = d.left.words[i];
    assert_eq!(w.kind, DiffKind::Equal);
    // The word spans the page break; the furniture stays in the text.
    let span = &d.left.text[w.start as usize..w.end as usize];
    assert!(
        span.starts_with("det-") && span.ends_with("ected"),
        "{span:?}"
    );
    assert!(span.contains("THE ART OF READING"), "{span:?}");
    assert_eq!(
        d.left.joins,
        [(w.start + 3, w.end - "ected".len() as u32)],
        "hidden from the hyphen to where the word resumes"
    );
    // Not joined without its furniture left out: the head stands between.
    let plain = diff(&scan, &etext);
    assert!(!change_stretches(&plain.left.words, &plain.right.words).is_empty());
    assert!((0..plain.left.words.len()).all(|i| plain.left.word_text(i) != "detected"));
}

/// A hyphen before furniture that the engine would not join either (a
/// number, a blank line before the next page's text) stays.
#[test]
fn only_what_normalization_joins_is_joined_across_furniture() {
    let text = "pages 12-\nRUNNING HEAD  4\n\n13 more";
    let head = 10..27;
    assert_eq!(&text[head.clone()], "RUNNING HEAD  4\n\n");
    let ranges = std::slice::from_ref(&head);
    let w = words::words(text, ranges);
    assert!(w.joins.is_empty());
    assert_eq!(compared_keys(&w), engine_reads(text, ranges));
    let text = "were det-\n\nRUNNING HEAD  4\n\nected";
    let head = 11..28;
    let ranges = std::slice::from_ref(&head);
    let w = words::words(text, ranges);
    assert!(w.joins.is_empty(), "a blank line stays between the halves");
    assert_eq!(compared_keys(&w), engine_reads(text, ranges));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// A paged scan (running heads between pages, words hyphenated at
    /// line ends, some at a page's last line) against its unpaged text:
    /// every compared word equal, and what the comparison reads is what
    /// the engine reads once the furniture is stripped.
    #[test]
    fn a_paged_scan_reads_as_the_engine_reads_it(
        words in prop::collection::vec(word(), 1..200),
        width in 20usize..60, page in 2usize..8, crlf: bool,
    ) {
        let eol = if crlf { "\r\n" } else { "\n" };
        let laid = layout(&words, width, crlf, usize::MAX, true);
        let mut scan = String::new();
        let mut ranges = Vec::new();
        for (n, line) in laid.split_inclusive('\n').enumerate() {
            if n > 0 && n % page == 0 {
                let start = scan.len();
                scan.push_str(&format!("\u{c}RUNNING HEAD  {}{eol}{eol}", n / page));
                ranges.push(start..scan.len());
            }
            scan.push_str(line);
        }
        let w = words::words(&scan, &ranges);
        prop_assert_eq!(compared_keys(&w), engine_reads(&scan, &ranges));
        let options = DiffOptions { ignored: [&ranges, &[]], ..DiffOptions::new(far()) };
        let d = diff_texts(scan.clone(), words.join(" "), &options);
        prop_assert!(change_stretches(&d.left.words, &d.right.words).is_empty());
        let shown: Vec<String> = (0..d.left.words.len())
            .filter(|&i| d.left.words[i].kind != DiffKind::Ignored)
            .map(|i| d.left.word_text(i))
            .collect();
        prop_assert_eq!(shown, words);
    }
}

/// Tesseract's ALTO of the Emma chapter against its e-text, furniture
/// left out as the worker leaves it out: the diff reads each side as the
/// engine does. The chapter has one word hyphenated across a page break
/// (`shrub-` / `beries`, pages 3–4), but the scan read specks around it
/// (`shrub-.`, `* beries`) and in the running head (`4 : EMMA`, then not
/// found as furniture): neither the engine nor the diff joins it, and the
/// diff counts what it counted before it joined across page breaks (164
/// stretches of change; 243 changed words in the scan, 185 in the
/// e-text). The same page as a cleaner scan reads it, the three specks
/// gone: the running heads `2 EMMA`, `4 EMMA`, `6 EMMA` are furniture and
/// `shrub-` / `beries` one equal word, 161 stretches where the diff
/// counted 162 before (changed words 233 and 184, were 235 and 185).
#[test]
fn the_emma_scan_joins_across_a_page_break_as_the_engine_does() {
    let dir = std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/formats"
    ));
    let read = |name: &str| {
        doppel_core::engine::text::decode::decode_owned(std::fs::read(dir.join(name)).unwrap())
            .unwrap()
            .text
    };
    let (scan, etext) = (read("emma_scan.xml"), read("emma_etext.txt"));
    let cleaner = scan
        .replace("shrub-.\n", "shrub-\n")
        .replace("4 : EMMA", "4 EMMA")
        .replace("* beries", "beries");
    assert_eq!(cleaner.len() + 5, scan.len(), "three specks taken out");
    let stretches = |d: &DiffParts| change_stretches(&d.left.words, &d.right.words);
    let changed = |s: &DiffSide| {
        s.words
            .iter()
            .filter(|w| !matches!(w.kind, DiffKind::Equal | DiffKind::Ignored))
            .count()
    };
    let shrub = |d: &DiffParts| {
        stretches(d)
            .iter()
            .any(|(a, _)| a.clone().any(|i| d.left.word_text(i).starts_with("shrub")))
    };
    for text in [&scan, &cleaner] {
        let w = words::words(text, &furniture(text));
        assert_eq!(compared_keys(&w), engine_reads(text, &furniture(text)));
    }
    let d = scan_diff(&scan, &etext);
    assert!(shrub(&d), "specks keep the halves apart");
    assert_eq!(stretches(&d).len(), 164);
    assert_eq!((changed(&d.left), changed(&d.right)), (243, 185));
    let d = scan_diff(&cleaner, &etext);
    assert!(!shrub(&d), "one equal word across the page break");
    let joined = (0..d.left.words.len())
        .find(|&i| d.left.word_text(i) == "shrubberies,")
        .expect("shown joined");
    assert_eq!(d.left.words[joined].kind, DiffKind::Equal);
    // Before: 162 stretches, 235 and 185 changed words.
    assert_eq!(stretches(&d).len(), 162 - 1);
    assert_eq!((changed(&d.left), changed(&d.right)), (235 - 2, 185 - 1));
}
