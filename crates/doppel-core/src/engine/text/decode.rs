//! Decoding: turning a file's raw bytes into text, or into a reason the file
//! is not text.
//!
//! This module owns everything between "we read some bytes" and "we have a
//! `String` worth normalizing": byte-order marks, BOM-less UTF-16, strict
//! UTF-8, legacy-encoding guessing (via `chardetng`), magic-number sniffing of
//! common binary formats, and the binary/blank policy. It does **not**
//! normalize anything: line endings (CRLF stays CRLF), Unicode normalization
//! forms and whitespace are left exactly as decoded, for the normalizer.
//!
//! [`decode_owned`], which a file's reader calls, first hands the bytes to
//! `doppel_formats`: a PDF, EPUB, HTML, TEI, ALTO or hOCR file (or a gzip or
//! zip of pages) becomes a book's UTF-8 text there, with its page map
//! ([`Decoded::book`]), and only the checks of steps 7–8 apply to it; a
//! file in no such format comes back untouched for the steps below.
//!
//! The order of the checks in [`decode`] is:
//!
//! 1. empty input → [`NotText::Empty`];
//! 2. a byte-order mark (UTF-8, UTF-16LE, UTF-16BE) wins: decode with that
//!    encoding, BOM stripped, replacing malformed sequences with U+FFFD
//!    ([`DetectionMethod::Bom`]). A UTF-32 BOM is reported as binary, since
//!    `encoding_rs` has no UTF-32 decoder;
//! 3. magic numbers of common binary formats (PDF, ZIP, PNG, JPEG, GIF, gzip,
//!    ELF, ...) → [`NotText::Binary`] naming the format;
//! 4. the BOM-less UTF-16 heuristic (see [`decode`]) →
//!    [`DetectionMethod::Utf16Heuristic`];
//! 5. strict UTF-8 → [`DetectionMethod::Utf8`];
//! 6. otherwise a guess ([`DetectionMethod::Guessed`]): nearly-UTF-8 input is
//!    decoded as UTF-8 with replacement, anything else goes to `chardetng`;
//! 7. the binary policy on the decoded text (NUL, control characters);
//! 8. the blank policy (no alphanumeric character at all).

use std::collections::TryReserveError;

use encoding_rs::{Encoding, UTF_16BE, UTF_16LE, UTF_8};

/// A file's bytes decoded to text.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    /// The decoded text, BOM stripped, otherwise exactly as decoded (no
    /// newline or Unicode normalization).
    pub text: String,
    /// The `encoding_rs` name of the encoding used: `"UTF-8"`, `"UTF-16LE"`,
    /// `"UTF-16BE"`, `"windows-1252"`, ... Note that, following WHATWG,
    /// ISO-8859-1 (Latin-1) input is decoded and recorded as `"windows-1252"`.
    pub encoding: &'static str,
    /// How the encoding was chosen.
    pub method: DetectionMethod,
    /// Malformed sequences were replaced with U+FFFD.
    pub had_replacements: bool,
    /// What the format's reader found, when the text was read from a
    /// structured format (PDF, EPUB, HTML, …); `None` for plain text.
    pub book: Option<Box<BookFacts>>,
}

/// What a structured format's reader found besides the text.
#[derive(Debug, Clone, PartialEq)]
pub struct BookFacts {
    /// The format it was read from.
    pub format: doppel_formats::Format,
    /// Whether it was gzip-compressed.
    pub gzipped: bool,
    /// Where each page of the text starts, its label and image.
    pub pages: doppel_formats::PageMap,
    /// What the reader left out on purpose, in words.
    pub left_out: Vec<String>,
    /// The OCR engine's mean word confidence (0–1), when recorded.
    pub confidence: Option<f32>,
}

/// How [`decode`] chose the encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DetectionMethod {
    /// A byte-order mark named the encoding.
    Bom,
    /// The input was valid UTF-8 (no BOM).
    Utf8,
    /// No BOM, but the NUL-byte pattern looked like UTF-16 and the input
    /// decoded as UTF-16 without a single error.
    Utf16Heuristic,
    /// A guess: either nearly-valid UTF-8 decoded with replacement, or the
    /// encoding `chardetng` picked.
    Guessed,
    /// Read from a structured format (PDF, EPUB, HTML, …) whose reader
    /// decoded it.
    Format,
}

