//! The fused pass: the words of text that needs no normalization beyond
//! ASCII case folding, end-of-line hyphen joins and apostrophe folding,
//! found without building the normalized text.
//!
//! Most book text is ASCII plus a few punctuation characters that NFKC
//! leaves alone ([`fused_segmentable`]). For such text one scan over a
//! lowercased copy yields exactly the words that
//! `for_each_word(&normalize(text))` yields (property tests hold it to
//! that). The scan classifies 64 bytes at a time into bit masks (letters,
//! digits, and the middle characters that UAX #29 rules WB6/7 and WB11/12
//! keep inside a word), so a word costs a few bit operations instead of a
//! branch per byte. A word that ends at a hyphen or a typographic
//! apostrophe, either of which may join it to what follows, is finished
//! byte by byte.

use std::borrow::Cow;

use super::tokenize::{mid_joins, Class, CLASSES};

/// Bytes classified at a time (one bit each in a `u64`).
const BLOCK: usize = 64;
/// Zero bytes after the text in the lowercased copy: every block and every
/// lookahead stays in bounds, and a zero byte is in no word.
const PAD: usize = BLOCK + 16;

/// Non-ASCII characters the fused pass understands without NFKC or
/// `unicode-segmentation`: typographic apostrophes (normalized to `'`, a
/// middle character) and common punctuation that is a word boundary and
/// NFKC-stable (dashes, curly double quotes, guillemets), plus the
/// no-break space (normalized to a space).
fn fused_class(c: char) -> Option<Class> {
    match c {
        // Not U+02BC: it is alphabetic, which changes hyphen joining.
        '\u{2018}' | '\u{2019}' => Some(Class::MidNumLet),
        '\u{2013}' | '\u{2014}' | '\u{201c}' | '\u{201d}' | '\u{ab}' | '\u{bb}' | '\u{a0}' => {
            Some(Class::Other)
        }
        _ => None,
    }
}

/// Whether the fused pass can segment `text` (ASCII plus the characters
/// `fused_class` knows).
pub fn fused_segmentable(text: &str) -> bool {
    // Only the non-ASCII characters are looked at, each where a byte
    // search finds it (book text has a curly quote or a dash now and then).
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(offset) = bytes[from..].iter().position(|b| !b.is_ascii()) {
        let at = from + offset;
        let c = text[at..].chars().next().expect("a character starts here");
        if fused_class(c).is_none() {
            return false;
        }
        from = at + c.len_utf8();
    }
    true
}

/// Text [`fused_segmentable`] accepts, ready to be split into words.
pub struct FusedText {
    /// The text with ASCII lowercased, then [`PAD`] zero bytes.
    lower: Vec<u8>,
    len: usize,
}

impl FusedText {
    /// The text, lowercased and padded for the 64-byte scans.
    pub fn new(text: &str) -> Self {
        debug_assert!(fused_segmentable(text));
        Self::over(text)
    }

    /// Any text, lowercased and padded, for [`FusedText::for_each_word_in`]
    /// its ASCII stretches.
    pub fn over(text: &str) -> Self {
        let mut lower = Vec::with_capacity(text.len() + PAD);
        lower.extend_from_slice(text.as_bytes());
        lower.make_ascii_lowercase();
        lower.resize(text.len() + PAD, 0);
        Self {
            lower,
            len: text.len(),
        }
    }

    /// Bytes of the text.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the text is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Calls `f(word, start, end)` for every word in order: `word` is its
    /// normalized spelling and `start..end` its byte span in the text (as
    /// [`FusedText::spell`] reads it back).
    pub fn for_each_word(&self, f: impl FnMut(&[u8], usize, usize)) {
        self.for_each_word_in(0, self.len, f);
    }

