//! What a library does to a text on its way to a file: OCR character
//! confusions, a modernized edition's spelling and punctuation, an
//! abridgement's cuts, and the two layouts, an e-text wrapped in its
//! licence and a page scan (running heads alternating title and chapter,
//! page numbers, form feeds, line-end hyphens, a scanning notice on the
//! first page). Each is seeded by the caller's [`SplitMix64`] only.

use super::boilerplate::{licence_footer, licence_header, notice_text, Licence, Notice};
use super::source::{is_chapter_heading, Source};
use doppel_core::hash::SplitMix64;

/// OCR confusions: a pattern inside a word and what the scanner read.
pub const CONFUSIONS: &[(&str, &str)] = &[
    ("rn", "m"),
    ("m", "rn"),
    ("l", "1"),
    ("1", "l"),
    ("I", "l"),
    ("e", "c"),
    ("c", "e"),
    ("h", "li"),
    ("li", "h"),
    ("O", "0"),
    ("cl", "d"),
    ("d", "cl"),
    ("vv", "w"),
    ("w", "vv"),
    ("u", "n"),
    ("n", "u"),
];

/// OCR output of `text`: `round(rate × words)` distinct whitespace-separated
/// words (drawn among those holding a [`CONFUSIONS`] pattern) each get one
/// confusion at a random occurrence. Whitespace is kept, so the words of
/// input and output pair up one to one; the share that differ is the rate.
pub fn ocr_confusions(text: &str, rate: f64, rng: &mut SplitMix64) -> String {
    let words: Vec<(usize, &str)> = text
        .split_whitespace()
        .map(|w| (w.as_ptr() as usize - text.as_ptr() as usize, w))
        .collect();
    let mut eligible: Vec<usize> = (0..words.len())
        .filter(|&i| CONFUSIONS.iter().any(|(from, _)| words[i].1.contains(from)))
        .collect();
    let target = ((rate * words.len() as f64).round() as usize).min(eligible.len());
    // A partial Fisher-Yates shuffle picks `target` distinct words.
    for k in 0..target {
        let j = k + rng.below((eligible.len() - k) as u64) as usize;
        eligible.swap(k, j);
    }
    let mut chosen = eligible[..target].to_vec();
    chosen.sort_unstable();
    let mut out = String::with_capacity(text.len() + target);
    let mut at = 0;
    for i in chosen {
        let (start, word) = words[i];
        out.push_str(&text[at..start]);
        let options: Vec<(usize, &str, &str)> = CONFUSIONS
            .iter()
            .flat_map(|&(from, to)| word.match_indices(from).map(move |(k, _)| (k, from, to)))
            .collect();
        let (k, from, to) = options[rng.below(options.len() as u64) as usize];
        out.push_str(&word[..k]);
        out.push_str(to);
        out.push_str(&word[k + from.len()..]);
        at = start + word.len();
    }
    out.push_str(&text[at..]);
    out
}

/// Old spellings a modern edition changes (whole words; a capitalized
/// occurrence becomes the capitalized new form).
const SPELLINGS: &[(&str, &str)] = &[
    ("shew", "show"),
    ("shews", "shows"),
    ("shewed", "showed"),
    ("shewing", "showing"),
    ("shewn", "shown"),
    ("chuse", "choose"),
    ("chusing", "choosing"),
    ("any thing", "anything"),
    ("every thing", "everything"),
    ("any body", "anybody"),
    ("every body", "everybody"),
    ("any one", "anyone"),
    ("to-morrow", "tomorrow"),
    ("to-day", "today"),
    ("to-night", "tonight"),
    ("connexion", "connection"),
    ("connexions", "connections"),
    ("staid", "stayed"),
    ("surprize", "surprise"),
    ("surprized", "surprised"),
    ("surprizing", "surprising"),
    ("headach", "headache"),
    ("recal", "recall"),
    ("stile", "style"),
    ("teaze", "tease"),
    ("plaister", "plaster"),
    ("befal", "befall"),
    ("expence", "expense"),
];

