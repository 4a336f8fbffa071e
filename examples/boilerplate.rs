//! Experiment harness for `pairing::boilerplate` (issue 14 §1): learn the
//! boilerplate of a folder, print the learned passages, and show how pair
//! verdicts move when the boilerplate is left out.
//!
//! ```text
//! cargo run --release --example boilerplate -- DIR [--truth FILE] [--write-bodies OUT]
//! cargo run --release --example boilerplate -- --fan-huang BOOKS
//! ```
//!
//! * `DIR`: every file `doppel scan` would read (`.doppelignore` applies),
//!   keyed by relative path. `--fan-huang BOOKS` instead builds the Fan &
//!   Huang protocol's collection in memory exactly as `doppel eval` does
//!   (5 sources, 120 copies each at 1–30 % edits, the background; seed 1).
//! * `--truth`: a `doppel make-library` `truth.json` (its `documents[].boilerplate`
//!   says which files carry which licence or notice, its groups and
//!   containment the positive pairs), or a bench kit `truth.tsv` (copy,
//!   source, rate). With it the harness prints, per boilerplate family,
//!   the share of each file learned as boilerplate against the truth's, and
//!   the pairs whose verdict moves.
//! * Pairs are judged three ways with the default engine: on whole
//!   documents (today), on bodies (boilerplate words removed before
//!   fingerprinting: every algorithm sees the body), and "discounted"
//!   (Dolos/JPlag: the set-based measures — shingle, minhash,
//!   super-shingles, winnowing — on bodies, the others on whole
//!   documents). With fewer than 400 documents every pair is judged;
//!   otherwise the truth's pairs and every pair of two documents with
//!   boilerplate.
//! * `--write-bodies OUT` writes every body (and the truth file) to OUT, so
//!   `doppel eval --truth OUT/truth.json OUT` scores the real pipeline on
//!   bodies.
//! * `--time-batches N`: only learn in batches as a scan feeds the learner
//!   (`Learner::add_in_batches`), N times, print the best and median
//!   seconds and stop (the learner's own time, without reading or pairing).
//! * `--orders N`: also learn by inserting the documents one at a time in N
//!   shuffled orders (with a tenth removed and put back), check each equals
//!   learning from scratch, and time it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Parser;
use rayon::prelude::*;

use doppel_core::engine::algo::AlgorithmId;
use doppel_core::engine::measure::{jaccard, shingle_set};
use doppel_core::engine::text::tokenize::shingle_hashes;
use doppel_core::engine::text::{normalize, Tokenizer, TokenizerConfig};
use doppel_core::engine::{Engine, Fingerprints};
use doppel_core::hash::{hash64, rehash, SplitMix64, TOKEN_SEED};
use doppel_eval::{chunk_text, edit_words, vocabulary, FanHuangConfig};
use doppel_index::collection::{list_files, read_text, DEFAULT_SIZE_CAP};
use doppel_pairing::boilerplate::{learn, BoilerplateConfig, DocSamples, Learner, Span};

#[derive(Parser)]
struct Args {
    /// Folder to learn from (or the books, with --fan-huang).
    dir: PathBuf,
    /// Build the Fan & Huang collection from the books in DIR.
    #[arg(long)]
    fan_huang: bool,
    #[arg(long)]
    truth: Option<PathBuf>,
    #[arg(long)]
    write_bodies: Option<PathBuf>,
    #[arg(long, default_value_t = 0)]
    orders: usize,
    /// Passages to print.
    #[arg(long, default_value_t = 25)]
    passages: usize,
    #[arg(long)]
    min_docs: Option<usize>,
    #[arg(long)]
    min_words: Option<u32>,
    #[arg(long)]
    min_groups: Option<usize>,
    #[arg(long)]
    min_remainder: Option<usize>,
    #[arg(long)]
    min_stretch: Option<usize>,
    #[arg(long)]
    related: Option<f64>,
    /// Skip judging pairs.
    #[arg(long)]
    no_pairs: bool,
    /// Print these documents' spans (word ranges and their first words).
    #[arg(long, value_name = "KEY")]
    show: Vec<String>,
    /// Only time learning in batches as a scan does (this many rounds,
    /// best and median), then stop.
    #[arg(long, value_name = "ROUNDS")]
    time_batches: Option<usize>,
}

