//! Fingerprints are comparable across versions and machines (stored ones
//! are compared with new ones): `Engine::fingerprint` of one sample file is
//! pinned here, algorithm by algorithm. If this snapshot changes, every
//! stored fingerprint silently stops matching new ones: bump
//! `store::FINGERPRINT_FORMAT` (so indexes re-fingerprint) and say why.

use std::fmt::Write;
use std::path::Path;

use doppel_core::engine::Engine;
use doppel_core::hash::hash64;
use doppel_index::collection::{read_text, DEFAULT_SIZE_CAP};

/// A field's stored bytes (postcard, as the index keeps it) in brief: its
/// length and their xxh3.
fn brief<T: serde::Serialize>(value: &T) -> String {
    let bytes = postcard::to_allocvec(value).unwrap();
    format!("{} bytes, xxh3 {:016x}", bytes.len(), hash64(&bytes, 0))
}

#[test]
fn the_fingerprints_of_a_sample_file_are_pinned() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-corpus/austen/emma-ch1.txt");
    let text = read_text(&path, DEFAULT_SIZE_CAP).unwrap().text;
    let engine = Engine::default();
    let analysis = engine.analyze(&text);
    let f = engine
        .fingerprint(&analysis, engine.reference_weights())
        .unwrap();
    let mut out = String::new();
    let _ = writeln!(out, "exact: {:?}", f.exact);
    let _ = writeln!(out, "shingle: {}", brief(&f.shingle));
    let _ = writeln!(out, "minhash: {}", brief(&f.minhash));
    let _ = writeln!(out, "supershingle: {:?}", f.supershingle);
    let _ = writeln!(out, "simhash: {:?}", f.simhash);
    let _ = writeln!(out, "simhash-shingle: {:?}", f.simhash_shingle);
    let _ = writeln!(out, "simhash-lexicons: {:?}", f.simhash_lexicons);
    let _ = writeln!(out, "imatch: {:?}", f.imatch);
    let _ = writeln!(out, "imatch-lexicons: {}", brief(&f.imatch_lexicons));
    let _ = writeln!(out, "winnow: {}", brief(&f.winnow));
    let _ = writeln!(out, "si: {}", brief(&f.si));
    let _ = writeln!(out, "all: {}", brief(&f));
    insta::assert_snapshot!(out);
}