/// A modernized edition of `text`: old spellings updated, `Mr.`/`Mrs.`
/// without the point, `--` as an em dash and straight double quotes as
/// curly ones. Returns the text and the number of words respelled.
pub fn modernize(text: &str) -> (String, usize) {
    // Dashes first: `--to-morrow` must read as a word after a dash.
    let mut out = text.replace("--", "\u{2014}");
    let mut respelled = 0;
    for &(old, new) in SPELLINGS {
        for (old, new) in [
            (old.to_owned(), new.to_owned()),
            (capital(old), capital(new)),
        ] {
            let (replaced, n) = replace_words(&out, &old, &new);
            out = replaced;
            respelled += n;
        }
    }
    let out = out.replace("Mrs.", "Mrs").replace("Mr.", "Mr");
    let mut curly = String::with_capacity(out.len() + out.len() / 50);
    let mut prev = ' ';
    for c in out.chars() {
        curly.push(match c {
            '"' if prev.is_whitespace() || "(\u{2014}".contains(prev) => '\u{201c}',
            '"' => '\u{201d}',
            c => c,
        });
        prev = c;
    }
    (curly, respelled)
}

fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// `text` with every whole-word occurrence of `old` replaced, and the count.
fn replace_words(text: &str, old: &str, new: &str) -> (String, usize) {
    let mut out = String::with_capacity(text.len());
    let mut n = 0;
    let mut at = 0;
    for (i, _) in text.match_indices(old) {
        let before = text[..i].chars().next_back();
        let after = text[i + old.len()..].chars().next();
        let boundary = |c: Option<char>| !c.is_some_and(|c| c.is_alphanumeric() || c == '-');
        if i >= at && boundary(before) && boundary(after) {
            out.push_str(&text[at..i]);
            out.push_str(new);
            at = i + old.len();
            n += 1;
        }
    }
    out.push_str(&text[at..]);
    (out, n)
}

/// The units an abridgement of `source` keeps: every chapter but those in
/// `drop_chapters` (1-based), and within a kept chapter its heading and
/// about `keep` of its other paragraphs (front matter is kept whole).
pub fn abridge(
    source: &Source,
    drop_chapters: &[usize],
    keep: f64,
    rng: &mut SplitMix64,
) -> Vec<usize> {
    let mut out: Vec<usize> = (0..source.chapters.first().copied().unwrap_or(0)).collect();
    for chapter in 1..=source.chapters.len() {
        if drop_chapters.contains(&chapter) {
            continue;
        }
        let units = source.chapter_units(chapter, chapter);
        out.push(units[0]);
        out.extend(units[1..].iter().filter(|_| rng.next_f64() < keep));
    }
    out
}

/// An e-text: `body` between `licence`'s header and footer.
pub fn etext(body: &str, licence: &Licence, title: &str, author: &str, release: u64) -> String {
    format!(
        "{}\n\n{}\n{}",
        licence_header(licence, title, author, release),
        body.trim_end(),
        licence_footer(licence, title)
    )
}

/// How a scanning project lays out its OCR output.
#[derive(Debug, Clone, Copy)]
pub struct ScanStyle {
    pub notice: Notice,
    /// Page numbers at the foot of the page (else in the running head).
    pub numbers_at_foot: bool,
    pub lines_per_page: usize,
    pub width: usize,
    /// Share of line ends that hyphenate a long word.
    pub hyphenation: f64,
    /// Number of the first body page (front matter comes before).
    pub first_page: u32,
    pub crlf: bool,
}