/// One document: its text normalized, the byte span of each word, samples.
struct Doc {
    key: String,
    normalized: String,
    words: Vec<(u32, u32)>,
    samples: DocSamples,
}

fn main() -> Result<()> {
    let args = Args::parse();
    let mut config = BoilerplateConfig::default();
    let set = |slot: &mut usize, v: Option<usize>| *slot = v.unwrap_or(*slot);
    set(&mut config.min_docs, args.min_docs);
    set(&mut config.min_groups, args.min_groups);
    set(&mut config.min_remainder, args.min_remainder);
    set(&mut config.min_stretch, args.min_stretch);
    config.min_words = args.min_words.unwrap_or(config.min_words);
    config.related = args.related.unwrap_or(config.related);
    println!("config: {config:?}");

    let started = Instant::now();
    let (texts, fh_truth) = if args.fan_huang {
        fan_huang_collection(&args.dir)?
    } else {
        (read_folder(&args.dir)?, Vec::new())
    };
    let read_s = started.elapsed().as_secs_f64();
    let engine = Engine::default();
    let (w, seed) = {
        let c = &engine.config().algorithms.shingle;
        (c.w, c.seed)
    };
    let started = Instant::now();
    let docs: Vec<Doc> = texts
        .into_par_iter()
        .map(|(key, text)| prepare(key, &text, w, seed))
        .collect();
    let prep_s = started.elapsed().as_secs_f64();
    let samples: usize = docs.iter().map(|d| d.samples.samples.len()).sum();
    let words: usize = docs.iter().map(|d| d.words.len()).sum();
    println!(
        "{} documents, {} words, {} samples ({:.1} per document); read {:.1} s, words and samples {:.1} s",
        docs.len(),
        words,
        samples,
        samples as f64 / docs.len().max(1) as f64,
        read_s,
        prep_s
    );

    if let Some(rounds) = args.time_batches {
        time_batches(&docs, &config, rounds);
        return Ok(());
    }

    // Learn from scratch, then incrementally (one at a time) for timing,
    // memory and the order check.
    let by_key: BTreeMap<String, DocSamples> = docs
        .iter()
        .map(|d| (d.key.clone(), d.samples.clone()))
        .collect();
    let rss_before = rss_bytes();
    let started = Instant::now();
    let mut learner: Learner<String> = Learner::new(config.clone());
    let mut refingerprints = 0;
    for d in &docs {
        refingerprints += learner.insert(d.key.clone(), d.samples.clone()).len();
    }
    let incr_s = started.elapsed().as_secs_f64();
    let rss_after = rss_bytes();
    let started = Instant::now();
    let mut batched: Learner<String> = Learner::new(config.clone());
    for chunk in docs.chunks(512) {
        batched.update(
            chunk
                .iter()
                .map(|d| (d.key.clone(), d.samples.clone()))
                .collect(),
            Vec::new(),
        );
    }
    let batched_s = started.elapsed().as_secs_f64();
    drop(batched);
    let started = Instant::now();
    let learned = learn(&by_key, &BTreeSet::new(), &BTreeSet::new(), &config);
    let scratch_s = started.elapsed().as_secs_f64();
    assert_eq!(learner.snapshot(), learned, "incremental = from scratch");
    let n = docs.len().max(1) as f64;
    let (shared, own) = learner.heap_bytes();
    println!(
        "learn from scratch {:.2} s; in batches of 512 {:.2} s; one at a time {:.2} s ({:.0} µs per document), which named {} documents already in whose spans moved; {} shingles learned\n\
         memory per document: resident {:.0} B; heap {:.0} B samples + postings, {:.0} B the learner's own",
        scratch_s,
        batched_s,
        incr_s,
        1e6 * incr_s / n,
        refingerprints,
        learned.learned.len(),
        rss_after.saturating_sub(rss_before) as f64 / n,
        shared as f64 / n,
        own as f64 / n,
    );
    check_orders(&docs, &learned, &config, args.orders);

    let index: BTreeMap<&str, &Doc> = docs.iter().map(|d| (d.key.as_str(), d)).collect();
    let passages = learner.passages();
    let with_spans = learned.spans.len();
    println!(
        "\n{} passages in {} documents (of {}):",
        passages.len(),
        with_spans,
        docs.len()
    );
    for p in passages.iter().take(args.passages) {
        let d = index[p.representative.key.as_str()];
        println!(
            "  {:>5} docs  {:>6} words  {:<52}  \"{}\"",
            p.documents,
            p.representative.span.len(),
            p.representative.key,
            first_words(d, p.representative.span, 12)
        );
    }

    // Passages that share exactly their documents (a licence's header and
    // footer) are one family to overrule; a document in two families
    // would need fingerprinting again when only one is overruled.
    let mut families: BTreeMap<Vec<&str>, usize> = BTreeMap::new();
    for p in &passages {
        let mut keys: Vec<&str> = p.spans.iter().map(|s| s.key.as_str()).collect();
        keys.dedup();
        *families.entry(keys).or_default() += 1;
    }
    let mut in_families: BTreeMap<&str, usize> = BTreeMap::new();
    for keys in families.keys() {
        for k in keys {
            *in_families.entry(k).or_default() += 1;
        }
    }
    println!(
        "{} families of passages with the same documents; {} documents in more than one family",
        families.len(),
        in_families.values().filter(|&&n| n > 1).count()
    );
    for key in &args.show {
        let Some(d) = index.get(key.as_str()) else {
            println!("{key}: no such document");
            continue;
        };
        println!("{key}: {} words", d.words.len());
        for &span in learned.spans.get(key).into_iter().flatten() {
            println!(
                "  {:>7}..{:<7} {:>6} words  \"{}\"",
                span.start,
                span.end,
                span.len(),
                first_words(d, span, 10)
            );
        }
    }

    let bodies: BTreeMap<&str, String> = docs
        .iter()
        .map(|d| {
            let spans = learned.spans.get(&d.key).map_or(&[][..], Vec::as_slice);
            (d.key.as_str(), body(d, spans))
        })
        .collect();
    let truth = match &args.truth {
        Some(path) => Some(Truth::read(path, &index)?),
        None if args.fan_huang => Some(Truth {
            families: BTreeMap::new(),
            positives: fh_truth.into_iter().collect(),
            related: BTreeSet::new(),
        }),
        None => None,
    };
    if let Some(t) = &truth {
        report_families(t, &docs, &learned.spans);
    }
    if let Some(out) = &args.write_bodies {
        write_bodies(out, &bodies, args.truth.as_deref())?;
    }
    if !args.no_pairs {
        judge_pairs(
            &engine,
            &docs,
            &bodies,
            &learned.spans,
            truth.as_ref(),
            w,
            seed,
        );
    }
    Ok(())
}