    /// [`FusedText::for_each_word`] for the words of `from..to` alone: a
    /// stretch that starts the text or a space, and ends the text or
    /// just after a space (so no word crosses its ends, and what lies
    /// beyond them decides nothing inside).
    pub fn for_each_word_in(&self, from: usize, to: usize, mut f: impl FnMut(&[u8], usize, usize)) {
        let lower = &self.lower;
        let mut spelled = Vec::new();
        let mut p = from;
        // Invariant: no word started before `p` and goes on past it.
        while p < to {
            let masks = Masks::at(lower, p);
            let mut runs = masks.word;
            if to - p < BLOCK {
                runs &= (1u64 << (to - p)) - 1;
            }
            let mut next = p + BLOCK;
            while runs != 0 {
                let s = runs.trailing_zeros() as usize;
                let len = (!(runs >> s)).trailing_zeros() as usize;
                let start = p + s;
                if s + len >= BLOCK {
                    // It may go on in the next block: start that block at
                    // it (a word a whole block long is finished bytewise).
                    next = if s > 0 {
                        start
                    } else {
                        self.slow_word(start, &mut spelled, &mut f)
                    };
                    break;
                }
                let end = start + len;
                if matches!(lower[end], b'-' | 0xe2) {
                    // A hyphen or a typographic apostrophe may join on.
                    next = self.slow_word(start, &mut spelled, &mut f);
                    break;
                }
                let run = ((1u64 << len) - 1) << s;
                if masks.alnum & run != 0 {
                    f(&lower[start..end], start, end);
                }
                runs &= !run;
            }
            p = next;
        }
    }

    /// Finishes the word starting at `start` byte by byte, calls `f` with
    /// it (unless it has no letter or digit) and returns its end.
    fn slow_word(
        &self,
        start: usize,
        spelled: &mut Vec<u8>,
        f: &mut impl FnMut(&[u8], usize, usize),
    ) -> usize {
        let end = self.word_end(start);
        spelled.clear();
        self.spell_into(start, end, spelled);
        if spelled.iter().any(u8::is_ascii_alphanumeric) {
            f(spelled, start, end);
        }
        end
    }

    /// The end of the word that starts at `start` (a word character): the
    /// UAX #29 rules restricted to ASCII, plus normalization's hyphen joins
    /// and typographic apostrophes.
    fn word_end(&self, start: usize) -> usize {
        let (b, n) = (&self.lower, self.len);
        let class = |i: usize| CLASSES[usize::from(b[i])];
        let is_word = |c: Class| matches!(c, Class::Letter | Class::Digit | Class::Connector);
        let mut last = class(start);
        let mut i = start + 1;
        loop {
            while i < n && is_word(class(i)) {
                last = class(i);
                i += 1;
            }
            if i >= n {
                return n;
            }
            if b[i] == b'-' && last == Class::Letter {
                match line_end_join(&b[..n], i) {
                    Some(next) => {
                        i = next;
                        continue;
                    }
                    None => return i,
                }
            }
            let (mid, width) = match b[i..i + 3] {
                // U+2018, U+2019: `'` once normalized.
                [0xe2, 0x80, 0x98 | 0x99] => (Class::MidNumLet, 3),
                _ => (class(i), 1),
            };
            // Past the text is padding, which is no word character.
            if !mid_joins(last, mid, Some(class(i + width))) {
                return i;
            }
            i += width;
        }
    }

    /// The normalized spelling of the word at `start..end`, as
    /// [`FusedText::for_each_word`] gave it.
    pub fn spell(&self, start: usize, end: usize) -> Cow<'_, [u8]> {
        let span = &self.lower[start..end];
        if span.iter().all(|b| !is_joining_byte(*b)) {
            return Cow::Borrowed(span);
        }
        let mut spelled = Vec::with_capacity(span.len());
        self.spell_into(start, end, &mut spelled);
        Cow::Owned(spelled)
    }

    /// Inside a word span, blanks and line ends only surround a joined
    /// hyphen, and `0xe2` only starts a typographic apostrophe.
    fn spell_into(&self, start: usize, end: usize, out: &mut Vec<u8>) {
        let b = &self.lower;
        let mut i = start;
        while i < end {
            match b[i] {
                b'-' | b' ' | b'\t' | b'\r' | b'\n' => i += 1,
                0xe2 => {
                    out.push(b'\'');
                    i += 3;
                }
                c => {
                    out.push(c);
                    i += 1;
                }
            }
        }
    }
}

fn is_joining_byte(b: u8) -> bool {
    matches!(b, b'-' | b' ' | b'\t' | b'\r' | b'\n' | 0xe2)
}

