//! gzip: a `.gz` of any format this crate reads, decompressed within
//! [`Limits::max_expanded_bytes`] and [`Limits::max_expansion_ratio`] and
//! read once more by its content. One layer only: a gzip inside a gzip is
//! refused, as a bomb's way to multiply its ratio.

use std::io::Read as _;

use flate2::read::MultiGzDecoder;

use crate::{detect, Format, FormatError, Limits, Read, ReadOptions};

/// Decompress `bytes` and read what they hold.
pub(crate) fn read(
    bytes: &[u8],
    limits: &Limits,
    options: &ReadOptions,
) -> Result<Read, FormatError> {
    let by_ratio = (bytes.len() as u64).saturating_mul(limits.max_expansion_ratio);
    let cap = limits.max_expanded_bytes.min(by_ratio);
    let mut out = Vec::new();
    // One byte past the cap tells a file at the cap from one over it.
    MultiGzDecoder::new(bytes)
        .take(cap.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| FormatError::Damaged {
            format: Format::Gzip,
            reason: format!("cannot decompress it after {} bytes: {e}", out.len()),
        })?;
    if out.len() as u64 > cap {
        let reason = if cap == limits.max_expanded_bytes {
            format!(
                "it expands past {} bytes, the most doppel unpacks",
                limits.max_expanded_bytes
            )
        } else {
            format!(
                "its {} bytes expand more than {} times (past {cap} bytes): a gzip bomb?",
                bytes.len(),
                limits.max_expansion_ratio
            )
        };
        return Err(FormatError::OverLimit {
            format: Format::Gzip,
            reason,
        });
    }
    if detect(&out) == Format::Gzip {
        return Err(FormatError::Unusable {
            format: Format::Gzip,
            reason: "a gzip inside a gzip: doppel unpacks one layer only".into(),
        });
    }
    Ok(match crate::read_with(out, limits, options)? {
        Read::Plain(text) => Read::Plain(text),
        Read::Book(mut book) => {
            book.gzipped = true;
            Read::Book(book)
        }
    })
}