fn read_folder(dir: &Path) -> Result<Vec<(String, String)>> {
    let (files, _) = list_files(dir);
    Ok(files
        .par_iter()
        .filter_map(|f| {
            Some((
                f.doc.to_string(),
                read_text(&f.path, DEFAULT_SIZE_CAP).ok()?.text,
            ))
        })
        .collect())
}

/// The Fan & Huang collection as `doppel eval` builds it (defaults, seed
/// 1), and its positive pairs (each source with its copies).
#[allow(clippy::type_complexity)]
fn fan_huang_collection(books: &Path) -> Result<(Vec<(String, String)>, Vec<(String, String)>)> {
    let config = FanHuangConfig::default();
    let (files, _) = list_files(books);
    let files: Vec<_> = files
        .into_iter()
        .filter(|f| config.includes(&f.doc.to_string()))
        .collect();
    let decoded: Vec<Option<String>> = files
        .par_iter()
        .map(|f| read_text(&f.path, DEFAULT_SIZE_CAP).ok().map(|d| d.text))
        .collect();
    let chunks: Vec<&str> = decoded
        .iter()
        .flatten()
        .flat_map(|t| chunk_text(t, config.chunk_bytes))
        .collect();
    let vocab = vocabulary(decoded.iter().flatten().map(String::as_str));
    let mut rng = SplitMix64::new(config.seed);
    let background = config.background.min(chunks.len() - config.sources);
    let mut order: Vec<usize> = (0..chunks.len()).collect();
    for i in 0..config.sources + background {
        let j = i + rng.below((order.len() - i) as u64) as usize;
        order.swap(i, j);
    }
    let mut texts: Vec<(String, String)> = Vec::new();
    let mut positives = Vec::new();
    for (s, &c) in order[..config.sources].iter().enumerate() {
        texts.push((format!("source-{s}"), chunks[c].to_owned()));
    }
    for (b, &c) in order[config.sources..config.sources + background]
        .iter()
        .enumerate()
    {
        texts.push((format!("background-{b:05}"), chunks[c].to_owned()));
    }
    for k in 0..config.sources * config.copies {
        let mut r = SplitMix64::new(rehash(k as u64, config.seed ^ 0xed17_5a17));
        let rate = config.edit_min + (config.edit_max - config.edit_min) * r.next_f64();
        let source = k / config.copies;
        let copy = edit_words(chunks[order[source]], rate, &vocab, &mut r);
        let key = format!("copy-{source}-{:03}", k % config.copies);
        positives.push(ordered(&format!("source-{source}"), &key));
        texts.push((key, copy.text));
    }
    Ok((texts, positives))
}