/// At a `-` after a letter: if spaces/tabs, one line end, spaces/tabs and a
/// letter follow, the index of that letter (normalization joins the word).
pub(crate) fn line_end_join(text: &[u8], hyphen: usize) -> Option<usize> {
    let skip_blanks = |mut j: usize| {
        while j < text.len() && (text[j] == b' ' || text[j] == b'\t') {
            j += 1;
        }
        j
    };
    let j = skip_blanks(hyphen + 1);
    let line_end = match text.get(j) {
        Some(b'\r') if text.get(j + 1) == Some(&b'\n') => 2,
        Some(b'\r') | Some(b'\n') => 1,
        _ => return None,
    };
    let k = skip_blanks(j + line_end);
    text.get(k)
        .is_some_and(u8::is_ascii_alphabetic)
        .then_some(k)
}

/// The words of fused-segmentable text, lowercased, exactly as
/// `for_each_word(&normalize(text))` yields them.
pub fn for_each_raw_word(text: &str, mut f: impl FnMut(&[u8])) {
    FusedText::new(text).for_each_word(|word, _, _| f(word));
}

/// One block's bytes by class, a bit per byte (bit j is byte p + j).
#[derive(Debug, Default, PartialEq, Eq)]
struct Classes {
    letter: u64,
    digit: u64,
    underscore: u64,
    /// `:` (MidLetter).
    colon: u64,
    /// `.` and `'` (MidNumLet).
    mid_num_let: u64,
    /// `,` and `;` (MidNum).
    mid_num: u64,
}

impl Classes {
    /// Byte by byte (the reference, and processors without SSE2).
    #[cfg_attr(target_arch = "x86_64", allow(dead_code))]
    fn of_bytes(block: &[u8; BLOCK]) -> Classes {
        let mut c = Classes::default();
        for (j, &b) in block.iter().enumerate() {
            let bit = 1u64 << j;
            match CLASSES[usize::from(b)] {
                Class::Letter => c.letter |= bit,
                Class::Digit => c.digit |= bit,
                Class::Connector => c.underscore |= bit,
                Class::MidLetter => c.colon |= bit,
                Class::MidNumLet => c.mid_num_let |= bit,
                Class::MidNum => c.mid_num |= bit,
                Class::Other => {}
            }
        }
        c
    }

    /// Sixteen bytes per instruction. Only for lowercased bytes: capitals
    /// are not letters here.
    #[cfg(target_arch = "x86_64")]
    fn of_lowercase(block: &[u8; BLOCK]) -> Classes {
        use std::arch::x86_64::*;
        let mut c = Classes::default();
        // SAFETY: SSE2 is part of x86-64, and each load reads one
        // `chunk`'s 16 bytes.
        #[allow(unsafe_code)]
        unsafe {
            for (k, chunk) in block.chunks_exact(16).enumerate() {
                let v = _mm_loadu_si128(chunk.as_ptr().cast());
                // Unsigned range checks as signed ones: x − lo + 128 < 128 + n.
                let in_range = |lo: u8, n: u8| {
                    let shifted = _mm_add_epi8(v, _mm_set1_epi8(128u8.wrapping_sub(lo) as i8));
                    _mm_cmplt_epi8(shifted, _mm_set1_epi8(128u8.wrapping_add(n) as i8))
                };
                let eq = |b: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8));
                let bits = |m: __m128i| u64::from(_mm_movemask_epi8(m) as u16) << (16 * k);
                c.letter |= bits(in_range(b'a', 26));
                c.digit |= bits(in_range(b'0', 10));
                c.underscore |= bits(eq(b'_'));
                c.colon |= bits(eq(b':'));
                c.mid_num_let |= bits(_mm_or_si128(eq(b'.'), eq(b'\'')));
                c.mid_num |= bits(_mm_or_si128(eq(b','), eq(b';')));
            }
        }
        c
    }
}

/// What one block holds: the bytes inside words, and which are letters or
/// digits.
struct Masks {
    word: u64,
    alnum: u64,
}

