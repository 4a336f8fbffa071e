//! Pages laid out here as a scanner lays them out (heads alternating title
//! and chapter, page numbers in the head or at the foot, form feeds or
//! none, CRLF, words hyphenated across a page break, OCR-read numbers),
//! and texts with no pages at all (prose, numbered poems, verses, plays,
//! tables of contents, numbered lists), which must come out unchanged.

use super::*;
use crate::engine::text::normalize;
use crate::hash::SplitMix64;

/// [`super::find`] of a test text (memory for its lines is there).
fn find(text: &str) -> Vec<Furniture> {
    super::find(text).expect("memory for a test text's lines")
}

/// [`super::without_furniture`] of a test text.
fn without_furniture(text: &str) -> Cow<'_, str> {
    super::without_furniture(text).expect("memory for a test text's lines")
}

const WORDS: &[&str] = &[
    "the",
    "of",
    "and",
    "a",
    "to",
    "in",
    "was",
    "her",
    "she",
    "that",
    "it",
    "had",
    "with",
    "for",
    "as",
    "his",
    "not",
    "be",
    "but",
    "very",
    "could",
    "would",
    "sister",
    "brother",
    "morning",
    "letter",
    "garden",
    "evening",
    "fortune",
    "neighbourhood",
    "acquaintance",
    "circumstances",
    "consideration",
    "establishment",
    "understanding",
    "satisfaction",
    "conversation",
];

/// [`body_lines`], with line `cut` ending in `acquain-` and the next one
/// starting with `tance`: a word hyphenated across the page break when a
/// page ends after line `cut`.
fn body_lines_hyphenated_at(
    chapters: usize,
    lines_per_chapter: usize,
    seed: u64,
    cut: usize,
) -> Vec<String> {
    let mut lines = body_lines(chapters, lines_per_chapter, seed);
    lines.insert(cut, "she met an acquain-".to_owned());
    lines.insert(cut + 1, "tance in the garden".to_owned());
    lines
}

/// Body lines of a book: chapters (a heading `CHAPTER n` between blank
/// lines), paragraphs of sentences wrapped at 60 columns, and about one
/// line end in eight hyphenating a long word (`acquain-` / `tance`).
fn body_lines(chapters: usize, lines_per_chapter: usize, seed: u64) -> Vec<String> {
    let mut rng = SplitMix64::new(seed);
    let mut lines = Vec::new();
    for chapter in 1..=chapters {
        lines.extend([
            String::new(),
            format!("CHAPTER {}", to_roman(chapter as u32)),
            String::new(),
        ]);
        let mut line = String::new();
        let mut capital = true;
        let mut written = 0;
        while written < lines_per_chapter {
            let mut word = WORDS[rng.below(WORDS.len() as u64) as usize].to_owned();
            if capital {
                word[..1].make_ascii_uppercase();
            }
            capital = rng.below(9) == 0;
            if capital {
                word.push('.');
            }
            if line.len() + word.len() + 1 > 60 {
                if word.len() >= 9 && rng.below(8) == 0 {
                    let (head, tail) = word.split_at(5);
                    lines.push(format!("{line} {head}-"));
                    line = tail.to_owned();
                } else {
                    lines.push(std::mem::take(&mut line));
                    line = word;
                }
                written += 1;
                if rng.below(6) == 0 && !line.ends_with('-') {
                    lines.push(std::mem::take(&mut line));
                    lines.push(String::new());
                    written += 1;
                }
                continue;
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&word);
        }
        lines.push(line);
    }
    lines
}

#[derive(Clone, Copy)]
struct Style {
    form_feeds: bool,
    numbers_at_foot: bool,
    lines_per_page: usize,
    first_page: u32,
    crlf: bool,
}

const HEAD_NUMBERS: Style = Style {
    form_feeds: true,
    numbers_at_foot: false,
    lines_per_page: 30,
    first_page: 7,
    crlf: false,
};

