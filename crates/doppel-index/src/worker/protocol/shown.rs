//! How a word of a diff shows: its characters less the line-end hyphens
//! and line breaks it was joined across, and less the page furniture
//! inside a word hyphenated across a page break.

/// The bytes of a word (within the word's own text) that its line-end
/// hyphens and their line breaks take: each from the hyphen through the
/// spaces after the line end. Empty (no allocation) for a word on one line.
pub fn line_end_breaks(word: &str) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let b = word.as_bytes();
    let mut k = 0;
    while let Some(nl) = b[k..].iter().position(|&c| c == b'\n' || c == b'\r') {
        let nl = k + nl;
        let before = word[..nl].trim_end_matches([' ', '\t']);
        let after = word[nl..].trim_start_matches(['\r', '\n', ' ', '\t']);
        let end = word.len() - after.len();
        if let Some(stem) = before
            .strip_suffix('-')
            .or_else(|| before.strip_suffix('\u{ad}'))
        {
            out.push(stem.len()..end);
        }
        k = end.max(nl + 1);
    }
    out
}

/// The characters of a word as shown, with their byte offsets in it (see
/// [`line_end_breaks`]).
pub fn word_chars(word: &str) -> impl Iterator<Item = (usize, char)> + '_ {
    let breaks = line_end_breaks(word);
    word.char_indices()
        .filter(move |(k, _)| !breaks.iter().any(|r| r.contains(k)))
}

/// The characters of the word at bytes `word` of `text` as shown, with
/// their byte offsets in `text`: [`word_chars`], less those inside a
/// `hidden` range (sorted, disjoint: [`DiffSide::joins`](super::DiffSide::joins)).
pub fn shown_chars<'a>(
    text: &'a str,
    word: std::ops::Range<usize>,
    hidden: &'a [(u32, u32)],
) -> impl Iterator<Item = (usize, char)> + 'a {
    let start = word.start;
    // The hidden ranges that may fall inside the word.
    let first = hidden.partition_point(|&(_, e)| e as usize <= start);
    let hidden = &hidden[first..];
    word_chars(text.get(word).unwrap_or_default())
        .map(move |(k, c)| (start + k, c))
        .filter(move |&(at, _)| {
            !hidden
                .iter()
                .take_while(|&&(s, _)| s as usize <= at)
                .any(|&(_, e)| at < e as usize)
        })
}
