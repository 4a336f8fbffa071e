//! What a generated library holds: the documents of the `small` and
//! `large` collections (which book, which part of it, which
//! transformations, which layout), the hard-cases set of header/footer
//! families, and the optional family of many copies of one text.

use std::str::FromStr;

use crate::error::Result;

use super::boilerplate::{
    Licence, LICENCE_A, LICENCE_B, LICENCE_C, LICENCE_D, LICENCE_E, NOTICE_1, NOTICE_2, NOTICE_3,
    NOTICE_4,
};
use super::planner::{LibraryDocument, Planner};
use super::source::{Book, Corpus};
use super::transform::{modernize, ScanStyle};

/// Which collection to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LibrarySize {
    /// Every relation in about 1 MB (fast in a debug build).
    Small,
    /// The scale: ~36 library files, ~11 MB, and the hard cases.
    Large,
}

impl LibrarySize {
    /// Its name (`small`, `large`).
    pub fn as_str(self) -> &'static str {
        match self {
            LibrarySize::Small => "small",
            LibrarySize::Large => "large",
        }
    }
}

/// A name that is no [`LibrarySize`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{name:?} is not a library size (small or large)")]
pub struct UnknownLibrarySize {
    /// The name given.
    pub name: String,
}

impl FromStr for LibrarySize {
    type Err = UnknownLibrarySize;

    fn from_str(s: &str) -> Result<Self, UnknownLibrarySize> {
        match s {
            "small" => Ok(LibrarySize::Small),
            "large" => Ok(LibrarySize::Large),
            _ => Err(UnknownLibrarySize { name: s.to_owned() }),
        }
    }
}

/// What to generate: the size, the seed of every random choice, and an
/// optional family of many copies of one text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LibraryOptions {
    /// How much to generate.
    pub size: LibrarySize,
    /// The seed of every random choice.
    pub seed: u64,
    /// Add this many copies (0.5–3 % word edits) of one text, `copies/`.
    pub many_copies: usize,
}

impl Default for LibraryOptions {
    fn default() -> Self {
        Self {
            size: LibrarySize::Small,
            seed: 1,
            many_copies: 0,
        }
    }
}

const fn book(path: &'static str, title: &'static str, author: &'static str) -> Book {
    Book {
        path,
        title,
        author,
        work: path,
    }
}

const fn translation(
    path: &'static str,
    title: &'static str,
    author: &'static str,
    work: &'static str,
) -> Book {
    Book {
        path,
        title,
        author,
        work,
    }
}

const EMMA: Book = book("austen/emma.txt", "Emma", "Jane Austen");
const PRIDE: Book = book(
    "austen/prideprejudice.txt",
    "Pride and Prejudice",
    "Jane Austen",
);
const PERSUASION: Book = book("austen/persuasion.txt", "Persuasion", "Jane Austen");
const NORTHANGER: Book = book(
    "austen/northangerabbey.txt",
    "Northanger Abbey",
    "Jane Austen",
);
const SENSE: Book = book(
    "austen/sensesensibility.txt",
    "Sense and Sensibility",
    "Jane Austen",
);
const MANSFIELD: Book = book("austen/mansfieldpark.txt", "Mansfield Park", "Jane Austen");
const MOBY: Book = book("moby/moby_dick.txt", "Moby-Dick", "Herman Melville");
const ALICE: Book = book(
    "misc/carroll_alice.txt",
    "Alice's Adventures in Wonderland",
    "Lewis Carroll",
);
const OPTICKS: Book = book("misc/newton_opticks.txt", "Opticks", "Isaac Newton");
const DEVIL: Book = book(
    "misc/devils_dictionary.txt",
    "The Devil's Dictionary",
    "Ambrose Bierce",
);
const GETTYSBURG: Book = book(
    "misc/gettysburg.txt",
    "The Gettysburg Address",
    "Abraham Lincoln",
);
const CONSTITUTION: Book = book(
    "misc/us_constitution.txt",
    "The Constitution of the United States",
    "The Federal Convention",
);

const KJV: &str = "King James Version";
const WEB: &str = "World English Bible";
const GENESIS_KJV: Book = translation("kjv/01_Genesis.txt", "Genesis", KJV, "bible/genesis");
const GENESIS_WEB: Book = translation("web/001_Gen.txt", "Genesis", WEB, "bible/genesis");
const RUTH_KJV: Book = translation("kjv/08_Ruth.txt", "Ruth", KJV, "bible/ruth");
const RUTH_WEB: Book = translation("web/008_Ruth.txt", "Ruth", WEB, "bible/ruth");
const JONAH_KJV: Book = translation("kjv/32_Jonah.txt", "Jonah", KJV, "bible/jonah");
const JONAH_WEB: Book = translation("web/032_Jonah.txt", "Jonah", WEB, "bible/jonah");

