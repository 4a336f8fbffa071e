//! Text pipeline: bytes → text ([`decode`]), text without page furniture
//! ([`page_furniture`], for scans), text → canonical text ([`normalize()`]), canonical text → words, terms, Soundex codes and k-grams
//! ([`tokenize`]). Everything downstream sees only normalized text, or words
//! that [`fused`] finds in text exactly as they would be in it.
pub mod cut;
pub mod decode;
pub mod fused;
pub mod normalize;
pub mod page_furniture;
pub mod stopwords;
pub mod tokenize;

pub use normalize::normalize;
pub use tokenize::{Language, Tokenizer, TokenizerConfig, Variation};
