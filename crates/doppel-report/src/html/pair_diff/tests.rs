use super::*;

fn doc(text: &str) -> DocText {
    DocText {
        text: text.to_owned(),
        furniture: Vec::new(),
        boilerplate: Vec::new(),
        hashes: HashSet::new(),
    }
}

fn documents() -> Documents {
    Documents::new(Path::new("."), &EngineConfig::default())
}

fn shaped(a: DocText, b: DocText, limits: &Limits) -> PairDiff {
    documents().diff(&a, &b, limits)
}

/// `n` distinct words, `changed` of them (by index) replaced.
fn text(n: usize, changed: &[usize]) -> String {
    (0..n)
        .map(|k| {
            if changed.contains(&k) {
                format!("changed{k}")
            } else {
                format!("word{k}")
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Words shown a side, words folded a side, changes and words cut a side.
fn tally(d: &PairDiff) -> ([usize; 2], [usize; 2], (usize, [usize; 2])) {
    let (mut shown, mut folded, mut cut) = ([0, 0], [0, 0], (0, [0, 0]));
    for row in &d.rows {
        match row {
            Row::Words { left, right, .. } => {
                shown[0] += left.len();
                shown[1] += right.len();
            }
            Row::Fold { left, right, .. } => {
                folded[0] += left;
                folded[1] += right;
            }
            Row::Cut {
                changes,
                left,
                right,
            } => cut = (*changes, [*left, *right]),
        }
    }
    (shown, folded, cut)
}

fn marked(words: &[Word]) -> Vec<String> {
    words
        .iter()
        .flat_map(|w| &w.parts)
        .filter(|(_, m)| *m)
        .map(|(s, _)| s.clone())
        .collect()
}

#[test]
fn a_short_pair_shows_whole_with_the_changed_characters_marked() {
    let d = shaped(
        doc("the quick brown fox jumps over the lazy dog"),
        doc("the quick brovvn fox jumps over the lazy dog"),
        &Limits::default(),
    );
    assert_eq!(d.changes, 1);
    let [Row::Words {
        changed,
        left,
        right,
    }] = d.rows.as_slice()
    else {
        panic!("one row: {:?}", d.rows);
    };
    assert!(changed);
    let texts = |w: &[Word]| w.iter().map(Word::text).collect::<Vec<_>>().join(" ");
    assert_eq!(texts(left), "the quick brown fox jumps over the lazy dog");
    assert_eq!(texts(right), "the quick brovvn fox jumps over the lazy dog");
    assert_eq!(marked(left), ["w"]);
    assert_eq!(marked(right), ["vv"]);
    assert_eq!(left[2].class, WordClass::Changed);
    assert_eq!(left[3].class, WordClass::Equal);
}

#[test]
fn long_identical_stretches_fold_leaving_context_around_the_change() {
    let limits = Limits::default();
    let d = shaped(doc(&text(3000, &[])), doc(&text(3000, &[1500])), &limits);
    let ctx = limits.context;
    let (shown, folded, cut) = tally(&d);
    assert_eq!(shown, [2 * ctx + 1; 2], "the change and its context");
    assert_eq!(folded, [3000 - 2 * ctx - 1; 2]);
    assert_eq!(cut.0, 0);
    assert!(
        matches!(d.rows.first(), Some(Row::Fold { equal: true, left, .. }) if *left == 1500 - ctx)
    );
    assert!(matches!(d.rows.last(), Some(Row::Fold { equal: true, .. })));
    // The changed word is shown on both sides.
    let shows = |side: usize, word: &str| {
        d.rows.iter().any(|r| match r {
            Row::Words { left, right, .. } => [left, right][side].iter().any(|w| w.text() == word),
            _ => false,
        })
    };
    assert!(shows(0, "word1500") && shows(1, "changed1500"));
    assert!(!shows(0, "word0"), "folded away");
}

#[test]
fn a_pair_within_the_whole_limit_is_not_folded() {
    let d = shaped(
        doc(&text(1500, &[])),
        doc(&text(1500, &[700])),
        &Limits::default(),
    );
    let (shown, folded, _) = tally(&d);
    assert_eq!((shown, folded), ([1500; 2], [0; 2]));
}

#[test]
fn a_diff_stops_at_its_word_cap_and_says_what_it_cut() {
    let changed: Vec<usize> = (0..30).map(|k| 50 + k * 100).collect();
    let limits = Limits {
        shown_words: 200,
        ..Limits::default()
    };
    let d = shaped(doc(&text(3000, &[])), doc(&text(3000, &changed)), &limits);
    assert_eq!(d.changes, 30);
    let (shown, folded, (cut_changes, cut)) = tally(&d);
    assert!(matches!(d.rows.last(), Some(Row::Cut { .. })));
    // Every word is shown, folded or counted as cut, once.
    assert_eq!(
        [shown[0] + folded[0] + cut[0], shown[1] + folded[1] + cut[1]],
        [3000, 3000]
    );
    let shown_changes = d
        .rows
        .iter()
        .map(|r| match r {
            Row::Words { right, .. } => right
                .iter()
                .filter(|w| w.class == WordClass::Changed)
                .count(),
            _ => 0,
        })
        .sum::<usize>();
    assert!(shown_changes > 0 && cut_changes > 0);
    assert_eq!(shown_changes + cut_changes, 30);
    assert!(shown[0] + shown[1] <= 200 + 2 * (2 * limits.context + 1) + 2);
}

#[test]
fn a_long_one_sided_stretch_folds_too() {
    // A 100-word passage set inside a 3,000-word text.
    let book = text(3000, &[]);
    let passage = book
        .split(' ')
        .skip(1000)
        .take(100)
        .collect::<Vec<_>>()
        .join(" ");
    let limits = Limits::default();
    let d = shaped(doc(&passage), doc(&book), &limits);
    assert!(d.region.is_some(), "the passage is located in the book");
    let (shown, folded, _) = tally(&d);
    // The passage is found whole: its words fold but for their context
    // where the book's other words begin and end.
    assert_eq!(shown[0], 2 * limits.context);
    assert_eq!(shown[0] + folded[0], 100);
    assert_eq!(shown[1] + folded[1], 3000);
    assert!(shown[1] <= 100 + 4 * limits.context);
    assert!(d
        .rows
        .iter()
        .any(|r| matches!(r, Row::Fold { equal: false, left: 0, right } if *right > 900)));
}

#[test]
fn furniture_and_boilerplate_show_as_themselves_out_of_the_comparison() {
    let left = "PRIDE AND PREJUDICE 7\n\nIt is a truth universally acknowledged";
    let right = "It is a truth universally acknowledged\n\nScanned by the library";
    let mut a = doc(left);
    let head = 0..23;
    a.furniture = vec![head];
    let mut b = doc(right);
    let notice = right.find("Scanned").unwrap();
    let notice = notice..right.len();
    b.boilerplate = vec![notice];
    let d = shaped(a, b, &Limits::default());
    assert_eq!(d.equal, 1.0, "both left out of the comparison");
    assert_eq!(d.changes, 0);
    let classes: Vec<(String, WordClass)> = d
        .rows
        .iter()
        .flat_map(|r| match r {
            Row::Words { left, right, .. } => left.iter().chain(right).cloned().collect(),
            _ => Vec::new(),
        })
        .map(|w| (w.text(), w.class))
        .collect();
    assert!(classes.contains(&("PREJUDICE".into(), WordClass::Furniture)));
    assert!(classes.contains(&("Scanned".into(), WordClass::Boilerplate)));
    assert!(classes.contains(&("truth".into(), WordClass::Equal)));
}

#[test]
fn a_file_with_an_escaped_name_is_read_and_not_its_look_alike() {
    let dir = tempfile::tempdir().unwrap();
    #[cfg(unix)]
    let (name, other) = {
        use std::os::unix::ffi::OsStrExt;
        (
            std::ffi::OsStr::from_bytes(b"esc\x1b[1m latin\xe9 back\\slash.txt").to_owned(),
            std::ffi::OsStr::from_bytes(b"esc\x1b[1m latin\xe8 back\\slash.txt").to_owned(),
        )
    };
    #[cfg(not(unix))]
    let (name, other) = (
        std::ffi::OsString::from("esc\u{1b}[1m latin\u{e9}.txt"),
        std::ffi::OsString::from("esc\u{1b}[1m latin\u{e8}.txt"),
    );
    std::fs::write(dir.path().join(&name), "some text").unwrap();
    std::fs::write(dir.path().join(&other), "other text").unwrap();
    let doc = DocPath::from_relative(std::path::Path::new(&name));
    assert!(doc.to_string().contains("\\u{1b}"), "{doc}");
    let docs = Documents::new(dir.path(), &EngineConfig::default());
    assert_eq!(docs.load(&doc).unwrap().text, "some text");
    let other = DocPath::from_relative(std::path::Path::new(&other));
    assert_eq!(docs.load(&other).unwrap().text, "other text");
}
