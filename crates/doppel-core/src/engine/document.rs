//! Fingerprinting a document's decoded text a piece at a time, so that its
//! analysis takes memory in proportion to a piece, not to the document.
//!
//! Page furniture is found over the whole text first (12 bytes a line,
//! [`crate::engine::text::page_furniture::find`]); the text without it is
//! then cut into pieces of about [`PIECE_BYTES`] where a cut changes no
//! word ([`crate::engine::text::cut`]), and each piece's analysis goes to a
//! [`Fingerprinter`]. The fingerprints are those of the whole text analyzed
//! at once (tests/pieces.rs). A [`DocumentPrinter`] takes the decoded text
//! itself in pieces too (a large file decoded block by block), given the
//! furniture found in an earlier pass over it.
//!
//! Memory: a piece's analysis and the fingerprints' work on it take up to
//! [`PIECE_HEADROOM`] bytes per byte of text (each word's hash, span,
//! Soundex code and term, its letters and digits, the shingles and
//! winnowing k-grams cut from them), about 100 MiB at [`PIECE_BYTES`], and
//! that room is tried before each piece is analyzed; what outlives the
//! pieces is each fingerprint's set of distinct hashes (4 bytes a distinct
//! word shingle, 8 while counting them all, a few bytes a winnowing
//! window) and the carried k-gram tails.

use std::collections::TryReserveError;
use std::ops::Range;

use crate::engine::fingerprinter::{Fingerprinter, PrintOptions, Printed};
use crate::engine::stats::TermWeights;
use crate::engine::text::cut::last_cut;
use crate::engine::text::page_furniture;
use crate::engine::Engine;

/// Bytes of (furniture-free) text analyzed at a time. A text up to this
/// long is analyzed whole, without a copy.
pub const PIECE_BYTES: usize = 2 << 20;

/// Bytes a piece's analysis and the fingerprints' work on it take, at
/// most, per byte of the piece (measured: about 40 with every algorithm,
/// winnowing's k-gram hashes the largest part).
pub const PIECE_HEADROOM: usize = 48;

impl Engine {
    /// The page furniture [`Engine::analyze`] leaves out of `text` (none
    /// when the tokenizer keeps it), as sorted, disjoint byte ranges.
    pub fn furniture_of(&self, text: &str) -> Result<Vec<Range<usize>>, TryReserveError> {
        if !self.config.tokenizer.strip_furniture {
            return Ok(Vec::new());
        }
        Ok(page_furniture::find(text)?
            .into_iter()
            .map(|f| f.range)
            .collect())
    }

    /// Fingerprint a document's decoded text: the fingerprints of
    /// `self.fingerprint(&self.analyze(text), weights)`, with at most a
    /// piece's analysis in memory at a time. Fails only when memory for the
    /// fingerprints cannot be had.
    pub fn fingerprint_text(
        &self,
        text: &str,
        weights: &dyn TermWeights,
        options: PrintOptions,
    ) -> Result<Printed, TryReserveError> {
        self.fingerprint_text_in_pieces(text, weights, options, PIECE_BYTES)
    }

    /// [`Engine::fingerprint_text`] analyzing pieces of about `piece_bytes`
    /// (the same fingerprints whatever the size).
    pub fn fingerprint_text_in_pieces(
        &self,
        text: &str,
        weights: &dyn TermWeights,
        options: PrintOptions,
        piece_bytes: usize,
    ) -> Result<Printed, TryReserveError> {
        let furniture = self.furniture_of(text)?;
        let left_out: usize = furniture.iter().map(ExactSizeIterator::len).sum();
        if text.len() - left_out <= piece_bytes {
            let stripped = page_furniture::strip_ranges(text, furniture);
            let mut printer = Fingerprinter::new(self, weights, options);
            printer.push(&self.analyze_piece(&stripped)?)?;
            return printer.finish();
        }
        let mut document = self
            .document_printer(furniture, weights, options)
            .with_piece_bytes(piece_bytes);
        document.push(text)?;
        document.finish()
    }

