//! The same text saved in any encoding, with any line ends, gets identical
//! fingerprints from every algorithm; OCR hyphenation and ligatures do not
//! change them either.

use doppel_core::engine::text::decode::decode;
use doppel_core::engine::{Engine, Fingerprints};

const TEXT: &str = "Chapitre premier. Le café était plein; la serveuse, très élégante, \
portait un chapeau à plumes. « Où est passé le garçon ? » demanda-t-elle. \
Personne ne répondit: on entendait la mer, et le vent qui soufflait sur la côte.\n\
Il était une fois, dans une ville lointaine, une vieille dame qui cultivait des \
roses et des œillets dans un jardin caché derrière l'église. Ses voisins, curieux, \
se demandaient d'où venaient ses graines; elle ne répondait jamais.\n";

fn fingerprints(engine: &Engine, bytes: &[u8]) -> Fingerprints {
    let decoded = decode(bytes).expect("text decodes");
    engine
        .fingerprint(&engine.analyze(&decoded.text), engine.reference_weights())
        .unwrap()
}

fn utf16(text: &str, big_endian: bool) -> Vec<u8> {
    let mut out = if big_endian {
        vec![0xfe, 0xff]
    } else {
        vec![0xff, 0xfe]
    };
    for unit in text.encode_utf16() {
        out.extend(if big_endian {
            unit.to_be_bytes()
        } else {
            unit.to_le_bytes()
        });
    }
    out
}

#[test]
fn every_encoding_and_line_end_gives_identical_fingerprints() {
    let engine = Engine::default();
    let reference = fingerprints(&engine, TEXT.as_bytes());
    assert!(
        reference.exact.flatten().is_some(),
        "the text has a fingerprint"
    );
    let crlf = TEXT.replace('\n', "\r\n");
    let (cp1252, _, unmappable) = encoding_rs::WINDOWS_1252.encode(TEXT);
    assert!(!unmappable);
    let latin1_text = TEXT.replace('œ', "oe").replace(['«', '»'], "\"");
    let latin1: Vec<u8> = latin1_text
        .chars()
        .map(|c| u8::try_from(u32::from(c)).unwrap())
        .collect();
    let variants: Vec<(&str, Vec<u8>)> = vec![
        (
            "UTF-8 + BOM",
            [b"\xef\xbb\xbf".as_slice(), TEXT.as_bytes()].concat(),
        ),
        ("UTF-16LE", utf16(TEXT, false)),
        ("UTF-16BE", utf16(TEXT, true)),
        ("windows-1252", cp1252.into_owned()),
        ("CRLF", crlf.into_bytes()),
        ("UTF-16LE + CRLF", utf16(&TEXT.replace('\n', "\r\n"), false)),
    ];
    for (name, bytes) in variants {
        assert_eq!(
            fingerprints(&engine, &bytes),
            reference,
            "{name} differs from UTF-8"
        );
    }
    // Latin-1 cannot hold œ « », so it is compared with its own UTF-8 twin.
    assert_eq!(
        fingerprints(&engine, &latin1),
        fingerprints(&engine, latin1_text.as_bytes()),
        "ISO-8859-1 differs from UTF-8"
    );
}

#[test]
fn ocr_hyphenation_and_ligatures_do_not_change_fingerprints() {
    let engine = Engine::default();
    let clean = "The library digitized the first edition of the flight manual in spring.";
    let ocr = "The  library digi-\r\ntized the ﬁrst edition of the ﬂight man-\nual in spring.";
    let a = fingerprints(&engine, clean.as_bytes());
    let b = fingerprints(&engine, ocr.as_bytes());
    assert_eq!(a, b);
}

#[test]
fn a_changed_word_changes_the_exact_signature() {
    let engine = Engine::default();
    let a = fingerprints(&engine, TEXT.as_bytes());
    let b = fingerprints(&engine, TEXT.replace("roses", "tulipes").as_bytes());
    assert_ne!(a.exact, b.exact);
}