fn prepare(key: String, text: &str, w: usize, seed: u64) -> Doc {
    let normalized = normalize(text);
    let tokenizer = Tokenizer::new(&TokenizerConfig::default());
    let base = normalized.as_ptr() as usize;
    let mut words = Vec::new();
    let mut hashes = Vec::new();
    for word in tokenizer.words(&normalized) {
        let start = (word.as_ptr() as usize - base) as u32;
        words.push((start, start + word.len() as u32));
        hashes.push(hash64(word.as_bytes(), TOKEN_SEED));
    }
    let samples = DocSamples::from_shingles(shingle_hashes(&hashes, w, seed), hashes.len(), 8);
    Doc {
        key,
        normalized,
        words,
        samples,
    }
}

/// The normalized text without its boilerplate spans.
fn body(d: &Doc, spans: &[Span]) -> String {
    let mut out = String::with_capacity(d.normalized.len());
    let mut from = 0usize;
    for s in spans {
        let Some(&(start, _)) = d.words.get(s.start as usize) else {
            continue;
        };
        out.push_str(&d.normalized[from..start as usize]);
        out.push('\n');
        from = d
            .words
            .get(s.end as usize)
            .map_or(d.normalized.len(), |w| w.0 as usize);
    }
    out.push_str(&d.normalized[from.min(d.normalized.len())..]);
    out
}

fn first_words(d: &Doc, span: Span, n: usize) -> String {
    let end = (span.start as usize + n)
        .min(span.end as usize)
        .min(d.words.len());
    d.words[span.start as usize..end]
        .iter()
        .map(|&(a, b)| &d.normalized[a as usize..b as usize])
        .collect::<Vec<_>>()
        .join(" ")
}

fn ordered(a: &str, b: &str) -> (String, String) {
    if a < b {
        (a.to_owned(), b.to_owned())
    } else {
        (b.to_owned(), a.to_owned())
    }
}

/// Resident memory of this process, from /proc (0 where unavailable).
fn rss_bytes() -> usize {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<usize>().ok())
        .map_or(0, |pages| pages * 4096)
}

/// Learn `docs` in batches (`Learner::add_in_batches`, as a scan feeds
/// it) `rounds` times; print the best and median seconds.
fn time_batches(docs: &[Doc], config: &BoilerplateConfig, rounds: usize) {
    let mut times: Vec<f64> = (0..rounds.max(1))
        .map(|_| {
            let input: Vec<(String, DocSamples)> = docs
                .iter()
                .map(|d| (d.key.clone(), d.samples.clone()))
                .collect();
            let started = Instant::now();
            let mut learner: Learner<String> = Learner::new(config.clone());
            learner.add_in_batches(input);
            let took = started.elapsed().as_secs_f64();
            drop(learner);
            took
        })
        .collect();
    times.sort_by(f64::total_cmp);
    println!(
        "learning in batches: best {:.3} s, median {:.3} s ({} rounds)",
        times[0],
        times[times.len() / 2],
        times.len()
    );
}