/// A State of the Union address by its corpus file name.
const fn address(file: &'static str, author: &'static str) -> Book {
    book(file, "Annual Message to Congress", author)
}

const STYLE_1: ScanStyle = ScanStyle {
    notice: NOTICE_1,
    numbers_at_foot: false,
    lines_per_page: 38,
    width: 62,
    hyphenation: 0.25,
    first_page: 5,
    crlf: false,
};
const STYLE_2: ScanStyle = ScanStyle {
    notice: NOTICE_2,
    numbers_at_foot: true,
    lines_per_page: 42,
    width: 66,
    hyphenation: 0.2,
    first_page: 3,
    crlf: true,
};
const STYLE_3: ScanStyle = ScanStyle {
    notice: NOTICE_3,
    numbers_at_foot: false,
    lines_per_page: 34,
    width: 58,
    hyphenation: 0.3,
    first_page: 9,
    crlf: false,
};
const STYLE_4: ScanStyle = ScanStyle {
    notice: NOTICE_4,
    numbers_at_foot: false,
    lines_per_page: 36,
    width: 60,
    hyphenation: 0.25,
    first_page: 1,
    crlf: false,
};

/// The documents of a library of `options.size`.
pub fn plan(corpus: &mut Corpus, options: &LibraryOptions) -> Result<Vec<LibraryDocument>> {
    let mut p = Planner {
        corpus,
        seed: options.seed,
        docs: Vec::new(),
    };
    match options.size {
        LibrarySize::Small => small(&mut p)?,
        LibrarySize::Large => large(&mut p)?,
    }
    if options.many_copies > 0 {
        many_copies(&mut p, options.many_copies)?;
    }
    p.docs.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(p.docs)
}

fn small(p: &mut Planner) -> Result<()> {
    let alice = p.whole(ALICE)?;
    p.etext(
        "etexts/carroll-alice.txt",
        "the whole book",
        alice.clone(),
        &LICENCE_A,
    );
    p.scan(
        "scans/carroll-alice-scan.txt",
        "the whole book",
        alice,
        &STYLE_1,
    );
    let chapter = p.chapters(ALICE, 4, 4)?;
    p.plain(
        "chapters/carroll-alice-chapter-04.txt",
        "chapter IV alone",
        chapter,
    );
    let path = "editions/carroll-alice-abridged.txt";
    let abridged = p.abridged(path, ALICE, &[4, 9], 0.6)?;
    p.etext(
        path,
        "abridgement: chapters IV and IX cut, 60 % of the other paragraphs kept",
        abridged,
        &LICENCE_B,
    );

    let persuasion = p.chapters(PERSUASION, 1, 3)?;
    p.etext(
        "etexts/austen-persuasion-chapters-01-03.txt",
        "chapters 1-3",
        persuasion.clone(),
        &LICENCE_A,
    );
    let (text, n) = modernize(&persuasion.text);
    let form =
        format!("chapters 1-3, modernized: {n} words respelled, Mr/Mrs, dashes, curly quotes");
    p.plain(
        "editions/austen-persuasion-chapters-01-03-modernized.txt",
        &form,
        persuasion.with_text(text),
    );
    let northanger = p.chapters(NORTHANGER, 1, 3)?;
    p.etext(
        "etexts/austen-northanger-abbey-chapters-01-03.txt",
        "chapters 1-3 (same author, another novel)",
        northanger,
        &LICENCE_A,
    );

    let gettysburg = p.whole(GETTYSBURG)?;
    p.etext(
        "etexts/lincoln-gettysburg-address.txt",
        "a short work in a licence seven times its length",
        gettysburg.clone(),
        &LICENCE_A,
    );
    p.scan(
        "scans/lincoln-gettysburg-address-scan.txt",
        "the whole address",
        gettysburg,
        &STYLE_2,
    );

    let w = |file| address(file, "George Washington");
    let (w1790, w1791, w1792) = (
        w("sotu/1790_george_washington_n.txt"),
        w("sotu/1791_george_washington_n.txt"),
        w("sotu/1792_george_washington_n.txt"),
    );
    let volume = p.anthology(
        "Annual Addresses, 1790-1792",
        "George Washington",
        &[
            (w1790, "THE ADDRESS OF 1790"),
            (w1791, "THE ADDRESS OF 1791"),
            (w1792, "THE ADDRESS OF 1792"),
        ],
    )?;
    p.etext(
        "anthologies/washington-annual-addresses-1790-1792.txt",
        "anthology of three addresses",
        volume,
        &LICENCE_C,
    );
    let part = p.whole(w1790)?;
    p.plain(
        "addresses/washington-1790.txt",
        "one address of the anthology",
        part,
    );
    let part = p.whole(w1792)?;
    p.scan(
        "addresses/washington-1792-scan.txt",
        "another address of the anthology",
        part,
        &STYLE_3,
    );

    let kjv = p.whole(RUTH_KJV)?;
    p.plain(
        "translations/ruth-kjv.txt",
        "the book of Ruth, King James Version",
        kjv,
    );
    let web = p.whole(RUTH_WEB)?;
    p.etext(
        "translations/ruth-web.txt",
        "the book of Ruth, World English Bible",
        web,
        &LICENCE_B,
    );

    licence_family(
        p,
        "hard-cases/riverbank",
        &LICENCE_D,
        &[
            address("sotu/1932_herbert_hoover_r.txt", "Herbert Hoover"),
            translation("kjv/31_Obadiah.txt", "Obadiah", KJV, "bible/obadiah"),
            translation("kjv/65_Jude.txt", "Jude", KJV, "bible/jude"),
        ],
        true,
    )
}

