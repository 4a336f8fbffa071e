//! A generated library collection of whole digitized books, with its truth
//! per relation (`doppel make-library`, hidden): the test collection of
//! issue 14, built deterministically from the shared public-domain corpus.
//!
//! What it holds (`plan`): e-texts wrapped in long licence headers and
//! footers of several fictional digital libraries (our own wording,
//! `boilerplate`); page scans with a scanning notice on the first page,
//! running heads alternating title and chapter, page numbers, form feeds,
//! line-end hyphens and OCR confusions on 2–5 % of the words
//! (`transform`); a modernized edition; an abridgement; single chapters;
//! anthologies of State of the Union addresses and some addresses alone;
//! translations (KJV and WEB books); several novels by one author; a short
//! work inside a licence seven times its length; and a hard-cases set of
//! header/footer families (different short bodies under one licence that
//! is at least half of each file, plus one body again with 3 % word edits)
//! and of scans of different texts under one scanner's furniture.
//! Optionally a family of many lightly edited copies of one text (copies,
//! not boilerplate). `small` has every relation in ~1 MB for the tests;
//! `large` is the scale (~11 MB of library plus the hard cases).
//!
//! The truth ([`LibraryTruth`], written as `truth.json` next to the
//! documents, with a `README.md` and a `.doppelignore` that keeps both out
//! of scans) is decided from provenance (`relations`): every body
//! remembers the source paragraphs it is made of, and two documents are
//!
//! * `duplicate` when each body has ≥ 90 % of its bytes in the other,
//! * `contains` when only one does (`container` names the side, `a` or `b`,
//!   that holds the other),
//! * `related` when they share less (a partial overlap) or are two
//!   translations of one work,
//!
//! and every pair not listed in `pairs` is a negative. Boilerplate and page
//! furniture never count: the relation is the bodies'. `groups` lists the
//! duplicate groups and each `contains` pair as a group of two, so
//! `doppel eval --truth OUT/truth.json OUT` scores a duplicate verdict
//! against `duplicate` + `contains` (and, for now, counts a translation
//! pair it calls a duplicate as a false positive); `containment` repeats
//! the `contains` pairs as `[part, whole]`; `documents` describes each file
//! (set, form, boilerplate family, bytes, body bytes).
//!
//! Everything random comes from [`doppel_core::hash::SplitMix64`] seeded by the
//! collection seed and the document's path: the same seed and corpus give
//! the same bytes.

mod boilerplate;
mod plan;
mod planner;
mod relations;
mod source;
mod transform;

use std::fmt::Write as _;
use std::path::Path;

use crate::error::{ensure, io, Result};

pub use boilerplate::{Licence, Notice};
pub use relations::{LibraryTruth, Relation, Side, TruthDocument, TruthPair, CONTAINED};
pub use transform::{modernize, ocr_confusions, CONFUSIONS};

pub use plan::{LibraryOptions, LibrarySize};
pub use planner::LibraryDocument;

use source::{Body, Corpus};

/// A generated collection: its documents and their truth.
#[derive(Debug, Clone)]
pub struct LibraryCollection {
    /// Every file, with its text.
    pub documents: Vec<LibraryDocument>,
    /// What is related to what.
    pub truth: LibraryTruth,
}

/// Generate the collection `options` describes from the shared corpus at
/// `corpus` (`../shared/corpus` by default; the tests use their copy of the
/// books it draws on, `tests/data/corpus`).
pub fn make_library(corpus: &Path, options: &LibraryOptions) -> Result<LibraryCollection> {
    let mut corpus = Corpus::new(corpus)?;
    let documents = plan::plan(&mut corpus, options)?;
    let labelled: Vec<(String, &Body)> = documents
        .iter()
        .map(|d| (d.path.clone(), &d.body))
        .collect();
    let (pairs, groups) = relations::label(&labelled);
    let containment = pairs
        .iter()
        .filter(|p| p.relation == Relation::Contains)
        .map(|p| match p.container {
            Some(Side::A) => [p.b.clone(), p.a.clone()],
            _ => [p.a.clone(), p.b.clone()],
        })
        .collect();
    let truth = LibraryTruth {
        generator: GENERATOR.to_owned(),
        size: options.size.as_str().to_owned(),
        seed: options.seed,
        unlisted_pairs: "negative".to_owned(),
        documents: documents
            .iter()
            .map(|d| TruthDocument {
                path: d.path.clone(),
                set: d.set.clone(),
                form: d.form.clone(),
                boilerplate: d.boilerplate.clone(),
                bytes: d.text.len(),
                body_bytes: d.body.text.len(),
            })
            .collect(),
        groups,
        containment,
        pairs,
    };
    Ok(LibraryCollection { documents, truth })
}

/// The `generator` field of a truth file this module wrote.
pub const GENERATOR: &str = "doppel make-library";

impl LibraryCollection {
    /// Bytes of all documents.
    pub fn bytes(&self) -> usize {
        self.documents.iter().map(|d| d.text.len()).sum()
    }

    /// Write the documents, `truth.json`, `README.md` and `.doppelignore`
    /// under `out`. `out` must be missing, empty, or a collection this
    /// function wrote before (which is then replaced whole).
    pub fn write(&self, out: &Path) -> Result<()> {
        if out.exists() {
            let empty = std::fs::read_dir(out)
                .map_err(io("read", out))?
                .next()
                .is_none();
            let ours = std::fs::read_to_string(out.join("truth.json"))
                .ok()
                .and_then(|t| serde_json::from_str::<LibraryTruth>(&t).ok())
                .is_some_and(|t| t.generator == GENERATOR);
            ensure!(
                empty || ours,
                "{} is not empty and holds no generated library; choose a new folder",
                out.display()
            );
            if ours {
                std::fs::remove_dir_all(out).map_err(io("replace", out))?;
            }
        }
        for doc in &self.documents {
            let path = out.join(&doc.path);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(io("create", parent))?;
            }
            std::fs::write(&path, &doc.text).map_err(io("write", &path))?;
        }
        std::fs::create_dir_all(out).map_err(io("create", out))?;
        let write = |name: &str, text: &str| {
            let path = out.join(name);
            std::fs::write(&path, text).map_err(io("write", &path))
        };
        write(
            "truth.json",
            &(serde_json::to_string_pretty(&self.truth)? + "\n"),
        )?;
        write("README.md", &self.readme())?;
        write(".doppelignore", "README.md\ntruth.json\n")?;
        Ok(())
    }

    /// A one-line summary: files, bytes, pairs per relation.
    pub fn summary(&self) -> String {
        let t = &self.truth;
        format!(
            "{} documents, {} bytes; {} duplicate, {} contains, {} related pairs",
            self.documents.len(),
            self.bytes(),
            t.count(Relation::Duplicate),
            t.count(Relation::Contains),
            t.count(Relation::Related)
        )
    }

    fn readme(&self) -> String {
        let t = &self.truth;
        let mut out = format!(
            "# Generated library collection ({}, seed {})\n\nGenerated by `doppel make-library \
             OUT --size {} --seed {}` from the shared public-domain corpus; do not edit. \
             {}.\n\n`truth.json` holds the relation of every related pair (`duplicate`, \
             `contains` with the `container` side, `related`); every other pair is unrelated. \
             Its `groups` are what `doppel eval --truth truth.json .` scores.\n\n\
             | file | bytes | body | set | form |\n|---|---:|---:|---|---|\n",
            t.size,
            t.seed,
            t.size,
            t.seed,
            self.summary()
        );
        for d in &t.documents {
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | {} | {} |",
                d.path, d.bytes, d.body_bytes, d.set, d.form
            );
        }
        out
    }
}
