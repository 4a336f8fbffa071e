//! The boilerplate of a generated library: licence headers and footers of
//! fictional digital libraries, and the scanning notices on the first page
//! of a scan. All wording is our own, generic, and built deterministically:
//! a family's licence is a sequence of sentences, each a combination of a
//! subject, a predicate and a condition drawn (seeded by the family) from
//! fixed lists, under section headings, until it reaches the family's size,
//! in the library's own words for "file", "volunteers" and "readers".
//! Every file of one family carries the same licence text; only its title
//! lines and release number differ, as in real e-text libraries.

use doppel_core::hash::{hash64, SplitMix64};

/// A licence family: the header and footer one digital library wraps
/// around every e-text it publishes.
#[derive(Debug, Clone, Copy)]
pub struct Licence {
    /// The family's name (in the truth file).
    pub name: &'static str,
    /// Approximate bytes of the licence text before and after the body.
    pub header_bytes: usize,
    /// See `header_bytes`.
    pub footer_bytes: usize,
    /// The library's own words for "file", "volunteers" and "readers":
    /// different libraries word the same rules differently.
    pub words: [&'static str; 3],
}

/// The library collection's licences (`A` ~11 KB, seven times the
/// Gettysburg Address; `B` ~18 KB; `C` ~25 KB) and the hard cases' (`D`,
/// `E`, ~16 and ~20 KB), each a different library.
pub const LICENCE_A: Licence = Licence {
    name: "Open Shelf Digital Library",
    header_bytes: 2_000,
    footer_bytes: 7_900,
    words: ["file", "volunteers", "readers"],
};
pub const LICENCE_B: Licence = Licence {
    name: "Lantern Public Text Archive",
    header_bytes: 3_500,
    footer_bytes: 14_500,
    words: ["e-text", "editors", "users"],
};
pub const LICENCE_C: Licence = Licence {
    name: "Common Reader Collection",
    header_bytes: 5_000,
    footer_bytes: 20_000,
    words: ["edition", "contributors", "patrons"],
};
pub const LICENCE_D: Licence = Licence {
    name: "Riverbank Electronic Editions",
    header_bytes: 4_000,
    footer_bytes: 12_000,
    words: ["electronic book", "transcribers", "members"],
};
pub const LICENCE_E: Licence = Licence {
    name: "Northgate Text Commons",
    header_bytes: 6_000,
    footer_bytes: 14_000,
    words: ["transcription", "proofreaders", "visitors"],
};

/// A scanning notice family: the note a digitization project puts on the
/// first page of every scan it makes.
#[derive(Debug, Clone, Copy)]
pub struct Notice {
    /// Who scanned.
    pub scanner: &'static str,
    /// Whose copy was scanned.
    pub holder: &'static str,
    /// Sentences of the notice (indices into the fixed list of notice sentences).
    pub sentences: &'static [usize],
}

pub const NOTICE_1: Notice = Notice {
    scanner: "the Meridian Scanning Project",
    holder: "the Old Town Subscription Library",
    sentences: &[0, 1, 2, 3, 5, 7, 9],
};
pub const NOTICE_2: Notice = Notice {
    scanner: "Bookwheel Digitization Services",
    holder: "the County Historical Society",
    sentences: &[0, 4, 2, 6, 8, 10, 11],
};
pub const NOTICE_3: Notice = Notice {
    scanner: "the Harbour University Imaging Lab",
    holder: "the Harbour University Library, Rare Books Room",
    sentences: &[0, 1, 3, 12, 6, 13, 9, 5],
};
pub const NOTICE_4: Notice = Notice {
    scanner: "Parish Records Online",
    holder: "a private collection",
    sentences: &[0, 4, 2, 3, 12, 10, 7, 13, 11],
};

const NOTICE_SENTENCES: &[&str] = &[
    "This volume was digitized by {S} from a copy held by {H}.",
    "The pages were photographed at four hundred dots per inch and the text was recognized by machine.",
    "The recognized text has not been corrected by hand and will contain errors of spelling and punctuation.",
    "Page headings, page numbers and the hyphens at line ends are kept as they appear in the scan.",
    "Each page was imaged flat under glass, and curled or torn pages were imaged twice.",
    "The original volume may be consulted by appointment at {H}.",
    "This digital copy is free for private study, teaching and research.",
    "Please keep this notice with any copy of the file you pass on.",
    "{S} thanks the staff of {H} for lending the volume for imaging.",
    "Where a page was damaged or missing in the source, the text shows a gap.",
    "Quality control was automatic only; no reader has compared the text with the page images.",
    "Questions about this scan may be sent to {S}, quoting the scan identifier below.",
    "Plates, maps and illustrations are not reproduced in the text file.",
    "The binding was not cut, so words near the inner margin may be lost.",
];

const SUBJECTS: &[&str] = &[
    "Anyone who receives this file",
    "A reader of this edition",
    "Every person who copies this text",
    "A school or reading group using this file",
    "Anyone preparing a derived edition",
    "A site that mirrors the {L} archive",
    "A volunteer who proofreads for the {L}",
    "The person who first downloaded this file",
    "Anyone who prints this work",
    "A library lending this file to its patrons",
    "An archive keeping a copy of this file",
    "A publisher reusing this transcription",
    "Each recipient of a copy",
    "A teacher sharing this text with a class",
    "Anyone converting this file to another format",
    "A distributor of collections of these texts",
];

const PREDICATES: &[&str] = &[
    "may read, copy and share it without payment",
    "may print as many copies as are needed for study",
    "should keep this notice with the text",
    "is asked to report transcription errors to the volunteers",
    "must not remove the name of the {L} from the header",
    "accepts that the file is offered as it stands, with no promise of accuracy",
    "may convert the file to other formats for reading on any device",
    "should not describe an altered copy as an official release of the {L}",
    "may quote passages of any length in other works",
    "is free to build new editions on this transcription",
    "must not charge a fee for the text itself beyond the cost of copying",
    "may place the file on a private or public network",
    "is requested to credit the volunteers who prepared the file",
    "agrees that the {L} carries no responsibility for any loss that follows from using the file",
    "may include this text in a collection alongside other works",
    "should check the laws of their own country before distributing the file",
    "is encouraged to send a corrected copy back to the {L}",
    "may remove the page numbers and line breaks of the printed source",
    "accepts that the spelling of the source edition has been kept",
    "may make a recording of the text read aloud",
];

const CONDITIONS: &[&str] = &[
    "provided that this notice stays attached to every copy",
    "as long as the work remains in the public domain where they live",
    "unless a separate written agreement says otherwise",
    "whether the copy is made on paper or in electronic form",
    "for any purpose that does not misrepresent the origin of the file",
    "in the same spirit as the volunteers who prepared it",
    "so long as the header and footer are not altered",
    "even where the source edition carried restrictions of its own",
    "without asking anyone for permission in advance",
    "within the limits set out in the sections below",
    "on the understanding that no warranty of any kind is given",
    "at any time and in any number",
    "so that later readers can trace the file back to its source",
    "in every country where the text is free of copyright",
    "for the benefit of the readers who come after them",
    "as described in the paragraphs that follow",
    "and the same rules apply to every part of the file",
    "under the terms this notice describes",
    "once they have read the conditions in this section",
    "wherever the file is stored or shown",
];

const HEADINGS: &[&str] = &[
    "Use of this file",
    "Copies and redistribution",
    "Derived editions",
    "Corrections and errors",
    "Limits of responsibility",
    "No warranty",
    "Fees and donations",
    "Names and marks",
    "Formats and conversions",
    "Volunteers and credits",
    "Contacting the library",
    "Laws of other countries",
];

/// Sentences of a licence text: `bytes` of it, seeded by the library's name
/// and `part` (header or footer), in numbered sections of paragraphs. No
/// subject-predicate-condition combination repeats within one text.
fn licence_text(licence: &Licence, part: &str, bytes: usize) -> String {
    let name = licence.name;
    let [file, volunteers, readers] = licence.words;
    let words = |text: &str| {
        text.replace("{L}", name)
            .replace("readers", readers)
            .replace("volunteers", volunteers)
            .replace("file", file)
    };
    let mut rng = SplitMix64::new(hash64(format!("{name}/{part}").as_bytes(), 0x11ce));
    let mut used = std::collections::HashSet::new();
    let mut out = String::new();
    let mut section = 0;
    'text: loop {
        section += 1;
        let heading = HEADINGS[rng.below(HEADINGS.len() as u64) as usize];
        out.push_str(&words(&format!("{part} section {section}. {heading}\n\n")));
        for _ in 0..2 + rng.below(3) {
            let mut paragraph = Vec::new();
            for _ in 0..3 + rng.below(3) {
                let pick = loop {
                    let pick = (
                        rng.below(SUBJECTS.len() as u64) as usize,
                        rng.below(PREDICATES.len() as u64) as usize,
                        rng.below(CONDITIONS.len() as u64) as usize,
                    );
                    if used.insert(pick) {
                        break pick;
                    }
                };
                paragraph.push(format!(
                    "{} {} {}.",
                    SUBJECTS[pick.0], PREDICATES[pick.1], CONDITIONS[pick.2]
                ));
            }
            out.push_str(&wrap(&words(&paragraph.join(" ")), 72));
            out.push_str("\n\n");
            if out.len() >= bytes {
                break 'text;
            }
        }
    }
    out.truncate(out.trim_end().len());
    out
}