fn large(p: &mut Planner) -> Result<()> {
    let emma = p.whole(EMMA)?;
    p.etext(
        "etexts/austen-emma.txt",
        "the whole novel",
        emma.clone(),
        &LICENCE_A,
    );
    p.scan(
        "scans/austen-emma-scan.txt",
        "the whole novel",
        emma,
        &STYLE_1,
    );
    let chapter = p.chapters(EMMA, 5, 5)?;
    p.etext(
        "chapters/austen-emma-chapter-05.txt",
        "chapter V of volume I alone",
        chapter,
        &LICENCE_A,
    );

    let pride = p.whole(PRIDE)?;
    p.etext(
        "etexts/austen-pride-and-prejudice.txt",
        "the whole novel",
        pride.clone(),
        &LICENCE_A,
    );
    let (text, n) = modernize(&pride.text);
    let form = format!("modernized edition: {n} words respelled, Mr/Mrs, dashes, curly quotes");
    p.etext(
        "editions/austen-pride-and-prejudice-modernized.txt",
        &form,
        pride.with_text(text),
        &LICENCE_B,
    );
    let path = "editions/austen-pride-and-prejudice-abridged.txt";
    let drop: Vec<usize> = (3..=61).step_by(3).collect();
    let abridged = p.abridged(path, PRIDE, &drop, 0.7)?;
    p.etext(
        path,
        "abridgement: every third chapter cut, 70 % of the other paragraphs kept",
        abridged,
        &LICENCE_B,
    );

    let persuasion = p.whole(PERSUASION)?;
    p.etext(
        "etexts/austen-persuasion.txt",
        "the whole novel",
        persuasion.clone(),
        &LICENCE_A,
    );
    p.scan(
        "scans/austen-persuasion-scan.txt",
        "the whole novel",
        persuasion,
        &STYLE_2,
    );
    let novel = p.whole(NORTHANGER)?;
    p.etext(
        "etexts/austen-northanger-abbey.txt",
        "the whole novel (same author)",
        novel,
        &LICENCE_A,
    );
    let novel = p.whole(SENSE)?;
    p.etext(
        "etexts/austen-sense-and-sensibility.txt",
        "the whole novel (same author)",
        novel,
        &LICENCE_A,
    );
    let novel = p.whole(MANSFIELD)?;
    p.scan(
        "scans/austen-mansfield-park-scan.txt",
        "the whole novel (same author)",
        novel,
        &STYLE_1,
    );

    let moby = p.whole(MOBY)?;
    p.etext(
        "etexts/melville-moby-dick.txt",
        "the whole novel",
        moby,
        &LICENCE_B,
    );
    let chapters = p.chapters(MOBY, 1, 10)?;
    p.scan(
        "chapters/melville-moby-dick-chapters-01-10-scan.txt",
        "chapters 1-10",
        chapters,
        &STYLE_3,
    );

    let alice = p.whole(ALICE)?;
    p.etext(
        "etexts/carroll-alice.txt",
        "the whole book",
        alice.clone(),
        &LICENCE_C,
    );
    p.scan(
        "scans/carroll-alice-scan.txt",
        "the whole book",
        alice.clone(),
        &STYLE_3,
    );
    let chapter = p.chapters(ALICE, 7, 7)?;
    p.etext(
        "chapters/carroll-alice-chapter-07.txt",
        "chapter VII alone",
        chapter,
        &LICENCE_B,
    );
    let edited = p.edited("editions/carroll-alice-edited.txt", &alice, 0.02);
    p.plain(
        "editions/carroll-alice-edited.txt",
        "lightly edited copy: 2 % word edits",
        edited,
    );

    let opticks = p.whole(OPTICKS)?;
    p.etext(
        "etexts/newton-opticks.txt",
        "the whole book",
        opticks.clone(),
        &LICENCE_C,
    );
    p.scan(
        "scans/newton-opticks-scan.txt",
        "the whole book",
        opticks,
        &STYLE_2,
    );
    let devil = p.whole(DEVIL)?;
    p.etext(
        "etexts/bierce-devils-dictionary.txt",
        "the whole book",
        devil,
        &LICENCE_B,
    );
    let gettysburg = p.whole(GETTYSBURG)?;
    p.etext(
        "etexts/lincoln-gettysburg-address.txt",
        "a short work in a licence seven times its length",
        gettysburg.clone(),
        &LICENCE_A,
    );
    p.scan(
        "scans/lincoln-gettysburg-address-scan.txt",
        "the whole address",
        gettysburg,
        &STYLE_1,
    );
    let constitution = p.whole(CONSTITUTION)?;
    p.etext(
        "etexts/us-constitution.txt",
        "articles I-VII",
        constitution.clone(),
        &LICENCE_C,
    );
    p.scan(
        "scans/us-constitution-scan.txt",
        "articles I-VII",
        constitution,
        &STYLE_3,
    );

    let l = |file| address(file, "Abraham Lincoln");
    let lincoln = [
        (
            l("sotu/1861_abraham_lincoln_r.txt"),
            "THE MESSAGE OF DECEMBER 3, 1861",
        ),
        (
            l("sotu/1862_abraham_lincoln_r.txt"),
            "THE MESSAGE OF DECEMBER 1, 1862",
        ),
        (
            l("sotu/1863_abraham_lincoln_r.txt"),
            "THE MESSAGE OF DECEMBER 8, 1863",
        ),
        (
            l("sotu/1864_abraham_lincoln_r.txt"),
            "THE MESSAGE OF DECEMBER 6, 1864",
        ),
    ];
    let volume = p.anthology("Annual Messages, 1861-1864", "Abraham Lincoln", &lincoln)?;
    p.etext(
        "anthologies/lincoln-annual-messages-1861-1864.txt",
        "anthology of four messages",
        volume,
        &LICENCE_C,
    );
    let part = p.whole(lincoln[1].0)?;
    p.plain(
        "addresses/lincoln-1862.txt",
        "one message of the anthology",
        part,
    );
    let part = p.whole(lincoln[3].0)?;
    p.scan(
        "addresses/lincoln-1864-scan.txt",
        "another message of the anthology",
        part,
        &STYLE_2,
    );

    let w = |year: u32| address(WASHINGTON[(year - 1790) as usize], "George Washington");
    let parts: Vec<(Book, String)> = (1790..=1796)
        .map(|y| (w(y), format!("THE ADDRESS OF {y}")))
        .collect();
    let parts: Vec<(Book, &str)> = parts.iter().map(|(b, h)| (*b, h.as_str())).collect();
    let volume = p.anthology("Annual Addresses, 1790-1796", "George Washington", &parts)?;
    p.scan(
        "anthologies/washington-annual-addresses-1790-1796-scan.txt",
        "anthology of seven addresses",
        volume,
        &STYLE_1,
    );
    let part = p.whole(w(1790))?;
    p.etext(
        "addresses/washington-1790.txt",
        "one address of the anthology",
        part,
        &LICENCE_A,
    );
    let part = p.whole(w(1793))?;
    p.plain(
        "addresses/washington-1793.txt",
        "another address of the anthology",
        part,
    );

    for (path, book, form) in [
        ("translations/genesis-kjv.txt", GENESIS_KJV, "e-text"),
        ("translations/genesis-web.txt", GENESIS_WEB, "plain"),
        ("translations/ruth-kjv.txt", RUTH_KJV, "e-text"),
        ("translations/ruth-web.txt", RUTH_WEB, "plain"),
        ("translations/jonah-kjv-scan.txt", JONAH_KJV, "scan"),
        ("translations/jonah-web.txt", JONAH_WEB, "e-text"),
    ] {
        let body = p.whole(book)?;
        let what = format!("the book of {}, {}", book.title, book.author);
        match form {
            "e-text" => p.etext(path, &what, body, &LICENCE_B),
            "scan" => p.scan(path, &what, body, &STYLE_2),
            _ => p.plain(path, &what, body),
        }
    }

    let kjv = |path, title| translation(path, title, KJV, path);
    licence_family(
        p,
        "hard-cases/riverbank",
        &LICENCE_D,
        &[
            address("sotu/1973_richard_nixon_r.txt", "Richard Nixon"),
            address("sotu/1932_herbert_hoover_r.txt", "Herbert Hoover"),
            address("sotu/1800_john_adams_f.txt", "John Adams"),
            kjv("kjv/31_Obadiah.txt", "Obadiah"),
            kjv("kjv/65_Jude.txt", "Jude"),
            kjv("kjv/57_Philemon.txt", "Philemon"),
        ],
        true,
    )?;
    licence_family(
        p,
        "hard-cases/northgate",
        &LICENCE_E,
        &[
            address("sotu/1799_john_adams_f.txt", "John Adams"),
            kjv("kjv/37_Haggai.txt", "Haggai"),
            kjv("kjv/56_Titus.txt", "Titus"),
            kjv("kjv/53_2_Thessalonians.txt", "2 Thessalonians"),
            kjv("kjv/34_Nahum.txt", "Nahum"),
            kjv("kjv/35_Habakkuk.txt", "Habakkuk"),
        ],
        false,
    )?;
    for (name, book) in [
        ("zephaniah", kjv("kjv/36_Zephaniah.txt", "Zephaniah")),
        ("joel", kjv("kjv/29_Joel.txt", "Joel")),
        (
            "adams-1797",
            address("sotu/1797_john_adams_f.txt", "John Adams"),
        ),
        (
            "adams-1798",
            address("sotu/1798_john_adams_f.txt", "John Adams"),
        ),
    ] {
        let body = p.whole(book)?;
        let path = format!("hard-cases/scans/{name}-scan.txt");
        p.scan(
            &path,
            "a short text under one scanner's furniture (different bodies)",
            body,
            &STYLE_4,
        );
    }
    Ok(())
}