/// Why a file was not turned into text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum NotText {
    /// Zero bytes (or nothing but a byte-order mark).
    #[error("empty file")]
    Empty,
    /// Only whitespace/control characters after decoding: no letter or digit.
    #[error("blank: no words")]
    Blank,
    /// Not text: a known binary format, NUL bytes, or too many control
    /// characters. `what` is a short human-readable description.
    #[error("binary ({what})")]
    Binary {
        /// What it looks like ("PNG image", "NUL bytes", ...).
        what: String,
    },
    /// In a structured format (PDF, EPUB, ALTO, …) that gives no text:
    /// encrypted, damaged, a scan without a text layer, over a limit.
    #[error("{reason}")]
    Format {
        /// The format's reason, in words ("scanned PDF without a text
        /// layer: …").
        reason: String,
    },
}

/// How much of the input `chardetng` sees, and how much the UTF-16 heuristic
/// samples.
const SNIFF_BYTES: usize = 64 * 1024;

/// How many characters the control-character check looks at.
const CONTROL_SCAN_CHARS: usize = 64 * 1024;

/// Known binary signatures, checked (in order) against the start of the input
/// when there is no BOM.
const MAGIC: &[(&[u8], &str)] = &[
    (b"%PDF", "PDF"),
    (b"PK\x03\x04", "ZIP archive (EPUB/DOCX?)"),
    (b"PK\x05\x06", "ZIP archive (EPUB/DOCX?)"),
    (b"PK\x07\x08", "ZIP archive (EPUB/DOCX?)"),
    (b"\x89PNG", "PNG image"),
    (b"\xFF\xD8\xFF", "JPEG image"),
    (b"GIF87a", "GIF image"),
    (b"GIF89a", "GIF image"),
    (b"\x1F\x8B", "gzip-compressed"),
    (b"\x7FELF", "ELF executable"),
    (
        b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1",
        "OLE2 document (DOC/XLS?)",
    ),
    (b"7z\xBC\xAF\x27\x1C", "7-Zip archive"),
    (b"\xFD7zXZ\x00", "xz-compressed"),
    (b"\x28\xB5\x2F\xFD", "zstd-compressed"),
];

/// Turn a file's bytes into text, or say why it is not text.
///
/// # Detection
///
/// * **BOM.** A UTF-8, UTF-16LE or UTF-16BE byte-order mark decides the
///   encoding; the BOM is stripped and malformed sequences (e.g. unpaired
///   surrogates) become U+FFFD with `had_replacements` set.
/// * **Magic numbers.** Without a BOM, well-known binary signatures (`%PDF`,
///   `PK\x03\x04`, `\x89PNG`, `\xFF\xD8\xFF`, `GIF8xa`, `\x1F\x8B`, `\x7FELF`,
///   ...) are rejected as [`NotText::Binary`] before anything else.
/// * **BOM-less UTF-16 heuristic.** If the input has an even length of at
///   least 4 bytes, and (within the first 64 KiB) more than 30% of the
///   odd-indexed bytes are `0x00` while fewer than 5% of the even-indexed
///   bytes are, it is tried as UTF-16LE; the mirror image (zeros at even
///   indices) is tried as UTF-16BE. This is the pattern of mostly-Latin text
///   in UTF-16, whose high bytes are zero. The input is used as UTF-16 only if
///   it decodes *without a single error*; otherwise detection continues
///   below. Mostly non-Latin BOM-less UTF-16 (Cyrillic, CJK, ...) has too few
///   zero bytes to trip this and usually ends up rejected as binary.
/// * **UTF-8.** Valid UTF-8 is used as is.
/// * **Guess.** Input that is UTF-8 except for an incomplete character at the
///   very end (a truncated file), or whose valid multi-byte UTF-8 characters
///   outnumber its malformed sequences at least four to one (a UTF-8 file with
///   a few corrupt bytes), is decoded as UTF-8 with replacement: guessing a
///   legacy encoding there would garble every accented character. Anything
///   else is handed to `chardetng` (first 64 KiB, UTF-8 not allowed as a
///   guess) and decoded with replacement. `encoding_rs` follows WHATWG, so
///   ISO-8859-1 is decoded and recorded as `"windows-1252"`.
///
/// # Binary and blank policy (applied to the *decoded* text)
///
/// * Any U+0000 makes the input [`NotText::Binary`] (`"NUL bytes"`), wherever
///   it is: a single NUL as the very last byte of a 200 KB text file is
///   enough. Because the check runs after decoding, the zero bytes of UTF-16
///   text never count.
/// * If more than 10% of the first 64 Ki characters are control characters
///   (Unicode `Cc`: U+0001–U+001F, U+007F–U+009F) other than tab, line feed,
///   carriage return and form feed, the input is [`NotText::Binary`]
///   (`"control characters"`).
/// * Otherwise, text without a single alphanumeric character is
///   [`NotText::Blank`].
///
/// Never panics: memory for the decoded text that cannot be had is
/// [`DecodeError::Memory`] (a reader skips the file with the reason). For
/// BOM-less ASCII/UTF-8 input the work is one UTF-8 validation pass, one
/// copy, a `memchr`-style NUL search, and a byte-level control-character
/// scan of at most 64 KiB (plus a 64 KiB NUL-pattern sample for the UTF-16
/// heuristic).
pub fn decode(bytes: &[u8]) -> Result<Decoded, DecodeError> {
    if bytes.is_empty() {
        return Err(NotText::Empty.into());
    }
    let decoded = match detect_and_decode(bytes)? {
        Detected::Utf8 { skip, method } => {
            let mut text = Vec::new();
            text.try_reserve_exact(bytes.len() - skip)?;
            text.extend_from_slice(&bytes[skip..]);
            utf8(text, method)
        }
        Detected::Decoded(decoded) => decoded,
    };
    Ok(checked(decoded)?)
}

