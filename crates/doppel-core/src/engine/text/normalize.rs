//! Normalization: the single definition of "the same text" in doppel.
//!
//! Two files whose normalized text is equal get identical fingerprints, so the
//! rules here decide which differences a curator never wants to see:
//!
//! 1. Words hyphenated across a line end are joined (`digi-\ntized` →
//!    `digitized`), whatever the line end (`\n`, `\r\n`, `\r`) and any spaces
//!    around it; a soft hyphen (U+00AD) is dropped wherever it stands.
//! 2. Unicode NFKC: ligatures (`ﬁ` → `fi`), full-width forms, non-breaking
//!    spaces and other compatibility characters fold to their plain forms.
//! 3. Case folding: Unicode lowercase, plus `ß` → `ss` and final `ς` → `σ`,
//!    the two folds that lowercase alone misses in common texts.
//! 4. Typographic apostrophes (`’`, `‘`, `ʼ`) become `'` so `don’t` = `don't`;
//!    the byte-order mark and zero-width characters are dropped.
//! 5. Every run of whitespace (including line ends and form feeds) becomes
//!    one space; leading and trailing whitespace is removed.
//!
//! Pure-ASCII input skips NFKC (it is the identity there) and takes a
//! byte-level fast path with exactly the same result; other text gets NFKC
//! only in the chunks between ASCII whitespace that need it.

use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};

/// Normalize decoded text (see the module documentation for the rules).
pub fn normalize(text: &str) -> String {
    let joined = join_line_end_hyphens(text);
    if joined.is_ascii() {
        fold_str(&joined)
    } else {
        fold_by_chunks(&joined)
    }
}

/// Case folding and whitespace collapsing with NFKC applied only where it
/// can change something. ASCII whitespace is a stable code point (a starter
/// that no canonical composition starts or ends with), so NFKC of the whole
/// text is NFKC of each chunk between ASCII whitespace, concatenated: one
/// rare character (a `´`, a polytonic Greek word) costs its chunk the NFKC
/// machinery, not the whole book. Most chunks with non-ASCII characters
/// (curly quotes, dashes, accents) are already in NFKC, which the quick
/// check confirms, and are folded as they are.
fn fold_by_chunks(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut folder = Folder::with_capacity(text.len());
    // `bytes[..done]` has been folded.
    let mut done = 0;
    while let Some(offset) = bytes[done..].iter().position(|b| !b.is_ascii()) {
        let first = done + offset;
        let start = bytes[done..first]
            .iter()
            .rposition(u8::is_ascii_whitespace)
            .map_or(done, |n| done + n + 1);
        let end = bytes[first..]
            .iter()
            .position(u8::is_ascii_whitespace)
            .map_or(bytes.len(), |n| first + n);
        folder.push_ascii(&bytes[done..start]);
        let chunk = &text[start..end];
        if is_nfkc_quick(chunk.chars()) == IsNormalized::Yes {
            folder.push_folded(chunk);
        } else {
            for c in chunk.nfkc() {
                folder.push(c);
            }
        }
        done = end;
    }
    folder.push_ascii(&bytes[done..]);
    folder.finish()
}

/// [`normalize`] for text that
/// [`fused_segmentable`](crate::engine::text::fused::fused_segmentable) accepts:
/// ASCII plus punctuation that NFKC leaves alone, and U+00A0, which NFKC
/// makes a space and folding treats as whitespace anyway. Skips the NFKC
/// check; the result is the same.
pub fn normalize_fused(text: &str) -> String {
    fold_str(&join_line_end_hyphens(text))
}

/// Case folding and whitespace collapsing over text needing no NFKC.
fn fold_str(text: &str) -> String {
    let mut folder = Folder::with_capacity(text.len());
    folder.push_folded(text);
    folder.finish()
}

/// What each ASCII byte folds to: whitespace to a space, capitals to
/// lowercase, the rest to itself.
const ASCII_FOLD: [u8; 128] = {
    let mut table = [0u8; 128];
    let mut b = 0;
    while b < 128 {
        let byte = b as u8;
        table[b] = if byte.is_ascii_whitespace() || byte == 0x0b {
            b' '
        } else {
            byte.to_ascii_lowercase()
        };
        b += 1;
    }
    table
};

