//! Text pipeline: bytes → text ([`decode`]), text → canonical text
//! ([`normalize()`]), canonical text → words, terms, Soundex codes and k-grams
//! ([`tokenize`]). Everything downstream sees only normalized text.
pub mod decode;
pub mod normalize;
pub mod stopwords;
pub mod tokenize;

pub use normalize::normalize;
pub use tokenize::{Language, Tokenizer, TokenizerConfig, Variation};