/// [`decode`] of bytes it may keep: valid UTF-8 (after a UTF-8 byte-order
/// mark or without one) becomes the text without a copy, and a decoded
/// text that cannot get memory is an error rather than the end of the
/// process.
pub fn decode_owned(bytes: Vec<u8>) -> Result<Decoded, DecodeError> {
    if bytes.is_empty() {
        return Err(NotText::Empty.into());
    }
    let book = match doppel_formats::read(bytes, &doppel_formats::Limits::default()) {
        Ok(doppel_formats::Read::Plain(bytes)) => return decode_plain(bytes),
        Ok(doppel_formats::Read::Book(book)) => book,
        Err(error) => {
            return Err(NotText::Format {
                reason: error.to_string(),
            }
            .into())
        }
    };
    Ok(checked(Decoded {
        text: book.text,
        encoding: UTF_8.name(),
        method: DetectionMethod::Format,
        had_replacements: false,
        book: Some(Box::new(BookFacts {
            format: book.format,
            gzipped: book.gzipped,
            pages: book.pages,
            left_out: book.left_out,
            confidence: book.confidence,
        })),
    })?)
}

/// [`decode_owned`] of bytes in no structured format.
fn decode_plain(mut bytes: Vec<u8>) -> Result<Decoded, DecodeError> {
    let decoded = match detect_and_decode(&bytes)? {
        Detected::Utf8 { skip, method } => {
            bytes.drain(..skip);
            utf8(bytes, method)
        }
        Detected::Decoded(decoded) => decoded,
    };
    Ok(checked(decoded)?)
}

