//! Decoding tests: encodings guessed and refused, BOMs, UTF-16 without
//! one, binary magic, control characters, and properties over any bytes.

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
        Err(DecodeError::NotText(NotText::Binary { what })) => what,
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
    assert_eq!(decode(b""), Err(NotText::Empty.into()));
    assert_eq!(decode(b"\xEF\xBB\xBF"), Err(NotText::Empty.into()));
    assert_eq!(decode(b"  \n\t "), Err(NotText::Blank.into()));
    assert_eq!(
        decode("\u{3000} \u{a0}…".as_bytes()),
        Err(NotText::Blank.into())
    );
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
        prop_assert_eq!(decode_owned(bytes), whole);
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

/// The definition [`control_count`] counts by, a byte at a time.
fn controls_byte_by_byte(utf8: &[u8]) -> (usize, usize) {
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
    (controls, chars)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Counted in passes, the control characters are those counted a byte
    /// at a time, among as many characters: in short texts, and where the
    /// first 64 Ki characters end among ASCII, multi-byte characters and
    /// controls (C0, DEL, C1), at ratios near the 10 % line.
    #[test]
    fn control_counts_equal_the_byte_at_a_time_definition(
        unit in prop_oneof![
            Just("\u{1}aaaaaaaa"), Just("\u{1}aaaaaaaaa"), Just("\u{85}ééééééééé"),
            Just("\u{7f}aaaaaaaaaé"), Just("\tabc"), Just("aé€𝄞"),
        ],
        before in prop_oneof![Just(0usize), (CONTROL_SCAN_CHARS - 300)..(CONTROL_SCAN_CHARS + 30)],
        pieces in proptest::collection::vec(
            prop_oneof![Just("a"), Just("é"), Just("\u{85}"), Just("\u{9f}"), Just("\u{a0}"),
                Just("\u{1}"), Just("\u{7f}"), Just("\n"), Just("€"), Just("𝄞")],
            0..400,
        ),
    ) {
        let unit_chars = unit.chars().count();
        let mut text = unit.repeat(before / unit_chars);
        text.extend(unit.chars().take(before % unit_chars));
        text.push_str(&pieces.concat());
        let bytes = text.as_bytes();
        prop_assert_eq!(control_count(bytes), controls_byte_by_byte(bytes));
    }
}
