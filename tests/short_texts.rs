//! A minimum length for a duplicate verdict (issue 46): excerpts of a few
//! dozen words that share one phrase are not duplicates, though every
//! algorithm agrees on them (the phrase is most of the shorter one); short
//! texts still pair with their same text, a misread word included. The
//! excerpts are cut here from *Emma* in `tests/data/corpus/`.

use std::collections::BTreeSet;
use std::fs;

use serde_json::Value;

mod common;

/// A seeded walk through the book (the same excerpts on every run).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) as usize) % n
    }
}

#[test]
fn excerpts_sharing_a_phrase_are_not_duplicates_and_copies_still_are() {
    let emma = fs::read_to_string(common::test_corpus().join("austen/emma.txt")).unwrap();
    let words: Vec<&str> = emma.split_whitespace().collect();
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("excerpts");
    fs::create_dir_all(&folder).unwrap();
    let mut rng = Lcg(46);
    let write = |name: &str, from: usize, len: usize| {
        fs::write(folder.join(name), words[from..from + len].join(" ")).unwrap();
    };
    // 60 phrases, each of 3–12 words and held by a longer excerpt of up to
    // 30 words around it, 8 or more words longer: the shape that made
    // 1,261 duplicate pairs of 5,000 excerpts. (An excerpt a word or two
    // longer than another is the same text with noise, and pairs.)
    for n in 0..60 {
        let from = 100 + rng.below(words.len() - 200);
        let len = 3 + rng.below(10);
        let before = 4 + rng.below(5);
        let after = 4 + rng.below(30 - len - before - 3);
        write(&format!("phrase-{n:02}.txt"), from, len);
        write(
            &format!("around-{n:02}.txt"),
            from - before,
            before + len + after,
        );
    }
    // 10 excerpts of 10–30 words, each with an exact copy and, from 20
    // words up, a copy with one word misread.
    let mut copies = BTreeSet::new();
    for n in 0..10 {
        let from = 100 + rng.below(words.len() - 200);
        let len = 10 + rng.below(21);
        let text = words[from..from + len].join(" ");
        let name = format!("copied-{n:02}");
        fs::write(folder.join(format!("{name}.txt")), &text).unwrap();
        fs::write(folder.join(format!("{name} (copy).txt")), &text).unwrap();
        copies.insert(name.clone());
        if len >= 20 {
            let mut misread: Vec<&str> = words[from..from + len].to_vec();
            misread[len / 2] = "tbe";
            fs::write(folder.join(format!("{name} (ocr).txt")), misread.join(" ")).unwrap();
        }
    }
    let scan = common::scan_json(&folder, &[]);
    let stem = |path: &str| path.split([' ', '.']).next().unwrap().to_owned();
    let mut paired = BTreeSet::new();
    for pair in scan["pairs"].as_array().unwrap() {
        let duplicate = pair["duplicate_by"]
            .as_array()
            .unwrap()
            .iter()
            .any(|v| v == "fusion");
        let (a, b) = (pair["a"].as_str().unwrap(), pair["b"].as_str().unwrap());
        if duplicate {
            assert_eq!(
                stem(a),
                stem(b),
                "only the same text pairs: {a} – {b}: {pair:#}"
            );
            paired.insert(stem(a));
        }
    }
    assert_eq!(paired, copies, "every copied excerpt pairs with its copy");
    let clusters: Vec<&Value> = scan["clusters"].as_array().unwrap().iter().collect();
    assert_eq!(clusters.len(), copies.len(), "{clusters:#?}");
}