/// A scan of `body`: a first page with a scanning notice and the title,
/// then pages opening with a form feed (if the style has them) and a
/// running head, the title on even pages and the current chapter on odd
/// ones, the page number in the head's outer margin or alone at the foot.
fn scan(title: &str, body: &[String], style: Style) -> String {
    let mut out = format!(
        "This volume was digitized by the Example Scanning Project.\nScan identifier: 12345\n\n\n{:>40}\n\n",
        title
    );
    let mut chapter = String::from(title);
    for (k, page) in body.chunks(style.lines_per_page).enumerate() {
        let number = style.first_page + k as u32;
        if let Some(heading) = page.iter().find(|l| l.starts_with("CHAPTER")) {
            chapter = heading.clone();
        }
        let head = if number.is_multiple_of(2) {
            title
        } else {
            &chapter
        };
        if style.form_feeds {
            out.push('\u{c}');
        }
        if style.numbers_at_foot {
            out.push_str(&format!("{head:^60}\n\n"));
        } else if number.is_multiple_of(2) {
            out.push_str(&format!("{number:<6}{head:>54}\n\n"));
        } else {
            out.push_str(&format!("{head:<54}{number:>6}\n\n"));
        }
        for line in page {
            out.push_str(line);
            out.push('\n');
        }
        if style.numbers_at_foot {
            out.push_str(&format!("\n{number:^60}\n"));
        }
    }
    if style.crlf {
        out.replace('\n', "\r\n")
    } else {
        out
    }
}

/// The scan's first page: what stays of a scan besides its body.
fn first_page(title: &str) -> String {
    format!(
        "This volume was digitized by the Example Scanning Project. Scan identifier: 12345 {title}"
    )
}

/// `actual == expected`, or a failure showing where they part.
fn assert_same_words(actual: &str, expected: &str) {
    let (a, e): (Vec<&str>, Vec<&str>) =
        (actual.split(' ').collect(), expected.split(' ').collect());
    if let Some(at) = (0..a.len().max(e.len())).find(|&i| a.get(i) != e.get(i)) {
        let near = |w: &[&str]| w[at.saturating_sub(8)..(at + 8).min(w.len())].join(" ");
        panic!(
            "word {at} differs:\n  got      …{}…\n  expected …{}…",
            near(&a),
            near(&e)
        );
    }
}

fn kinds(found: &[Furniture]) -> HashMap<FurnitureKind, usize> {
    let mut kinds = HashMap::new();
    for f in found {
        *kinds.entry(f.kind).or_default() += 1;
    }
    kinds
}

/// The scan without its furniture normalizes to its first page and its
/// body: nothing of the book lost, nothing of the layout left, the word
/// hyphenated across the page break joined.
fn assert_strips_to_body(scan: &str, title: &str, body: &[String]) {
    let stripped = without_furniture(scan);
    let expected = format!(
        "{} {}",
        normalize(&first_page(title)),
        normalize(&body.join("\n"))
    );
    assert!(expected.contains("met an acquaintance in the garden"));
    assert_same_words(&normalize(&stripped), &expected);
}

#[test]
fn heads_alternating_title_and_chapter_with_numbers_in_the_margin_are_running_heads() {
    let body = body_lines_hyphenated_at(4, 50, 1, 2 * HEAD_NUMBERS.lines_per_page - 1);
    let text = scan("THE EXAMPLE NOVEL", &body, HEAD_NUMBERS);
    let found = find(&text);
    let pages = body.len().div_ceil(HEAD_NUMBERS.lines_per_page);
    let kinds = kinds(&found);
    assert_eq!(kinds.get(&FurnitureKind::RunningHead), Some(&pages));
    assert_eq!(kinds.get(&FurnitureKind::PageBreak), Some(&pages));
    assert_eq!(kinds.len(), 2, "{kinds:?}");
    for f in &found {
        let line = &text[f.range.clone()];
        if f.kind == FurnitureKind::RunningHead {
            assert!(
                line.contains("THE EXAMPLE NOVEL") || line.contains("CHAPTER"),
                "{line:?}"
            );
        }
    }
    assert_strips_to_body(&text, "THE EXAMPLE NOVEL", &body);
}

#[test]
fn page_numbers_alone_at_the_foot_are_page_numbers_and_centred_heads_recur() {
    let style = Style {
        numbers_at_foot: true,
        crlf: true,
        ..HEAD_NUMBERS
    };
    let body = body_lines_hyphenated_at(5, 40, 2, 2 * style.lines_per_page - 1);
    let text = scan("PERSUASION", &body, style);
    let kinds = kinds(&find(&text));
    let pages = body.len().div_ceil(style.lines_per_page);
    assert_eq!(kinds.get(&FurnitureKind::PageNumber), Some(&pages));
    assert_eq!(kinds.get(&FurnitureKind::RunningHead), Some(&pages));
    assert_strips_to_body(&text, "PERSUASION", &body);
}

