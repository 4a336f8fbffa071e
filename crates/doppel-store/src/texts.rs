//! Documents' decoded texts, kept compressed for the documents that carry
//! learned boilerplate (or a passage the curator overruled): a ruling on a
//! passage moves those documents' spans, and their bodies are fingerprinted
//! again from the stored text instead of the folder's files
//! (`doppel_index::index`). The text is what the document was
//! fingerprinted from, so it agrees with the stored identity even if the
//! file has changed since (a changed file goes through the normal path).
//!
//! A blob is the zstd frame of the UTF-8 text, with an xxh3 checksum beside
//! it as the fingerprint blobs have; one that fails it, or does not
//! decompress to UTF-8, reads as missing (logged), and the index reads the
//! file instead.

/// The zstd level texts are compressed at: the library's default, about a
/// third of English text at ~300 MB/s (higher levels gain a few percent
/// on one book at many times the time).
const LEVEL: i32 = 3;

/// The seed of a stored text's checksum (apart from the fingerprints').
const TEXT_CHECKSUM_SEED: u64 = 0x7e47_c0de;

/// A document's decoded text, compressed as the store keeps it.
#[derive(Clone, PartialEq, Eq)]
pub struct StoredText(pub(super) Vec<u8>);

impl StoredText {
    /// `text` compressed; `None` when the compressor fails (no memory):
    /// the document is then kept without its text, and read again if a
    /// ruling moves it.
    pub fn compress(text: &str) -> Option<Self> {
        zstd::bulk::compress(text.as_bytes(), LEVEL)
            .map(Self)
            .map_err(|e| tracing::warn!(error = %e, "could not compress a text to keep"))
            .ok()
    }

    /// Bytes kept.
    pub fn compressed_len(&self) -> usize {
        self.0.len()
    }
}

impl std::fmt::Debug for StoredText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "StoredText({} bytes compressed)", self.0.len())
    }
}

/// A kept text as read back, with what the document's row says of the
/// file it was decoded from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptText {
    /// The decoded text.
    pub text: String,
    /// The hash of the file's bytes it was decoded from.
    pub content_hash: u64,
    /// The encoding it was decoded from.
    pub encoding: Option<String>,
}

/// The checksum stored beside a compressed text.
pub(super) fn checksum(blob: &[u8]) -> u64 {
    doppel_core::hash::hash64(blob, TEXT_CHECKSUM_SEED)
}

impl KeptText {
    /// A stored text read back: `None` (logged) when `blob` fails its
    /// checksum `sum` or does not decompress to UTF-8, so the caller reads
    /// the file (`place` and `doc` name it in the log).
    pub(super) fn unpack(
        blob: &[u8],
        sum: u64,
        content_hash: u64,
        encoding: Option<String>,
        place: &std::path::Path,
        doc: &doppel_core::doc::DocPath,
    ) -> Option<KeptText> {
        let problem = if sum != checksum(blob) {
            "fails its checksum".to_owned()
        } else {
            match zstd::stream::decode_all(blob).map(String::from_utf8) {
                Ok(Ok(text)) => {
                    return Some(KeptText {
                        text,
                        content_hash,
                        encoding,
                    })
                }
                Ok(Err(_)) => "is not UTF-8".to_owned(),
                Err(e) => format!("does not decompress: {e}"),
            }
        };
        tracing::warn!(store = %place.display(), %doc, "the stored text {problem}; the file will be read instead");
        None
    }
}