const WASHINGTON: [&str; 7] = [
    "sotu/1790_george_washington_n.txt",
    "sotu/1791_george_washington_n.txt",
    "sotu/1792_george_washington_n.txt",
    "sotu/1793_george_washington_n.txt",
    "sotu/1794_george_washington_n.txt",
    "sotu/1795_george_washington_n.txt",
    "sotu/1796_george_washington_n.txt",
];

/// Short different bodies in one licence family, so that the licence is at
/// least half of each file (no pair among them is true); with `edited`, the
/// first body again with 3 % word edits (that pair is a duplicate).
fn licence_family(
    p: &mut Planner,
    folder: &str,
    licence: &Licence,
    books: &[Book],
    edited: bool,
) -> Result<()> {
    for (k, &book) in books.iter().enumerate() {
        let body = p.whole(book)?;
        let stem = book
            .path
            .rsplit('/')
            .next()
            .unwrap_or(book.path)
            .trim_end_matches(".txt");
        let path = format!("{folder}/{stem}.txt");
        if edited && k == 0 {
            let copy_path = format!("{folder}/{stem}-edited.txt");
            let copy = p.edited(&copy_path, &body, 0.03);
            p.etext(
                &copy_path,
                "the same body with 3 % word edits, same licence",
                copy,
                licence,
            );
        }
        p.etext(&path, "a short body in a long licence", body, licence);
    }
    Ok(())
}

/// `n` copies of one address with 0.5-3 % word edits (the first verbatim):
/// a text many documents share because they are copies, not boilerplate.
fn many_copies(p: &mut Planner, n: usize) -> Result<()> {
    let body = p.whole(address("sotu/1961_john_f_kennedy_d.txt", "John F. Kennedy"))?;
    for k in 0..n {
        let path = format!("copies/kennedy-1961-copy-{k:03}.txt");
        let rate = if k == 0 {
            0.0
        } else {
            0.005 + 0.025 * p.rng(&path, "rate").next_f64()
        };
        let copy = p.edited(&path, &body, rate);
        let form = format!("copy {k} of one address, {:.1} % word edits", 100.0 * rate);
        p.plain(&path, &form, copy);
    }
    Ok(())
}