#[test]
fn without_form_feeds_pages_are_found_from_the_chain_of_numbered_heads() {
    let style = Style {
        form_feeds: false,
        lines_per_page: 40,
        first_page: 1,
        ..HEAD_NUMBERS
    };
    let body = body_lines_hyphenated_at(3, 60, 3, 2 * style.lines_per_page - 1);
    let text = scan("PRIDE AND PREJUDICE", &body, style);
    assert!(!text.contains('\u{c}'));
    let kinds = kinds(&find(&text));
    assert_eq!(
        kinds.get(&FurnitureKind::RunningHead),
        Some(&body.len().div_ceil(40))
    );
    assert_strips_to_body(&text, "PRIDE AND PREJUDICE", &body);
}

#[test]
fn bare_page_numbers_at_the_foot_without_form_feeds_are_found_too() {
    let body = body_lines_hyphenated_at(3, 70, 4, 32);
    let mut text = String::new();
    for (k, page) in body.chunks(33).enumerate() {
        for line in page {
            text.push_str(line);
            text.push('\n');
        }
        text.push_str(&format!("\n{:^60}\n\n", k + 1));
    }
    let found = find(&text);
    assert_eq!(
        kinds(&found).get(&FurnitureKind::PageNumber),
        Some(&body.len().div_ceil(33))
    );
    assert_same_words(
        &normalize(&strip(&text, &found)),
        &normalize(&body.join("\n")),
    );
}

#[test]
fn a_recurring_running_foot_is_a_running_foot() {
    let body = body_lines(3, 60, 5);
    let mut text = String::new();
    for (k, page) in body.chunks(30).enumerate() {
        text.push_str(&format!("\u{c}{:^60}\n\n", format!("- {} -", k + 3)));
        for line in page {
            text.push_str(line);
            text.push('\n');
        }
        text.push_str("\n         Digitized by the Example Library\n");
    }
    let found = find(&text);
    let pages = body.len().div_ceil(30);
    let kinds = kinds(&found);
    assert_eq!(kinds.get(&FurnitureKind::RunningFoot), Some(&pages));
    assert_eq!(kinds.get(&FurnitureKind::PageNumber), Some(&pages));
    assert_same_words(
        &normalize(&strip(&text, &found)),
        &normalize(&body.join("\n")),
    );
}

#[test]
fn roman_numbered_front_matter_and_ocr_read_numbers_are_page_numbers() {
    let body = body_lines(2, 80, 6);
    let mut text = String::new();
    let pages: Vec<&[String]> = body.chunks(12).collect();
    for (k, page) in pages.iter().enumerate() {
        // Front matter in roman numerals, then 1, 2, ... with 11 read as `1l`.
        let number = if k < 3 {
            to_roman(k as u32 + 5).to_lowercase()
        } else if k + 1 - 3 == 11 {
            "1l".to_owned()
        } else {
            (k + 1 - 3).to_string()
        };
        text.push('\u{c}');
        for line in page.iter() {
            text.push_str(line);
            text.push('\n');
        }
        text.push_str(&format!("\n{number:>30}\n"));
    }
    let found = find(&text);
    assert_eq!(
        kinds(&found).get(&FurnitureKind::PageNumber),
        Some(&pages.len())
    );
    assert_same_words(
        &normalize(&strip(&text, &found)),
        &normalize(&body.join("\n")),
    );
}

#[test]
fn a_short_scan_of_one_page_loses_its_capital_head_after_the_form_feed() {
    let text = "Scanned by the Example Project.\n\n   ADDRESS\n\u{c}THE GETTYSBURG ADDRESS          5\n\nFour score and seven years ago our fathers brought forth\non this continent, a new nation.\n";
    let found = find(text);
    assert_eq!(kinds(&found).get(&FurnitureKind::RunningHead), Some(&1));
    assert_eq!(
        normalize(&strip(text, &found)),
        "scanned by the example project. address four score and seven years ago our fathers brought forth on this continent, a new nation."
    );
}

#[test]
fn a_chapter_heading_that_opens_a_few_pages_is_kept() {
    // Every fifth page or so opens with a chapter heading below its head:
    // the heading recurs at that place, but thinly, so it is text.
    let body = body_lines(12, 40, 7);
    let text = scan("EMMA", &body, HEAD_NUMBERS);
    let stripped = without_furniture(&text);
    assert_eq!(
        normalize(&stripped).matches("chapter ").count(),
        12,
        "every chapter heading of the body stays"
    );
}