    /// The analysis of one piece of furniture-free text, once room for it
    /// is known to be there: the analysis and the fingerprints' work on it
    /// take up to [`PIECE_HEADROOM`] bytes per byte of text, and are made
    /// with the ordinary (infallible) allocations, so the address space
    /// they need is tried first and a piece that could not have it fails
    /// here (an error the reader turns into a skip, not an abort).
    fn analyze_piece(&self, text: &str) -> Result<crate::engine::Analysis, TryReserveError> {
        let mut room: Vec<u8> = Vec::new();
        room.try_reserve_exact(text.len().saturating_mul(PIECE_HEADROOM))?;
        drop(room);
        Ok(self.analyze_stripped(text))
    }

    /// A [`DocumentPrinter`] for a text whose page furniture (in its byte
    /// offsets, as [`Engine::furniture_of`] finds it) is already known.
    pub fn document_printer<'e>(
        &'e self,
        furniture: Vec<Range<usize>>,
        weights: &'e dyn TermWeights,
        options: PrintOptions,
    ) -> DocumentPrinter<'e> {
        DocumentPrinter {
            engine: self,
            fingerprinter: Fingerprinter::new(self, weights, options),
            furniture,
            next_range: 0,
            offset: 0,
            buffer: String::new(),
            searched: 0,
            piece_bytes: PIECE_BYTES,
        }
    }
}

/// Fingerprints a decoded text given in order, in any number of parts:
/// its furniture is left out, and the rest is analyzed a piece (of about
/// [`PIECE_BYTES`]) at a time.
pub struct DocumentPrinter<'e> {
    engine: &'e Engine,
    fingerprinter: Fingerprinter<'e>,
    /// Ranges to leave out, sorted and disjoint, in the text's offsets.
    furniture: Vec<Range<usize>>,
    /// The first range not yet passed.
    next_range: usize,
    /// Bytes of the text taken so far.
    offset: usize,
    /// Text taken and not yet analyzed, furniture left out.
    buffer: String,
    /// `buffer[..searched]` holds no place to cut.
    searched: usize,
    piece_bytes: usize,
}

impl DocumentPrinter<'_> {
    /// Analyze pieces of `bytes` (tests cut small pieces).
    pub fn with_piece_bytes(mut self, bytes: usize) -> Self {
        self.piece_bytes = bytes.max(1);
        self
    }

    /// Bytes of the text taken so far.
    pub fn taken(&self) -> usize {
        self.offset
    }

    /// The text's next part.
    pub fn push(&mut self, text: &str) -> Result<(), TryReserveError> {
        let mut rest = text;
        while !rest.is_empty() {
            let mut take = rest.len().min(self.piece_bytes);
            while !rest.is_char_boundary(take) {
                take += 1;
            }
            let (part, after) = rest.split_at(take);
            self.take(part)?;
            self.cut()?;
            rest = after;
        }
        Ok(())
    }

    /// Add `part` (the text's next bytes) to the buffer, furniture left out.
    fn take(&mut self, part: &str) -> Result<(), TryReserveError> {
        let (start, end) = (self.offset, self.offset + part.len());
        self.buffer.try_reserve(part.len())?;
        let mut at = start;
        while at < end {
            while self
                .furniture
                .get(self.next_range)
                .is_some_and(|r| r.end <= at)
            {
                self.next_range += 1;
            }
            let kept_to = match self.furniture.get(self.next_range) {
                Some(r) if r.start <= at => {
                    at = r.end.min(end);
                    continue;
                }
                Some(r) => r.start.min(end),
                None => end,
            };
            self.buffer.push_str(&part[at - start..kept_to - start]);
            at = kept_to;
        }
        self.offset = end;
        Ok(())
    }

    /// Analyze every whole piece the buffer holds.
    fn cut(&mut self) -> Result<(), TryReserveError> {
        while self.buffer.len() >= self.piece_bytes {
            let Some(at) = last_cut(&self.buffer, self.searched) else {
                self.searched = self.buffer.len();
                break;
            };
            let piece = self.engine.analyze_piece(&self.buffer[..at])?;
            self.fingerprinter.push(&piece)?;
            self.buffer.drain(..at);
            self.searched = 0;
        }
        Ok(())
    }

    /// The fingerprints of the whole text taken.
    pub fn finish(mut self) -> Result<Printed, TryReserveError> {
        let piece = self.engine.analyze_piece(&self.buffer)?;
        self.buffer = String::new();
        self.fingerprinter.push(&piece)?;
        self.fingerprinter.finish()
    }
}