/// The folding rules, fed one character (or ASCII run) at a time. A space
/// is written when whitespace follows output that does not already end in
/// one, and a trailing space is dropped at the end.
struct Folder {
    out: Vec<u8>,
}

impl Folder {
    fn with_capacity(n: usize) -> Self {
        Self {
            out: Vec::with_capacity(n),
        }
    }

    fn finish(mut self) -> String {
        if self.out.last() == Some(&b' ') {
            self.out.pop();
        }
        String::from_utf8(self.out).expect("folding writes whole characters")
    }

    #[inline]
    fn space(&mut self) {
        if self.out.last().is_some_and(|&b| b != b' ') {
            self.out.push(b' ');
        }
    }

    /// A run of ASCII bytes, folded without a branch per byte: every byte
    /// is written, and the write position advances unless the byte is
    /// whitespace right after whitespace (or at the start).
    fn push_ascii(&mut self, run: &[u8]) {
        let start = self.out.len();
        let mut last_space = self.out.last().is_none_or(|&b| b == b' ');
        self.out.resize(start + run.len(), 0);
        let mut n = start;
        for &b in run {
            let folded = ASCII_FOLD[usize::from(b)];
            let space = folded == b' ';
            self.out[n] = folded;
            n += usize::from(!(space && last_space));
            last_space = space;
        }
        self.out.truncate(n);
    }

    /// Text needing no NFKC; runs of ASCII are folded in bulk.
    fn push_folded(&mut self, text: &str) {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let run_end = bytes[i..]
                .iter()
                .position(|b| !b.is_ascii())
                .map_or(bytes.len(), |n| i + n);
            self.push_ascii(&bytes[i..run_end]);
            i = run_end;
            if let Some(c) = text[i..].chars().next() {
                self.push(c);
                i += c.len_utf8();
            }
        }
    }

    fn push_str(&mut self, s: &str) {
        self.out.extend_from_slice(s.as_bytes());
    }

    fn push_char(&mut self, c: char) {
        let mut buf = [0u8; 4];
        self.push_str(c.encode_utf8(&mut buf));
    }

    fn push(&mut self, c: char) {
        if c.is_whitespace() {
            return self.space();
        }
        if c.is_ascii() {
            return self.push_ascii(&[c as u8]);
        }
        if matches!(
            c,
            '\u{ad}' | '\u{feff}' | '\u{200b}' | '\u{200c}' | '\u{200d}' | '\u{2060}'
        ) {
            return;
        }
        match c {
            '\u{2018}' | '\u{2019}' | '\u{02bc}' => self.out.push(b'\''),
            'ß' | 'ẞ' => self.push_str("ss"),
            'ς' => self.push_str("σ"),
            c => c.to_lowercase().for_each(|l| self.push_char(l)),
        }
    }
}

/// Where a word hyphenated across a line end resumes, by rule 1: for the
/// hyphen (`-` or a soft hyphen) at byte `hyphen` of `text`, the byte of
/// the letter after it when a letter comes before the hyphen and only
/// spaces or tabs, one line end (`\n`, `\r\n` or `\r`) and spaces or tabs
/// stand between the hyphen and that letter; `None` otherwise (no hyphen
/// there, or it stays). Normalization joins the two halves; the review
/// diff asks the same question of the text less its page furniture.
pub fn line_end_hyphen_join(text: &str, hyphen: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let hyphen_len = match bytes.get(hyphen)? {
        b'-' => 1,
        0xc2 if bytes.get(hyphen + 1) == Some(&0xad) => 2,
        _ => return None,
    };
    let before_is_letter = text
        .get(..hyphen)?
        .chars()
        .next_back()
        .is_some_and(char::is_alphabetic);
    if !before_is_letter {
        return None;
    }
    let blanks = |mut j: usize| {
        while j < bytes.len() && (bytes[j] == b' ' || bytes[j] == b'\t') {
            j += 1;
        }
        j
    };
    let j = blanks(hyphen + hyphen_len);
    let line_end = match bytes.get(j) {
        Some(b'\r') if bytes.get(j + 1) == Some(&b'\n') => 2,
        Some(b'\r') | Some(b'\n') => 1,
        _ => return None,
    };
    let k = blanks(j + line_end);
    text[k..]
        .chars()
        .next()
        .is_some_and(char::is_alphabetic)
        .then_some(k)
}