/// Texts with no page structure, one of each kind the furniture rules
/// could mistake: prose, numbered poems of regular length (arabic and
/// roman numbers alone on a line), Bible verses, a play's speaker names,
/// a table of contents, a numbered list, a table with numbers at the
/// margin.
fn unpaged_text(kind: u8, seed: u64) -> String {
    let mut rng = SplitMix64::new(seed);
    let line = |n: usize, rng: &mut SplitMix64| -> String {
        let mut words: Vec<&str> = (0..n)
            .map(|_| WORDS[rng.below(WORDS.len() as u64) as usize])
            .collect();
        let first = words[0].to_uppercase();
        words[0] = &first[..];
        words.join(" ")
    };
    let mut out = String::new();
    match kind % 7 {
        0 => {
            for _ in 0..60 {
                out.push_str(&format!("{},\n", line(9, &mut rng)));
                if rng.below(5) == 0 {
                    out.push_str(".\n\n");
                }
            }
        }
        1 | 2 => {
            for n in 1..=12u32 {
                let number = if kind % 7 == 1 {
                    n.to_string()
                } else {
                    to_roman(n)
                };
                out.push_str(&format!("{number:^40}\n\n"));
                for verse in 0..14 {
                    let end = if verse == 13 { "." } else { "," };
                    out.push_str(&format!("  {}{end}\n", line(7, &mut rng)));
                }
                out.push_str("\n\n");
            }
        }
        3 => {
            for chapter in 1..=4 {
                out.push_str(&format!("Chapter {chapter}\n"));
                for verse in 1..=25 {
                    out.push_str(&format!("{chapter}:{verse} {}.\n", line(12, &mut rng)));
                }
                out.push('\n');
            }
        }
        4 => {
            for scene in 0..40 {
                let speaker = ["HAMLET.", "HORATIO.", "MARCELLUS."][scene % 3];
                out.push_str(&format!(
                    "{speaker}\n{}.\n{}.\n\n",
                    line(8, &mut rng),
                    line(6, &mut rng)
                ));
            }
        }
        5 => {
            out.push_str("CONTENTS\n\n");
            let mut page = 1;
            for chapter in 1..=40u32 {
                out.push_str(&format!(
                    "CHAPTER {:<8} {:<40} {page:>4}\n",
                    to_roman(chapter),
                    line(4, &mut rng)
                ));
                page += 3 + rng.below(20) as u32;
            }
        }
        _ => {
            // Numbered items of steady length, wrapped in lower case,
            // and a table's totals at the margin.
            let length = 12 + rng.below(20);
            for item in 1..=30 {
                out.push_str(&format!("{item}  {}\n", line(10, &mut rng)));
                for _ in 0..length + rng.below(2) {
                    out.push_str(&format!("    {}\n", line(10, &mut rng).to_lowercase()));
                }
                out.push_str(&format!("    {}.\n", line(3, &mut rng).to_lowercase()));
                out.push_str(&format!("Total of the item        {}\n\n", rng.below(500)));
            }
        }
    }
    out
}

proptest::proptest! {
    /// Texts without page structure have no furniture: they fingerprint
    /// exactly as before.
    #[test]
    fn text_without_page_structure_comes_out_unchanged(kind in 0u8..7, seed in 0u64..1000, crlf: bool) {
        let mut text = unpaged_text(kind, seed);
        if crlf {
            text = text.replace('\n', "\r\n");
        }
        proptest::prop_assert_eq!(find(&text), Vec::new());
        proptest::prop_assert!(matches!(without_furniture(&text), Cow::Borrowed(_)));
    }
}

#[test]
fn numbered_poems_of_regular_length_are_not_pages() {
    // The chain of numbers is there, steady; its breaks follow full stops
    // and precede capitals, as no printer's page breaks do.
    let text = unpaged_text(1, 1);
    assert!(text.contains("\n                   12"));
    assert!(find(&text).is_empty());
}

#[test]
fn masked_keys_equal_heads_that_differ_only_in_numbers() {
    assert_eq!(masked_key("CHAPTER IV."), masked_key("Chapter  XIX."));
    assert_eq!(masked_key("Volume 2, Part 12"), "volume #, part #");
    assert_ne!(masked_key("CHAPTER CIVIL"), masked_key("CHAPTER I"));
    assert_eq!(roman_value("xiv"), Some(14));
    assert_eq!(roman_value("IIII"), None);
    assert_eq!(roman_value("Xiv"), None);
    assert_eq!(page_number("1l", false).map(|n| n.value), Some(11));
    assert_eq!(page_number("lO", false), None);
    assert_eq!(page_number("ix", false), None);
    assert_eq!(page_number("ix", true).map(|n| n.value), Some(9));
}

#[test]
fn a_form_feed_between_two_words_is_kept() {
    let text = "one\u{c}two";
    assert!(find(text).is_empty());
    let text = "one\n\u{c}two";
    assert_eq!(
        find(text),
        vec![Furniture {
            range: 4..5,
            kind: FurnitureKind::PageBreak
        }]
    );
}