/// Why [`decode_owned`] gave no text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The bytes are not text.
    #[error("{0}")]
    NotText(#[from] NotText),
    /// No memory for the decoded text.
    #[error("no memory for the decoded text")]
    Memory(#[from] TryReserveError),
}

/// Steps 7–8 on a decoded text (and a file holding nothing but a BOM).
fn checked(decoded: Decoded) -> Result<Decoded, NotText> {
    if decoded.text.is_empty() {
        return Err(NotText::Empty);
    }
    check_text(&decoded.text)?;
    Ok(decoded)
}

/// Valid UTF-8 bytes as a decoded text.
fn utf8(bytes: Vec<u8>, method: DetectionMethod) -> Decoded {
    Decoded {
        text: String::from_utf8(bytes).expect("checked to be UTF-8"),
        encoding: UTF_8.name(),
        method,
        had_replacements: false,
        book: None,
    }
}

/// What steps 2–6 found: text that is valid UTF-8 from byte `skip` on
/// (left to the caller, who may own the bytes), or a decoded text.
enum Detected {
    Utf8 {
        skip: usize,
        method: DetectionMethod,
    },
    Decoded(Decoded),
}

/// Steps 2–6: pick an encoding and decode.
fn detect_and_decode(bytes: &[u8]) -> Result<Detected, DecodeError> {
    // UTF-32 BOMs first: "FF FE 00 00" would otherwise be read as a UTF-16LE
    // BOM followed by U+0000.
    if bytes.starts_with(b"\xFF\xFE\x00\x00") || bytes.starts_with(b"\x00\x00\xFE\xFF") {
        return Err(binary("UTF-32 text (unsupported encoding)").into());
    }

    if let Some((encoding, bom_len)) = Encoding::for_bom(bytes) {
        if encoding == UTF_8 && std::str::from_utf8(&bytes[bom_len..]).is_ok() {
            return Ok(Detected::Utf8 {
                skip: bom_len,
                method: DetectionMethod::Bom,
            });
        }
        let (text, had_replacements) = decode_with(encoding, &bytes[bom_len..])?;
        return Ok(Detected::Decoded(Decoded {
            text,
            encoding: encoding.name(),
            method: DetectionMethod::Bom,
            had_replacements,
            book: None,
        }));
    }

    if let Some(what) = sniff_magic(bytes) {
        return Err(binary(what).into());
    }

    if let Some(encoding) = utf16_heuristic(bytes) {
        if let Some(text) = decode_without_replacement(encoding, bytes)? {
            return Ok(Detected::Decoded(Decoded {
                text,
                encoding: encoding.name(),
                method: DetectionMethod::Utf16Heuristic,
                had_replacements: false,
                book: None,
            }));
        }
    }

    let error = match std::str::from_utf8(bytes) {
        Ok(_) => {
            return Ok(Detected::Utf8 {
                skip: 0,
                method: DetectionMethod::Utf8,
            })
        }
        Err(error) => error,
    };

    // `error_len() == None`: everything is valid UTF-8 except an incomplete
    // character at the very end, i.e. a truncated UTF-8 file.
    if error.error_len().is_none() || mostly_utf8(bytes) {
        // WHATWG's UTF-8 decoder replaces the same maximal subparts as
        // `String::from_utf8_lossy` (a test holds it to that).
        let (text, _) = decode_with(UTF_8, bytes)?;
        return Ok(Detected::Decoded(Decoded {
            text,
            encoding: UTF_8.name(),
            method: DetectionMethod::Guessed,
            had_replacements: true,
            book: None,
        }));
    }

    let mut detector = chardetng::EncodingDetector::new();
    detector.feed(&bytes[..bytes.len().min(SNIFF_BYTES)], true);
    let encoding = detector.guess(None, false);
    let (text, had_replacements) = decode_with(encoding, bytes)?;
    Ok(Detected::Decoded(Decoded {
        text,
        encoding: encoding.name(),
        method: DetectionMethod::Guessed,
        had_replacements,
        book: None,
    }))
}

/// `bytes` in `encoding` (no BOM handling), malformed sequences replaced
/// with U+FFFD; whether any were.
fn decode_with(
    encoding: &'static Encoding,
    bytes: &[u8],
) -> Result<(String, bool), TryReserveError> {
    let mut decoder = encoding.new_decoder_without_bom_handling();
    let mut text = String::new();
    // Text decodes to about its length in UTF-8: start there and grow as
    // needed, rather than reserve the most it could take (three times the
    // bytes for a single-byte encoding) for a large file.
    text.try_reserve_exact(bytes.len() + bytes.len() / 16 + 16)?;
    let (mut rest, mut had_replacements) = (bytes, false);
    loop {
        let (result, read, replaced) = decoder.decode_to_string(rest, &mut text, true);
        had_replacements |= replaced;
        rest = &rest[read..];
        match result {
            encoding_rs::CoderResult::InputEmpty => return Ok((text, had_replacements)),
            encoding_rs::CoderResult::OutputFull => {
                text.try_reserve(rest.len().max(64))?;
            }
        }
    }
}

/// `bytes` in `encoding` (no BOM handling), `None` at the first malformed
/// sequence.
fn decode_without_replacement(
    encoding: &'static Encoding,
    bytes: &[u8],
) -> Result<Option<String>, TryReserveError> {
    let mut decoder = encoding.new_decoder_without_bom_handling();
    let mut text = String::new();
    let most = decoder
        .max_utf8_buffer_length_without_replacement(bytes.len())
        .unwrap_or(usize::MAX);
    text.try_reserve_exact(most)?;
    let (result, _) = decoder.decode_to_string_without_replacement(bytes, &mut text, true);
    Ok(matches!(result, encoding_rs::DecoderResult::InputEmpty).then_some(text))
}

fn binary(what: &str) -> NotText {
    NotText::Binary {
        what: what.to_owned(),
    }
}

fn sniff_magic(bytes: &[u8]) -> Option<&'static str> {
    MAGIC
        .iter()
        .find(|(magic, _)| bytes.starts_with(magic))
        .map(|&(_, what)| what)
}