/// Join words split by a hyphen (or soft hyphen) at a line end
/// ([`line_end_hyphen_join`]). Returns the input unchanged (no copy) when
/// there is nothing to join.
fn join_line_end_hyphens(text: &str) -> std::borrow::Cow<'_, str> {
    let bytes = text.as_bytes();
    let mut out: Option<String> = None;
    let mut copied_to = 0;
    let mut i = 0;
    while let Some(offset) = bytes[i..].iter().position(|&b| b == b'-' || b == 0xc2) {
        i += offset;
        let Some(k) = line_end_hyphen_join(text, i) else {
            // Past this byte: a `0xc2` that starts no soft hyphen is the
            // first byte of another character, whose next byte is neither.
            i += 1;
            continue;
        };
        let buf = out.get_or_insert_with(|| String::with_capacity(text.len()));
        buf.push_str(&text[copied_to..i]);
        copied_to = k;
        i = k;
    }
    match out {
        None => std::borrow::Cow::Borrowed(text),
        Some(mut buf) => {
            buf.push_str(&text[copied_to..]);
            std::borrow::Cow::Owned(buf)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_words_hyphenated_across_line_ends() {
        assert_eq!(normalize("digi-\ntized"), "digitized");
        assert_eq!(normalize("digi- \r\n  tized text"), "digitized text");
        assert_eq!(normalize("digi-\rtized"), "digitized");
        assert_eq!(normalize("soft\u{ad}\nhyphen"), "softhyphen");
    }

    #[test]
    fn a_join_resumes_at_the_letter_after_the_line_end() {
        let text = "digi- \r\n  tized";
        assert_eq!(line_end_hyphen_join(text, 4), Some(10));
        assert_eq!(&text[10..], "tized");
        assert_eq!(line_end_hyphen_join("soft\u{ad}\nhyphen", 4), Some(7));
        // Not a hyphen, no letter before it, two line ends, no letter after.
        assert_eq!(line_end_hyphen_join(text, 3), None);
        assert_eq!(line_end_hyphen_join("12-\n13", 2), None);
        assert_eq!(line_end_hyphen_join("end-\n\nstart", 3), None);
        assert_eq!(line_end_hyphen_join("end-\n“start", 3), None);
        assert_eq!(line_end_hyphen_join("end-", 3), None);
    }

    #[test]
    fn keeps_real_hyphens_and_dashes() {
        assert_eq!(normalize("well-known"), "well-known");
        assert_eq!(normalize("pages 12-\n13"), "pages 12- 13");
        assert_eq!(normalize("end -\nstart"), "end - start");
    }

    #[test]
    fn folds_ligatures_case_quotes_and_whitespace() {
        assert_eq!(
            normalize("The ﬁrst  ﬂight\u{a0}OF\tDon’t"),
            "the first flight of don't"
        );
        assert_eq!(normalize("STRASSE Straße"), "strasse strasse");
        assert_eq!(
            normalize("\u{feff}  Hello\r\n\r\nWorld \u{c}"),
            "hello world"
        );
    }

    #[test]
    fn crlf_and_lf_normalize_identically() {
        let lf = "Call me Ishmael.\nSome years ago-\nnever mind how long\n";
        let crlf = lf.replace('\n', "\r\n");
        assert_eq!(normalize(lf), normalize(&crlf));
    }

    #[test]
    fn fast_paths_match_full_nfkc() {
        for text in [
            "Some  Mixed\tCASE text\nwith lines -- and 'quotes'.",
            "Curly “quotes” — and café, naïve\u{a0}text",
            "Ligature ﬁne ﬂow and ½ and Ｆｕｌｌ",
        ] {
            let mut folder = Folder::with_capacity(text.len());
            for c in text.nfkc() {
                folder.push(c);
            }
            assert_eq!(normalize(text), folder.finish(), "{text:?}");
        }
    }

    /// The rules of the module documentation, applied one character at a
    /// time with nothing shared with the fast paths but the hyphen joins.
    fn reference(text: &str) -> String {
        let mut words: Vec<String> = Vec::new();
        let mut word = String::new();
        for c in join_line_end_hyphens(text).nfkc() {
            match c {
                c if c.is_whitespace() => {
                    if !word.is_empty() {
                        words.push(std::mem::take(&mut word));
                    }
                }
                '\u{ad}' | '\u{feff}' | '\u{200b}' | '\u{200c}' | '\u{200d}' | '\u{2060}' => {}
                '\u{2018}' | '\u{2019}' | '\u{02bc}' => word.push('\''),
                'ß' | 'ẞ' => word.push_str("ss"),
                'ς' => word.push('σ'),
                c => word.extend(c.to_lowercase()),
            }
        }
        if !word.is_empty() {
            words.push(word);
        }
        words.join(" ")
    }

    proptest::proptest! {
        /// Every path (ASCII, no-NFKC, NFKC) follows the documented rules.
        #[test]
        fn normalize_follows_the_rules_on_any_text(
            text in "[a-zA-Z0-9 \t\n\r\u{b}\u{c}.'-]{0,60}|[a-zA-Z \t\n\u{a0}\u{ad}\u{200b}\u{feff}é’ßẞςﬁＦΣ-]{0,60}",
        ) {
            proptest::prop_assert_eq!(normalize(&text), reference(&text));
        }
    }

    proptest::proptest! {
        /// NFKC chunk by chunk equals NFKC of the whole, on any text.
        #[test]
        fn chunked_nfkc_follows_the_rules_on_arbitrary_text(text in "\\PC{0,80}|.{0,40}") {
            proptest::prop_assert_eq!(normalize(&text), reference(&text));
        }

        /// ... and on text rich in book punctuation, in characters NFKC
        /// changes, and in combining marks and `<`, `=`, `>` that compose
        /// with what precedes them, next to ASCII whitespace.
        #[test]
        fn chunked_nfkc_follows_the_rules_on_book_punctuation(
            text in "([a-eA-E<=>.,;:'\" \t\n\r\u{b}\u{c}-]|[\u{2018}\u{2019}\u{201c}\u{201d}\u{2014}\u{2013}\u{2026}\u{b4}\u{b7}\u{a0}\u{2500}\u{3b1}\u{1f71}\u{e9}\u{301}\u{338}\u{327}\u{fb01}\u{bd}\u{ff26}\u{2002}\u{ad}\u{feff}\u{1100}\u{1161}\u{11a8}]){0,80}",
        ) {
            proptest::prop_assert_eq!(normalize(&text), reference(&text));
        }
    }

    #[test]
    fn one_rare_character_is_normalized_in_its_chunk() {
        // U+00B4 is NFKC `␣◌́`; U+1F71 is canonically U+03AC; `e` + U+0301
        // composes; `=` + U+0338 composes to `≠`.
        assert_eq!(
            normalize("Don’t — a\u{b4}b  \u{1f71}  cafe\u{301}\u{a0}x =\u{338} “Q”…"),
            "don't — a \u{301}b \u{3ac} caf\u{e9} x \u{2260} “q”..."
        );
    }

    proptest::proptest! {
        /// The fused analyzer's shortcut gives what `normalize` gives.
        #[test]
        fn normalize_fused_equals_normalize_on_fused_text(
            text in "[a-zA-Z \t\n\r.,'\u{2018}\u{2019}\u{2013}\u{2014}\u{201c}\u{201d}\u{ab}\u{bb}\u{a0}-]{0,80}",
        ) {
            proptest::prop_assert!(crate::engine::text::fused::fused_segmentable(&text));
            proptest::prop_assert_eq!(normalize_fused(&text), normalize(&text));
        }
    }

    #[test]
    fn composed_and_decomposed_accents_are_equal() {
        assert_eq!(normalize("caf\u{e9}"), normalize("cafe\u{301}"));
    }
}
