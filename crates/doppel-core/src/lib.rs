//! doppel's core: the stable seeded hashes everything that persists uses
//! ([`hash`]), a document's identity ([`doc`], raw path bytes), and the
//! [`engine`]: text to fingerprints and scores — `text` (decoding,
//! normalization, words), `analysis` (the one pass over a document every
//! algorithm reads), `algo` (the papers' algorithms), `stats` (term
//! weights), `measure` (exact measures) and the [`engine::Engine`] that ties
//! one configuration of them together. Knows nothing of files, indexes or
//! screens; every other crate of the workspace builds on it.
pub mod doc;
pub mod engine;
pub mod hash;
pub mod packed;