/// A page scan of `body` (its OCR already applied): page 1 holds the
/// scanning notice and the title; every later page starts with a form feed
/// and a running head (the title on even pages, the current chapter on odd
/// ones, with the page number, or the number alone at the foot).
pub fn scan(
    body: &str,
    title: &str,
    author: &str,
    style: &ScanStyle,
    scan_id: u64,
    rng: &mut SplitMix64,
) -> String {
    let title_head = title.to_uppercase();
    // (line, running head of the chapter it is in)
    let mut lines: Vec<(String, String)> = Vec::new();
    let mut chapter = title_head.clone();
    for unit in body.trim_end().split("\n\n") {
        for paragraph in printed_paragraphs(unit) {
            if is_chapter_heading(paragraph) {
                chapter = paragraph.trim().to_uppercase().chars().take(40).collect();
            }
            let heading = !paragraph.contains('\n')
                && paragraph.len() < 50
                && (is_chapter_heading(paragraph) || paragraph == paragraph.to_uppercase());
            if heading {
                let centred = (style.width + paragraph.len()) / 2;
                lines.push((String::new(), chapter.clone()));
                lines.push((format!("{:>centred$}", paragraph.trim()), chapter.clone()));
                lines.push((String::new(), chapter.clone()));
            } else {
                for line in hyphenated_lines(paragraph, style.width, style.hyphenation, rng) {
                    lines.push((line, chapter.clone()));
                }
            }
        }
        lines.push((String::new(), chapter.clone()));
    }
    let mut pages = vec![format!(
        "{}\n\n\n{:>w$}\n\n{:>a$}\n",
        notice_text(&style.notice, scan_id, style.width),
        title_head,
        format!("by {author}"),
        w = (style.width + title_head.len()) / 2,
        a = (style.width + author.len() + 3) / 2,
    )];
    for (k, page) in lines.chunks(style.lines_per_page).enumerate() {
        let number = style.first_page + k as u32;
        let head = if number.is_multiple_of(2) {
            &title_head
        } else {
            &page[0].1
        };
        let mut text = String::from("\u{c}");
        if style.numbers_at_foot {
            text.push_str(&format!(
                "{head:>w$}\n\n",
                w = (style.width + head.len()) / 2
            ));
        } else if number.is_multiple_of(2) {
            text.push_str(&format!("{number:<6}{head:>w$}\n\n", w = style.width - 6));
        } else {
            text.push_str(&format!("{head:<w$}{number:>6}\n\n", w = style.width - 6));
        }
        for (line, _) in page {
            text.push_str(line);
            text.push('\n');
        }
        if style.numbers_at_foot {
            let n = number.to_string();
            text.push_str(&format!("\n{n:>w$}\n", w = (style.width + n.len()) / 2));
        }
        pages.push(text);
    }
    let out = pages.concat();
    if style.crlf {
        out.replace('\n', "\r\n")
    } else {
        out
    }
}

/// The paragraphs a printer sets of one unit: the unit, or, in a verse
/// text, each heading line and each verse (`1:2 ...`) on its own.
fn printed_paragraphs(unit: &str) -> Vec<&str> {
    let verse = |l: &str| {
        let digits = l.find(|c: char| !c.is_ascii_digit()).unwrap_or(0);
        digits > 0 && l[digits..].starts_with(':')
    };
    if !unit.lines().any(verse) {
        return vec![unit];
    }
    unit.lines().filter(|l| !l.trim().is_empty()).collect()
}

/// A paragraph wrapped at `width`, a word of 7+ letters at a line end
/// hyphenated across it (`digi-` / `tized`) with probability `rate`.
fn hyphenated_lines(paragraph: &str, width: usize, rate: f64, rng: &mut SplitMix64) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut words = paragraph
        .split_whitespace()
        .map(str::to_owned)
        .collect::<Vec<_>>();
    words.reverse();
    while let Some(word) = words.pop() {
        let room = if line.is_empty() {
            width
        } else {
            width.saturating_sub(line.len() + 1)
        };
        if word.len() <= room || line.is_empty() {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&word);
            continue;
        }
        let letters = word.chars().all(|c| c.is_ascii_alphabetic());
        if letters && word.len() >= 7 && room >= 5 && rng.next_f64() < rate {
            let cut = (3 + rng.below(word.len() as u64 - 5) as usize).min(room - 2);
            line.push(' ');
            line.push_str(&word[..cut]);
            line.push('-');
            words.push(word[cut..].to_owned());
        } else {
            words.push(word);
        }
        lines.push(std::mem::take(&mut line));
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modernizing_respells_whole_words_only() {
        let (m, n) = modernize(
            "Shew him every thing, Mr. Knightley--to-morrow. \"Yes,\" said she; shewn, not shewy.",
        );
        assert_eq!(
            m,
            "Show him everything, Mr Knightley\u{2014}tomorrow. \u{201c}Yes,\u{201d} said she; shown, not shewy."
        );
        assert_eq!(n, 4);
    }

    #[test]
    fn hyphenated_lines_rejoin_to_the_paragraph() {
        let text =
            "Extraordinarily comprehensive understanding notwithstanding everything considered "
                .repeat(20);
        let mut rng = SplitMix64::new(3);
        let lines = hyphenated_lines(&text, 40, 1.0, &mut rng);
        assert!(lines.iter().all(|l| l.len() <= 40), "{lines:?}");
        assert!(lines.iter().any(|l| l.ends_with('-')));
        let joined = lines.join("\n").replace("-\n", "").replace('\n', " ");
        assert_eq!(joined, text.trim_end());
    }
}