/// The e-text header `licence` puts before a body.
pub fn licence_header(licence: &Licence, title: &str, author: &str, release: u64) -> String {
    let name = licence.name;
    let upper = title.to_uppercase();
    format!(
        "The {name}: {title}, by {author}\n\n{}\n\nTitle: {title}\nAuthor: {author}\n\
         Release number: {release}\nLanguage: English\nCharacter set: UTF-8\n\n\
         === {} TEXT BEGINS: {upper} ===\n",
        licence_text(licence, "Header", licence.header_bytes),
        name.to_uppercase()
    )
}

/// The e-text footer `licence` puts after a body.
pub fn licence_footer(licence: &Licence, title: &str) -> String {
    let name = licence.name;
    format!(
        "=== {} TEXT ENDS: {} ===\n\n{}\n\nEnd of the licence of the {name}.\n",
        name.to_uppercase(),
        title.to_uppercase(),
        licence_text(licence, "Licence", licence.footer_bytes)
    )
}

/// The scanning notice on a scan's first page (lines of at most `width`).
pub fn notice_text(notice: &Notice, scan_id: u64, width: usize) -> String {
    let sentences: Vec<String> = notice
        .sentences
        .iter()
        .map(|&i| {
            NOTICE_SENTENCES[i]
                .replace("{S}", notice.scanner)
                .replace("{H}", notice.holder)
        })
        .collect();
    format!(
        "{}\n\nScan identifier: {scan_id}",
        wrap(&sentences.join(" "), width)
    )
}