fn check_orders(
    docs: &[Doc],
    learned: &doppel_pairing::boilerplate::Learned<String>,
    config: &BoilerplateConfig,
    orders: usize,
) {
    for o in 0..orders {
        let mut rng = SplitMix64::new(1000 + o as u64);
        let mut idx: Vec<usize> = (0..docs.len()).collect();
        for i in (1..idx.len()).rev() {
            idx.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let started = Instant::now();
        let mut learner: Learner<String> = Learner::new(config.clone());
        for &i in &idx {
            learner.insert(docs[i].key.clone(), docs[i].samples.clone());
        }
        let tenth: Vec<usize> = idx.iter().copied().step_by(10).collect();
        for &i in &tenth {
            learner.remove(&docs[i].key);
        }
        for &i in tenth.iter().rev() {
            learner.insert(docs[i].key.clone(), docs[i].samples.clone());
        }
        let same = learner.snapshot() == *learned;
        println!(
            "order {o}: one at a time, a tenth removed and put back: {:.2} s, equal to from scratch: {same}",
            started.elapsed().as_secs_f64()
        );
        assert!(same);
    }
}

/// Positive pairs, pairs of related texts (neither positive nor counted
/// false), and the boilerplate family of each file.
struct Truth {
    families: BTreeMap<String, String>,
    positives: BTreeSet<(String, String)>,
    related: BTreeSet<(String, String)>,
}

impl Truth {
    fn read(path: &Path, docs: &BTreeMap<&str, &Doc>) -> Result<Truth> {
        let text = std::fs::read_to_string(path).with_context(|| format!("{}", path.display()))?;
        let mut t = Truth {
            families: BTreeMap::new(),
            positives: BTreeSet::new(),
            related: BTreeSet::new(),
        };
        if path.extension().is_some_and(|e| e == "tsv") {
            let name = |id: &str| {
                [format!("{id}.txt"), format!("docs/{id}.txt")]
                    .into_iter()
                    .find(|k| docs.contains_key(k.as_str()))
            };
            for line in text.lines().skip(1) {
                let cols: Vec<&str> = line.split('\t').collect();
                if let (Some(a), Some(b)) = (name(cols[0]), name(cols[1])) {
                    t.positives.insert(ordered(&a, &b));
                }
            }
            return Ok(t);
        }
        let json: serde_json::Value = serde_json::from_str(&text)?;
        for d in json["documents"].as_array().into_iter().flatten() {
            if let (Some(p), Some(f)) = (d["path"].as_str(), d["boilerplate"].as_str()) {
                t.families.insert(p.to_owned(), f.to_owned());
            }
        }
        for p in json["pairs"].as_array().into_iter().flatten() {
            let pair = ordered(p["a"].as_str().unwrap_or(""), p["b"].as_str().unwrap_or(""));
            match p["relation"].as_str() {
                Some("duplicate" | "contains") => t.positives.insert(pair),
                _ => t.related.insert(pair),
            };
        }
        Ok(t)
    }
}

/// The body's words of a generated library file: after an e-text's
/// "text begins: ... ===" line or a scan's "scan identifier: N", before an
/// e-text's "=== ... text ends:" line (the generator's markers).
fn body_words(d: &Doc) -> std::ops::Range<usize> {
    let t = &d.normalized;
    let mut start = 0;
    let mut end = t.len();
    if let Some(i) = t.find("text begins:") {
        start = t[i..].find("===").map_or(i, |j| i + j + 3);
    } else if let Some(i) = t.find("scan identifier:") {
        let rest = &t[i + 16..];
        let digits = rest
            .trim_start()
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        start = i + 16 + (rest.len() - rest.trim_start().len()) + digits;
    }
    if let Some(i) = t.find("text ends:") {
        end = t[..i].rfind("===").unwrap_or(i);
    }
    let first = d.words.partition_point(|w| (w.0 as usize) < start);
    let last = d.words.partition_point(|w| (w.1 as usize) <= end);
    first..last.max(first)
}

/// Per boilerplate family: files, files with boilerplate found, the share
/// of the boilerplate (everything but the body) learned, and body words
/// lost; files without a family that lost words.
fn report_families(t: &Truth, docs: &[Doc], spans: &BTreeMap<String, Vec<Span>>) {
    let taken = |d: &Doc, r: std::ops::Range<usize>| -> usize {
        spans.get(&d.key).map_or(0, |s| {
            s.iter()
                .map(|s| {
                    (s.end as usize)
                        .min(r.end)
                        .saturating_sub((s.start as usize).max(r.start))
                })
                .sum()
        })
    };
    let mut families: BTreeMap<&str, Vec<&Doc>> = BTreeMap::new();
    for d in docs {
        let family = t.families.get(&d.key).map_or("(none)", String::as_str);
        families.entry(family).or_default().push(d);
    }
    if t.families.is_empty() {
        let lost: Vec<&Doc> = docs.iter().filter(|d| spans.contains_key(&d.key)).collect();
        println!("\n{} documents lost words to boilerplate", lost.len());
        for d in lost.iter().take(20) {
            let share = taken(d, 0..d.words.len()) as f64 / d.words.len().max(1) as f64;
            println!("  {:<40} {:5.1} %", d.key, 100.0 * share);
        }
        return;
    }
    println!("\nfamily: files, files with boilerplate found, boilerplate words found / all (each file, %), body words lost");
    for (family, members) in &families {
        let found = members
            .iter()
            .filter(|d| spans.contains_key(&d.key))
            .count();
        let mut lost = 0;
        let shares: Vec<String> = members
            .iter()
            .map(|d| {
                let body = body_words(d);
                let in_body = taken(d, body.clone());
                lost += in_body;
                let outside = d.words.len() - body.len();
                let found = taken(d, 0..d.words.len()) - in_body;
                match outside {
                    0 => "-".to_owned(),
                    n => format!("{:.0}", 100.0 * found as f64 / n as f64),
                }
            })
            .collect();
        println!(
            "  {family:<48} {:>3} {:>3}  [{}]  lost {lost}",
            members.len(),
            found,
            shares.join(" ")
        );
    }
}

fn write_bodies(out: &Path, bodies: &BTreeMap<&str, String>, truth: Option<&Path>) -> Result<()> {
    for (key, text) in bodies {
        let path = out.join(key);
        std::fs::create_dir_all(path.parent().unwrap_or(out))?;
        std::fs::write(&path, text)?;
    }
    if let Some(t) = truth {
        let name = t.file_name().context("truth file name")?;
        std::fs::copy(t, out.join(name))?;
        std::fs::write(
            out.join(".doppelignore"),
            format!("{}\nREADME.md\n", name.to_string_lossy()),
        )?;
    }
    println!("\nbodies written to {}", out.display());
    Ok(())
}

/// Fingerprints and shingle sets of a text.
struct Prints {
    fp: Fingerprints,
    shingles: Vec<u64>,
}

fn prints(engine: &Engine, text: &str, w: usize, seed: u64) -> Prints {
    let a = engine.analyze(text);
    Prints {
        fp: engine.fingerprint(&a, engine.reference_weights()).unwrap(),
        shingles: shingle_set(&a, w, seed),
    }
}

const SET_BASED: [AlgorithmId; 4] = [
    AlgorithmId::Shingle,
    AlgorithmId::Minhash,
    AlgorithmId::Supershingle,
    AlgorithmId::Winnow,
];

fn judge_pairs(
    engine: &Engine,
    docs: &[Doc],
    bodies: &BTreeMap<&str, String>,
    spans: &BTreeMap<String, Vec<Span>>,
    truth: Option<&Truth>,
    w: usize,
    seed: u64,
) {
    let keys: Vec<&str> = docs.iter().map(|d| d.key.as_str()).collect();
    let mut pairs: BTreeSet<(String, String)> = BTreeSet::new();
    if keys.len() < 400 {
        for (i, a) in keys.iter().enumerate() {
            for b in &keys[i + 1..] {
                pairs.insert(ordered(a, b));
            }
        }
    } else {
        let with: Vec<&String> = spans.keys().collect();
        for (i, a) in with.iter().enumerate() {
            for b in &with[i + 1..] {
                pairs.insert(ordered(a, b));
            }
        }
        if let Some(t) = truth {
            pairs.extend(t.positives.iter().cloned());
        }
    }
    let needed: BTreeSet<&str> = pairs
        .iter()
        .flat_map(|(a, b)| [a.as_str(), b.as_str()])
        .collect();
    let whole: BTreeMap<&str, Prints> = docs
        .par_iter()
        .filter(|d| needed.contains(d.key.as_str()))
        .map(|d| (d.key.as_str(), prints(engine, &d.normalized, w, seed)))
        .collect();
    let body: BTreeMap<&str, Prints> = needed
        .par_iter()
        .map(|&k| {
            let p = if spans.contains_key(k) {
                prints(engine, &bodies[k], w, seed)
            } else {
                Prints {
                    fp: whole[k].fp.clone(),
                    shingles: whole[k].shingles.clone(),
                }
            };
            (k, p)
        })
        .collect();
    let verdict = |x: &Prints, y: &Prints, scores| {
        engine
            .verdict(&scores, x.shingles.len().min(y.shingles.len()))
            .fusion
    };
    // (whole, body, discounted) verdicts per truth class.
    let mut table: BTreeMap<&str, [usize; 4]> = BTreeMap::new();
    let mut moved = Vec::new();
    for (a, b) in &pairs {
        let (wa, wb, ba, bb) = (
            &whole[a.as_str()],
            &whole[b.as_str()],
            &body[a.as_str()],
            &body[b.as_str()],
        );
        let v_whole = verdict(wa, wb, engine.compare(&wa.fp, &wb.fp));
        let body_scores = engine.compare(&ba.fp, &bb.fp);
        let v_body = verdict(ba, bb, body_scores.clone());
        let mut mixed = engine.compare(&wa.fp, &wb.fp);
        for id in SET_BASED {
            if let Some(&s) = body_scores.get(&id) {
                mixed.insert(id, s);
            }
        }
        let v_disc = verdict(ba, bb, mixed);
        let hard = a.starts_with("hard-cases/") && b.starts_with("hard-cases/");
        let class = match truth {
            Some(t) if t.positives.contains(&(a.clone(), b.clone())) => "positive",
            Some(t) if t.related.contains(&(a.clone(), b.clone())) => "related",
            Some(_) if hard => "negative (hard cases)",
            Some(_) => "negative",
            None => "unlabelled",
        };
        let row = table.entry(class).or_default();
        row[0] += 1;
        row[1] += usize::from(v_whole);
        row[2] += usize::from(v_body);
        row[3] += usize::from(v_disc);
        if v_whole != v_body
            || v_body != v_disc
            || (class == "negative" && v_body)
            || (class == "positive" && !v_body)
        {
            let j = |x: &Prints, y: &Prints| jaccard(&x.shingles, &y.shingles);
            let c = |x: &Prints, y: &Prints| {
                let small = x.shingles.len().min(y.shingles.len()).max(1);
                let shared = x.shingles.len() + y.shingles.len()
                    - doppel_core::engine::measure::union_len(&x.shingles, &y.shingles);
                shared as f64 / small as f64
            };
            moved.push(format!(
                "  {class:<9} {a} ~ {b}\n            whole J {:.3} C {:.3} fusion {v_whole}; body J {:.3} C {:.3} fusion {v_body}; discounted fusion {v_disc}",
                j(wa, wb), c(wa, wb), j(ba, bb), c(ba, bb)
            ));
        }
    }
    println!("\npairs judged by fusion: class, pairs, duplicates on whole documents / on bodies / discounted");
    for (class, row) in &table {
        println!(
            "  {class:<22} {:>8} {:>6} {:>6} {:>6}",
            row[0], row[1], row[2], row[3]
        );
    }
    println!(
        "pairs whose verdict moves, false on bodies, or missed on bodies ({}):",
        moved.len()
    );
    for line in moved.iter().take(80) {
        println!("{line}");
    }
}
