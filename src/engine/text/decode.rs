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
#[derive(Debug, Clone, PartialEq, Eq)]
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
        /// What it looks like ("PDF", "NUL bytes", ...).
        what: String,
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
/// Never panics. For BOM-less ASCII/UTF-8 input the work is one UTF-8
/// validation pass, one copy, a `memchr`-style NUL search, and a byte-level
/// control-character scan of at most 64 KiB (plus a 64 KiB NUL-pattern
/// sample for the UTF-16 heuristic).
pub fn decode(bytes: &[u8]) -> Result<Decoded, NotText> {
    let memory = |e: DecodeError| match e {
        DecodeError::NotText(reason) => reason,
        DecodeError::Memory(e) => panic!("memory for a decoded text: {e}"),
    };
    if bytes.is_empty() {
        return Err(NotText::Empty);
    }
    let decoded = match detect_and_decode(bytes).map_err(memory)? {
        Detected::Utf8 { skip, method } => utf8(bytes[skip..].to_vec(), method),
        Detected::Decoded(decoded) => decoded,
    };
    checked(decoded)
}

/// [`decode`] of bytes it may keep: valid UTF-8 (after a UTF-8 byte-order
/// mark or without one) becomes the text without a copy, and a decoded
/// text that cannot get memory is an error rather than the end of the
/// process.
pub fn decode_owned(mut bytes: Vec<u8>) -> Result<Decoded, DecodeError> {
    if bytes.is_empty() {
        return Err(NotText::Empty.into());
    }
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
    let mut chars = 0usize;
    let mut controls = 0usize;
    for (i, &b) in utf8.iter().enumerate() {
        if b & 0xC0 != 0x80 {
            if chars == CONTROL_SCAN_CHARS {
                break;
            }
            chars += 1;
        }
        match b {
            b'\t' | b'\n' | b'\r' | 0x0C => {}
            0x00..=0x1F | 0x7F => controls += 1,
            0xC2 if matches!(utf8.get(i + 1), Some(0x80..=0x9F)) => controls += 1,
            _ => {}
        }
    }
    controls * 10 > chars
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// French with characters only windows-1252 (not ISO-8859-1) has: œ ’ « ».
    const FRENCH: &str = "« Le cœur a ses raisons que la raison ne connaît point », \
        écrivait Pascal. À la fin de l’été, Françoise était allée à la côte \
        près de Saint-Malo ; elle y avait retrouvé sa sœur aînée, qui habitait \
        une maison où l’on voyait la mer depuis chaque fenêtre. Elles ont \
        mangé des crêpes, bu du cidre et parlé de leur enfance à Besançon, \
        où leur mère réparait des horloges dans un atelier près du théâtre. \
        « Tu te souviens du garçon qui jouait du hautbois ? » demanda-t-elle. \
        Ça faisait bien longtemps ; même l’hôtel de la gare avait fermé.";

    /// French with ISO-8859-1 characters only (é è à ç ô, no œ ’ « »).
    const FRENCH_LATIN1: &str = "À la fin de l'été, Françoise était allée à la \
        côte près de Saint-Malo ; elle y avait retrouvé sa cousine aînée, \
        qui habitait une maison où l'on voyait la mer depuis chaque fenêtre. Elles \
        ont mangé des crêpes, bu du cidre et parlé de leur enfance à Besançon, \
        où leur mère réparait des horloges dans un atelier près du théâtre. \
        \"Tu te souviens du garçon qui jouait du hautbois ?\" demanda-t-elle. \
        Ça faisait bien longtemps ; même l'hôtel de la gare avait fermé, et le \
        café du port ne servait plus que des glaces à la pistache.";

    fn utf16(text: &str, big_endian: bool, bom: bool) -> Vec<u8> {
        let mut out = Vec::new();
        let units = bom.then_some(0xFEFF).into_iter().chain(text.encode_utf16());
        for unit in units {
            let pair = if big_endian {
                unit.to_be_bytes()
            } else {
                unit.to_le_bytes()
            };
            out.extend_from_slice(&pair);
        }
        out
    }

    fn latin1(text: &str) -> Vec<u8> {
        text.chars()
            .map(|c| u8::try_from(u32::from(c)).expect("not a Latin-1 character"))
            .collect()
    }

    fn ok(bytes: &[u8]) -> Decoded {
        decode(bytes).unwrap_or_else(|e| panic!("expected text, got {e:?}"))
    }

    fn binary_what(bytes: &[u8]) -> String {
        match decode(bytes) {
            Err(NotText::Binary { what }) => what,
            other => panic!("expected binary, got {other:?}"),
        }
    }

    #[test]
    fn same_french_paragraph_in_every_unicode_and_windows_encoding() {
        // Sanity: the paragraph really needs windows-1252 beyond Latin-1.
        assert!(FRENCH.len() >= 400);
        for c in ['é', 'è', 'à', 'ç', 'ô', 'œ', '’', '«', '»'] {
            assert!(FRENCH.contains(c), "paragraph lacks {c}");
        }

        let (cp1252, _, unmappable) = encoding_rs::WINDOWS_1252.encode(FRENCH);
        assert!(!unmappable);
        let mut utf8_bom = b"\xEF\xBB\xBF".to_vec();
        utf8_bom.extend_from_slice(FRENCH.as_bytes());

        let cases: [(&str, Vec<u8>, &str, DetectionMethod); 5] = [
            (
                "UTF-8",
                FRENCH.as_bytes().to_vec(),
                "UTF-8",
                DetectionMethod::Utf8,
            ),
            ("UTF-8+BOM", utf8_bom, "UTF-8", DetectionMethod::Bom),
            (
                "UTF-16LE+BOM",
                utf16(FRENCH, false, true),
                "UTF-16LE",
                DetectionMethod::Bom,
            ),
            (
                "UTF-16BE+BOM",
                utf16(FRENCH, true, true),
                "UTF-16BE",
                DetectionMethod::Bom,
            ),
            (
                "windows-1252",
                cp1252.into_owned(),
                "windows-1252",
                DetectionMethod::Guessed,
            ),
        ];
        for (label, bytes, encoding, method) in cases {
            let d = ok(&bytes);
            assert_eq!(d.text, FRENCH, "{label}: text differs");
            assert_eq!(d.encoding, encoding, "{label}: encoding");
            assert_eq!(d.method, method, "{label}: method");
            assert!(!d.had_replacements, "{label}: replacements");
        }
    }

    /// Every way of choosing an encoding: decoding bytes it may keep gives
    /// what decoding borrowed bytes gives.
    #[test]
    fn owned_decoding_equals_decoding_borrowed_in_every_encoding() {
        let (cp1252, _, _) = encoding_rs::WINDOWS_1252.encode(FRENCH);
        let mut utf8_bom = b"\xEF\xBB\xBF".to_vec();
        utf8_bom.extend_from_slice(FRENCH.as_bytes());
        let mut broken_bom = utf8_bom.clone();
        broken_bom.push(0xff);
        let mut nearly_utf8 = FRENCH.as_bytes().to_vec();
        nearly_utf8.insert(40, 0xff);
        let cases = [
            FRENCH.as_bytes().to_vec(),
            utf8_bom,
            broken_bom,
            nearly_utf8,
            utf16(FRENCH, false, true),
            utf16(FRENCH, true, true),
            utf16(FRENCH, false, false),
            utf16(FRENCH, true, false),
            cp1252.into_owned(),
            latin1(FRENCH_LATIN1),
        ];
        for bytes in cases {
            let whole = ok(&bytes);
            assert_eq!(decode_owned(bytes).unwrap(), whole);
        }
    }

    /// A single-byte text that is all accents decodes to twice its length
    /// in UTF-8, past the room first reserved: the text grows and is whole.
    #[test]
    fn a_decoded_text_longer_than_first_reserved_grows_to_the_whole() {
        let accents = "é à ç ".repeat(5_000);
        let (bytes, _, _) = encoding_rs::WINDOWS_1252.encode(&accents);
        let (text, replaced) = decode_with(encoding_rs::WINDOWS_1252, &bytes).unwrap();
        assert!(text.len() > bytes.len() + bytes.len() / 16 + 16);
        assert_eq!((text.as_str(), replaced), (accents.as_str(), false));
    }

    #[test]
    fn iso_8859_1_paragraph_decodes_identically_and_is_recorded_as_windows_1252() {
        assert!(FRENCH_LATIN1.len() >= 400);
        let bytes = latin1(FRENCH_LATIN1);
        let d = ok(&bytes);
        assert_eq!(d.text, FRENCH_LATIN1);
        assert_eq!(d.encoding, "windows-1252");
        assert_eq!(d.method, DetectionMethod::Guessed);
        assert!(!d.had_replacements);
        // And the same paragraph as UTF-8 gives the same text.
        assert_eq!(ok(FRENCH_LATIN1.as_bytes()).text, d.text);
    }

    #[test]
    fn crlf_and_every_character_survive_decoding() {
        let text = "Première ligne\r\nDeuxième ligne\r\n\r\nTroisième\tligne\x0c\r\n";
        assert_eq!(ok(text.as_bytes()).text, text);
        assert_eq!(ok(&utf16(text, false, true)).text, text);
        let (cp1252, _, _) = encoding_rs::WINDOWS_1252.encode(text);
        assert_eq!(ok(&cp1252).text, text);
    }

    #[test]
    fn bomless_utf16_english_uses_the_heuristic_deterministically() {
        let text = "The quick brown fox jumps over the lazy dog.\r\nTwice, in fact.";
        for (big_endian, encoding) in [(false, "UTF-16LE"), (true, "UTF-16BE")] {
            let bytes = utf16(text, big_endian, false);
            let first = ok(&bytes);
            assert_eq!(first.text, text);
            assert_eq!(first.encoding, encoding);
            assert_eq!(first.method, DetectionMethod::Utf16Heuristic);
            assert!(!first.had_replacements);
            assert_eq!(ok(&bytes), first, "not deterministic");
        }
        // Short but still over the 4-byte minimum.
        assert_eq!(ok(b"h\0i\0").text, "hi");
    }

    #[test]
    fn utf16le_bom_with_unpaired_surrogate_is_replaced_not_panicking() {
        let mut bytes = utf16("broken ", false, true);
        bytes.extend_from_slice(&0xD800u16.to_le_bytes()); // lone high surrogate
        bytes.extend_from_slice(&utf16(" pair", false, false));
        let d = ok(&bytes);
        assert_eq!(d.text, "broken \u{FFFD} pair");
        assert!(d.had_replacements);
        assert_eq!(d.method, DetectionMethod::Bom);
        assert_eq!(d.encoding, "UTF-16LE");
    }

    #[test]
    fn ascii_with_one_stray_ff_still_decodes_the_rest() {
        let mut bytes = b"Plain English text, then a stray byte: ".to_vec();
        bytes.push(0xFF);
        bytes.extend_from_slice(b" and the rest of the sentence survives.");
        let d = ok(&bytes);
        assert_ne!(d.method, DetectionMethod::Utf8);
        assert!(d
            .text
            .starts_with("Plain English text, then a stray byte: "));
        assert!(d.text.ends_with(" and the rest of the sentence survives."));
        assert_eq!(ok(&bytes), d, "not deterministic");
    }

    #[test]
    fn utf8_with_one_stray_ff_keeps_its_accents() {
        // Guessing a legacy encoding here would turn every "é" into "Ã©".
        let at = FRENCH
            .char_indices()
            .map(|(i, _)| i)
            .find(|&i| i >= 200)
            .unwrap();
        let mut bytes = FRENCH.as_bytes().to_vec();
        bytes.insert(at, 0xFF);
        let d = ok(&bytes);
        assert_eq!(d.method, DetectionMethod::Guessed);
        assert_eq!(d.encoding, "UTF-8");
        assert!(d.had_replacements);
        let mut expected = FRENCH.to_owned();
        expected.insert(at, '\u{FFFD}');
        assert_eq!(d.text, expected);
        assert_eq!(ok(&bytes), d, "not deterministic");
    }

    #[test]
    fn utf8_truncated_mid_character_keeps_its_accents() {
        let mut bytes = FRENCH.as_bytes().to_vec();
        bytes.extend_from_slice("é".as_bytes().split_last().unwrap().1); // half an "é"
        let d = ok(&bytes);
        assert_eq!(d.encoding, "UTF-8");
        assert!(d.had_replacements);
        assert_eq!(d.text, format!("{FRENCH}\u{FFFD}"));
    }

    #[test]
    fn binary_headers_are_named() {
        let cases: [(&[u8], &str); 7] = [
            (b"%PDF-1.4\n%\xE2\xE3\xCF\xD3\n1 0 obj\n", "PDF"),
            (b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", "PNG image"),
            (
                b"PK\x03\x04\x14\0\0\0\x08\0mimetypeapplication/epub+zip",
                "ZIP archive (EPUB/DOCX?)",
            ),
            (b"\x1f\x8b\x08\0\0\0\0\0\0\x03", "gzip-compressed"),
            (b"\xFF\xD8\xFF\xE0\0\x10JFIF\0", "JPEG image"),
            (b"GIF89a\x01\0\x01\0", "GIF image"),
            (b"\x7fELF\x02\x01\x01\0", "ELF executable"),
        ];
        for (bytes, what) in cases {
            assert_eq!(binary_what(bytes), what);
        }
        assert_eq!(decode(b"%PDF-1.7").unwrap_err().to_string(), "binary (PDF)");
    }

    #[test]
    fn a_single_nul_anywhere_makes_200kb_of_text_binary() {
        let line = "All work and no play makes Jack a dull boy.\n";
        let text: String = line.repeat(200_000 / line.len() + 1);
        let mut bytes = text.into_bytes();
        bytes.truncate(200_000);
        assert!(ok(&bytes).text.len() == 200_000);

        let mut middle = bytes.clone();
        middle[150_000] = 0;
        assert_eq!(binary_what(&middle), "NUL bytes");

        let mut last = bytes;
        *last.last_mut().unwrap() = 0;
        assert_eq!(binary_what(&last), "NUL bytes");
    }

    #[test]
    fn control_character_soup_is_binary_but_a_few_are_fine() {
        let soup: Vec<u8> = (0..1000u32)
            .map(|i| if i % 4 == 0 { 0x01 } else { b'a' })
            .collect();
        assert_eq!(binary_what(&soup), "control characters");
        // Tabs, newlines, CR and form feeds never count; a rare ESC is fine.
        let fine = "col1\tcol2\r\n\x0cpage two \x1b[1mbold\x1b[0m and more words here\n";
        assert_eq!(ok(fine.as_bytes()).text, fine);
        // C1 controls (U+0080..U+009F) count too.
        let c1: String = "\u{85}\u{9c}a".repeat(50);
        assert_eq!(binary_what(c1.as_bytes()), "control characters");
    }

    #[test]
    fn empty_and_blank() {
        assert_eq!(decode(b""), Err(NotText::Empty));
        assert_eq!(decode(b"\xEF\xBB\xBF"), Err(NotText::Empty));
        assert_eq!(decode(b"  \n\t "), Err(NotText::Blank));
        assert_eq!(decode("\u{3000} \u{a0}…".as_bytes()), Err(NotText::Blank));
        assert_eq!(decode(b"  x  ").map(|d| d.text), Ok("  x  ".to_owned()));
    }

    #[test]
    fn utf32_is_reported_not_misread() {
        let mut bytes = b"\xFF\xFE\0\0".to_vec();
        for c in "hello".chars() {
            bytes.extend_from_slice(&u32::from(c).to_le_bytes());
        }
        assert_eq!(binary_what(&bytes), "UTF-32 text (unsupported encoding)");
    }

    #[test]
    fn not_text_serializes_with_a_kind_tag() {
        let json = |n: &NotText| serde_json::to_string(n).unwrap();
        assert_eq!(json(&NotText::Empty), r#"{"kind":"empty"}"#);
        assert_eq!(json(&NotText::Blank), r#"{"kind":"blank"}"#);
        assert_eq!(
            json(&binary("PNG image")),
            r#"{"kind":"binary","what":"PNG image"}"#
        );
        assert_eq!(
            serde_json::to_string(&DetectionMethod::Utf16Heuristic).unwrap(),
            r#""utf16-heuristic""#
        );
    }

    fn texty_bytes() -> impl Strategy<Value = Vec<u8>> {
        let prefix = prop_oneof![
            Just(Vec::new()),
            Just(b"\xEF\xBB\xBF".to_vec()),
            Just(b"\xFF\xFE".to_vec()),
            Just(b"\xFE\xFF".to_vec()),
        ];
        let byte = prop_oneof![
            6 => proptest::char::range('a', 'z').prop_map(|c| c as u8),
            2 => Just(b' '),
            1 => Just(0u8),
            1 => any::<u8>(),
        ];
        (prefix, proptest::collection::vec(byte, 0..2048)).prop_map(|(mut p, rest)| {
            p.extend(rest);
            p
        })
    }

    fn check_invariants(bytes: &[u8]) -> Result<(), TestCaseError> {
        let first = decode(bytes);
        if let Ok(d) = &first {
            prop_assert!(!d.text.contains('\0'), "U+0000 in decoded text");
            prop_assert!(d.text.chars().any(char::is_alphanumeric));
        }
        prop_assert_eq!(decode(bytes), first, "not deterministic");
        Ok(())
    }

    proptest! {
        #[test]
        fn never_panics_and_never_returns_nul(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
            check_invariants(&bytes)?;
        }

        /// Decoding bytes it may keep gives what decoding borrowed bytes
        /// gives.
        #[test]
        fn owned_decoding_equals_decoding_borrowed(
            bytes in prop_oneof![texty_bytes(), proptest::collection::vec(any::<u8>(), 0..600)],
        ) {
            let whole = decode(&bytes);
            prop_assert_eq!(decode_owned(bytes), whole.map_err(DecodeError::from));
        }

        /// The guessed-UTF-8 path's decoder replaces what the standard
        /// library's lossy conversion replaces.
        #[test]
        fn whatwg_utf8_replacement_is_the_standard_librarys(
            bytes in proptest::collection::vec(prop_oneof![any::<u8>(), 0x80u8..0xc0, 0xe0u8..0xf5, Just(b'a')], 0..200),
        ) {
            let (text, _) = decode_with(UTF_8, &bytes).unwrap();
            prop_assert_eq!(text, String::from_utf8_lossy(&bytes));
        }

        #[test]
        fn never_panics_on_text_like_bytes(bytes in texty_bytes()) {
            check_invariants(&bytes)?;
        }
    }
}
