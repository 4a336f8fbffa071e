//! One document's boilerplate as the index stores it: its spans in word
//! positions and as byte ranges of the decoded text, with the first words
//! of each for the reports.

use std::ops::Range;

use serde::{Deserialize, Serialize};

use super::Span;

/// One document's boilerplate, as found when it was fingerprinted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocBoilerplate {
    /// Its boilerplate spans, in word positions of its analysis.
    pub spans: Vec<Span>,
    /// The same spans as byte ranges of the decoded text.
    pub ranges: Vec<Range<u64>>,
    /// The first words of each span, as the text spells them.
    pub first_words: Vec<String>,
    /// Words of the whole document (spans included).
    pub document_words: u32,
}

impl DocBoilerplate {
    /// No boilerplate, out of a document of `words` words.
    pub fn none(words: u32) -> Self {
        Self {
            document_words: words,
            ..Self::default()
        }
    }

    /// Words left out as boilerplate.
    pub fn words(&self) -> u32 {
        self.spans.iter().map(Span::len).sum()
    }
}