impl Masks {
    /// The block at `p` of the lowercased, padded text.
    fn at(lower: &[u8], p: usize) -> Masks {
        let block: &[u8; BLOCK] = lower[p..p + BLOCK].try_into().expect("padded");
        #[cfg(target_arch = "x86_64")]
        let c = Classes::of_lowercase(block);
        #[cfg(not(target_arch = "x86_64"))]
        let c = Classes::of_bytes(block);
        let class = |i: usize| CLASSES[usize::from(lower[i])];
        let (before, after) = (
            if p == 0 { Class::Other } else { class(p - 1) },
            class(p + BLOCK),
        );
        // Bit j: byte j − 1 (or j + 1) is a letter (digit).
        let prev_letter = c.letter << 1 | u64::from(before == Class::Letter);
        let next_letter = c.letter >> 1 | u64::from(after == Class::Letter) << 63;
        let prev_digit = c.digit << 1 | u64::from(before == Class::Digit);
        let next_digit = c.digit >> 1 | u64::from(after == Class::Digit) << 63;
        let between_letters = prev_letter & next_letter;
        let between_digits = prev_digit & next_digit;
        let alnum = c.letter | c.digit;
        Masks {
            word: alnum
                | c.underscore
                | c.colon & between_letters
                | c.mid_num_let & (between_letters | between_digits)
                | c.mid_num & between_digits,
            alnum,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::text::tokenize::for_each_word;

    fn fused_words(text: &str) -> Vec<String> {
        let mut words = Vec::new();
        for_each_raw_word(text, |w| words.push(String::from_utf8(w.to_vec()).unwrap()));
        words
    }

    fn normalized_words(text: &str) -> Vec<String> {
        let normalized = crate::engine::text::normalize(text);
        let mut words = Vec::new();
        for_each_word(&normalized, |w| words.push(w.to_owned()));
        words
    }

    proptest::proptest! {
        #[test]
        fn segmentable_is_every_character_known(
            text in "[a-c \u{2018}\u{2019}\u{2013}\u{2014}\u{201c}\u{201d}\u{ab}\u{bb}\u{a0}\u{e9}\u{2500}\u{301}]{0,40}"
        ) {
            let known = text.chars().all(|c| c.is_ascii() || fused_class(c).is_some());
            proptest::prop_assert_eq!(fused_segmentable(&text), known);
        }

        #[test]
        fn raw_words_equal_normalized_words(
            text in "[aBc1_.:,;' \t\r\n\u{2018}\u{2019}\u{2013}\u{2014}\u{201c}\u{201d}\u{ab}\u{bb}\u{a0}-]{0,60}"
        ) {
            proptest::prop_assert!(fused_segmentable(&text));
            proptest::prop_assert_eq!(fused_words(&text), normalized_words(&text));
        }

        /// Long texts cross block boundaries anywhere: inside words, at
        /// joins, at hyphens and apostrophes.
        #[test]
        fn raw_words_of_long_texts_equal_normalized_words(
            text in "([a-zA-Z0-9_]{1,12}|[.:,;' \n-]|\u{2019}|\u{2014}|\r\n){0,200}"
        ) {
            proptest::prop_assert_eq!(fused_words(&text), normalized_words(&text));
        }

        #[test]
        fn spans_spell_the_words_they_came_from(
            text in "([a-zA-Z0-9_]{1,12}|[.:,;' \n-]|\u{2019}|-\r\n){0,120}"
        ) {
            let fused = FusedText::new(&text);
            let mut ok = true;
            fused.for_each_word(|word, start, end| ok &= *fused.spell(start, end) == *word);
            proptest::prop_assert!(ok);
        }

        #[cfg(target_arch = "x86_64")]
        #[test]
        fn vector_classes_equal_bytewise_classes(block in proptest::collection::vec(proptest::num::u8::ANY, BLOCK)) {
            let lower: Vec<u8> = block.iter().map(u8::to_ascii_lowercase).collect();
            let lower: &[u8; BLOCK] = lower.as_slice().try_into().unwrap();
            proptest::prop_assert_eq!(Classes::of_lowercase(lower), Classes::of_bytes(lower));
        }
    }

    #[test]
    fn words_cross_blocks_and_join_where_normalization_joins() {
        let long = "x".repeat(150);
        let text = format!(
            "{long} digi-\r\n  tized don\u{2019}t 3.14, 1,000 e.g. a_b __ {}word’s end",
            "y ".repeat(40)
        );
        let words = fused_words(&text);
        assert_eq!(words, normalized_words(&text));
        assert_eq!(words[0], long);
        assert_eq!(
            &words[1..7],
            ["digitized", "don't", "3.14", "1,000", "e.g", "a_b"]
        );
        assert_eq!(words.last().unwrap(), "end");
    }
}