/// The BOM-less UTF-16 heuristic described on [`decode`].
fn utf16_heuristic(bytes: &[u8]) -> Option<&'static Encoding> {
    if bytes.len() < 4 || !bytes.len().is_multiple_of(2) {
        return None;
    }
    // SNIFF_BYTES is even, so the sample stays aligned to code units.
    let sample = &bytes[..bytes.len().min(SNIFF_BYTES)];
    // Neither side can be 30% zeros without a zero (most files).
    if !sample.contains(&0) {
        return None;
    }
    let units = sample.len() / 2;
    let (mut even_zeros, mut odd_zeros) = (0usize, 0usize);
    for unit in sample.chunks_exact(2) {
        even_zeros += usize::from(unit[0] == 0);
        odd_zeros += usize::from(unit[1] == 0);
    }
    let many = |zeros: usize| zeros * 10 > units * 3; // > 30%
    let few = |zeros: usize| zeros * 20 < units; // < 5%
    if many(odd_zeros) && few(even_zeros) {
        Some(UTF_16LE)
    } else if many(even_zeros) && few(odd_zeros) {
        Some(UTF_16BE)
    } else {
        None
    }
}

/// Invalid UTF-8 whose valid multi-byte characters outnumber its malformed
/// sequences at least four to one. Legacy single- and double-byte encodings
/// almost never form valid multi-byte UTF-8 sequences that often.
fn mostly_utf8(bytes: &[u8]) -> bool {
    let mut malformed = 0usize;
    let mut multibyte = 0usize;
    for chunk in bytes.utf8_chunks() {
        // Lead bytes of multi-byte characters.
        multibyte += chunk.valid().bytes().filter(|&b| b >= 0xC0).count();
        malformed += usize::from(!chunk.invalid().is_empty());
    }
    malformed > 0 && multibyte >= malformed * 4
}

/// Steps 7–8: the binary and blank policies.
fn check_text(text: &str) -> Result<(), NotText> {
    let bytes = text.as_bytes();
    // U+0000 is the byte 0x00 in UTF-8, and no other character contains it.
    if bytes.contains(&0) {
        return Err(binary("NUL bytes"));
    }
    if too_many_controls(bytes) {
        return Err(binary("control characters"));
    }
    let has_word = if text.is_ascii() {
        bytes.iter().any(u8::is_ascii_alphanumeric)
    } else {
        text.chars().any(char::is_alphanumeric)
    };
    if !has_word {
        return Err(NotText::Blank);
    }
    Ok(())
}

/// More than 10% of the first [`CONTROL_SCAN_CHARS`] characters are control
/// characters other than `\t`, `\n`, `\r` and form feed. Works on the UTF-8
/// bytes: C0 controls and DEL are single bytes, C1 controls (U+0080–U+009F)
/// are `0xC2 0x80..=0x9F`.
fn too_many_controls(utf8: &[u8]) -> bool {
    let (controls, chars) = control_count(utf8);
    controls * 10 > chars
}

/// The control characters [`too_many_controls`] counts, and the characters
/// it counts them among.
fn control_count(utf8: &[u8]) -> (usize, usize) {
    let scanned = first_chars(utf8, CONTROL_SCAN_CHARS);
    // Counted a pass at a time, each a loop the compiler vectorizes (a
    // byte-at-a-time loop was most of decoding a file).
    let chars = count_bytes(scanned, |b| b & 0xC0 != 0x80);
    // `&` and `|`, not `&&` and `||`: no branch in the loop.
    let c0 = count_bytes(scanned, |b| {
        (b < 0x20) & (b != b'\t') & (b != b'\n') & (b != b'\r') & (b != 0x0C) | (b == 0x7F)
    });
    // A C1 control's second byte is a continuation byte: within `scanned`
    // whenever its first is.
    let c1 = match scanned.is_ascii() {
        true => 0,
        false => memchr::memchr_iter(0xC2, scanned)
            .filter(|&i| matches!(scanned.get(i + 1), Some(0x80..=0x9F)))
            .count(),
    };
    (c0 + c1, chars)
}

/// How many of `bytes` are `counted`: summed as bytes a block at a time,
/// which vectorizes when `counted` has no branch.
fn count_bytes(bytes: &[u8], counted: impl Fn(u8) -> bool) -> usize {
    bytes
        .chunks(255)
        .map(|block| usize::from(block.iter().map(|&b| u8::from(counted(b))).sum::<u8>()))
        .sum()
}

/// The bytes of the first `n` characters of UTF-8 `utf8` (all of it when
/// it has no more).
fn first_chars(utf8: &[u8], n: usize) -> &[u8] {
    if utf8.len() <= n || utf8[..n].is_ascii() {
        return &utf8[..utf8.len().min(n)];
    }
    let mut chars = 0;
    for (i, &b) in utf8.iter().enumerate() {
        if b & 0xC0 != 0x80 {
            if chars == n {
                return &utf8[..i];
            }
            chars += 1;
        }
    }
    utf8
}

#[cfg(test)]
mod tests;
