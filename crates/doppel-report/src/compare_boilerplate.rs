//! What `doppel compare A B` left out of the two files as boilerplate and
//! where that was learned ([`CompareBoilerplate`]), as a line of the text
//! table, the JSON's `boilerplate` object and two CSV rows.

use std::path::PathBuf;

use serde::Serialize;

/// The boilerplate a comparison left out of its two files, as the scan of
/// their folder leaves it out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CompareBoilerplate {
    /// Words left out of A, and of B.
    pub words: [u32; 2],
    /// Words of A and of B whole.
    pub document_words: [u32; 2],
    /// The folder whose index's learned boilerplate it is, and that index.
    pub learned_from: Option<(PathBuf, PathBuf)>,
    /// The user's boilerplate folder (`--boilerplate-dir` or the config
    /// file's `[boilerplate] user-dir`).
    pub user_dir: Option<PathBuf>,
}

impl CompareBoilerplate {
    /// Where it comes from, in words: "learned by the index of F; your
    /// boilerplate folder D".
    fn source(&self) -> String {
        let mut parts = Vec::new();
        if let Some((folder, _)) = &self.learned_from {
            parts.push(format!("learned by the index of {}", folder.display()));
        }
        if let Some(dir) = &self.user_dir {
            parts.push(format!("your boilerplate folder {}", dir.display()));
        }
        parts.join("; ")
    }

    /// The text table's line, e.g. "boilerplate left out: 349 of 1502
    /// words of A, none of B (learned by the index of F)".
    pub(crate) fn text_line(&self) -> String {
        let side = |i: usize, name: &str| match self.words[i] {
            0 => format!("none of {name}"),
            n => format!("{n} of {} words of {name}", self.document_words[i]),
        };
        let said = if self.words == [0, 0] {
            "none in A or B".to_owned()
        } else {
            format!("{}, {}", side(0, "A"), side(1, "B"))
        };
        format!("boilerplate left out: {said} ({})", self.source())
    }

    /// The JSON's `boilerplate` object, keys in name order.
    pub(crate) fn json(&self) -> CompareBoilerplateJson {
        let text = |p: &PathBuf| p.display().to_string();
        CompareBoilerplateJson {
            a_document_words: self.document_words[0],
            a_words: self.words[0],
            b_document_words: self.document_words[1],
            b_words: self.words[1],
            folder: self.learned_from.as_ref().map(|(f, _)| text(f)),
            index: self.learned_from.as_ref().map(|(_, i)| text(i)),
            user_dir: self.user_dir.as_ref().map(text),
        }
    }

    /// The CSV's rows: `boilerplate in A` and `in B`, the words left out
    /// as the score, the whole's words and the source as the unit.
    pub(crate) fn csv_rows(&self) -> [[String; 5]; 2] {
        let row = |i: usize, name: &str| {
            [
                format!("boilerplate in {name}"),
                self.words[i].to_string(),
                format!(
                    "words left out, of {} ({})",
                    self.document_words[i],
                    self.source()
                ),
                String::new(),
                String::new(),
            ]
        };
        [row(0, "A"), row(1, "B")]
    }
}

/// [`CompareBoilerplate`] in the JSON.
#[derive(Serialize)]
pub(crate) struct CompareBoilerplateJson {
    a_document_words: u32,
    a_words: u32,
    b_document_words: u32,
    b_words: u32,
    folder: Option<String>,
    index: Option<String>,
    user_dir: Option<String>,
}