/// Greedy line wrapping at `width` bytes (a longer word gets a line alone).
pub fn wrap(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / width.max(1));
    let mut line = 0;
    for word in text.split_whitespace() {
        if line > 0 && line + 1 + word.len() > width {
            out.push('\n');
            line = 0;
        } else if line > 0 {
            out.push(' ');
            line += 1;
        }
        out.push_str(word);
        line += word.len();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn licences_reach_their_size_and_differ_only_in_their_title_lines() {
        let a = licence_header(&LICENCE_A, "Emma", "Jane Austen", 12345);
        let b = licence_header(&LICENCE_A, "Persuasion", "Jane Austen", 23456);
        assert!((2_000..3_200).contains(&a.len()), "{}", a.len());
        let differing = a.lines().zip(b.lines()).filter(|(x, y)| x != y).count();
        assert_eq!(
            differing, 4,
            "the name line, title, release and begin marker"
        );
        let footer = licence_footer(&LICENCE_C, "Emma");
        assert!((20_000..21_200).contains(&footer.len()), "{}", footer.len());
        assert!(footer
            .lines()
            .all(|l| l.len() <= 72 || l.starts_with("===")));
        assert_ne!(
            licence_footer(&LICENCE_B, "Emma").lines().nth(2),
            footer.lines().nth(2),
            "families differ"
        );
    }

    #[test]
    fn wrapping_keeps_every_word_within_the_width() {
        let text = "one two three four five six seven eight nine ten eleven";
        let wrapped = wrap(text, 12);
        assert!(wrapped.lines().all(|l| l.len() <= 12));
        assert_eq!(
            wrapped.split_whitespace().collect::<Vec<_>>().join(" "),
            text
        );
    }
}
