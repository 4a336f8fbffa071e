//! Sorted 32-bit hash sets as stored: delta-coded and bit-packed in blocks
//! of 32 (the `bitpacking` crate's `BitPacker1x`), each block as wide as
//! its largest gap. A shingle set of ~700 random 32-bit hashes has gaps of
//! ~2^32/700, so ~25 bits a value where little-endian bytes spend 32: the
//! shingle and winnowing sets and the candidate slots are most of an index
//! row. A list that is not sorted is kept as little-endian bytes, so every
//! list round-trips exactly.
//!
//! The form, one byte string: a form byte; for `RAW` (0), the values as four
//! little-endian bytes each; for `PACKED` (1), the count (u32 little-endian),
//! then per block a width byte and the block's packed gaps (the last block
//! padded with its last value: zero gaps).

use bitpacking::{BitPacker, BitPacker1x};

use crate::hash::le_u32s;
use serde::de::{Error, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Form byte: the values as little-endian bytes.
const RAW: u8 = 0;
/// Form byte: the sorted values delta-coded and bit-packed.
const PACKED: u8 = 1;
const BLOCK: usize = BitPacker1x::BLOCK_LEN;

/// `values` in their stored form.
pub fn to_bytes(values: &[u32]) -> Vec<u8> {
    if !values.is_sorted() {
        let mut bytes = vec![RAW];
        bytes.extend_from_slice(&le_u32s::to_bytes(values));
        return bytes;
    }
    let packer = BitPacker1x::new();
    let count = u32::try_from(values.len()).expect("a set of fewer than 2^32 values");
    let mut bytes = Vec::with_capacity(5 + values.len() * 4);
    bytes.push(PACKED);
    bytes.extend_from_slice(&count.to_le_bytes());
    let mut block = [0u32; BLOCK];
    let mut initial = 0;
    for chunk in values.chunks(BLOCK) {
        block[..chunk.len()].copy_from_slice(chunk);
        let last = chunk[chunk.len() - 1];
        block[chunk.len()..].fill(last);
        let width = packer.num_bits_sorted(initial, &block);
        bytes.push(width);
        let at = bytes.len();
        bytes.resize(at + BitPacker1x::compressed_block_size(width), 0);
        packer.compress_sorted(initial, &block, &mut bytes[at..], width);
        initial = last;
    }
    bytes
}

/// The values back from their stored form; why not, if `bytes` is no such
/// form.
pub fn from_bytes(bytes: &[u8]) -> Result<Vec<u32>, &'static str> {
    match bytes.split_first() {
        Some((&RAW, rest)) => {
            le_u32s::from_bytes(rest).ok_or("raw values are not whole 4-byte words")
        }
        Some((&PACKED, rest)) => unpack(rest),
        Some(_) => Err("unknown form byte"),
        None => Err("no form byte"),
    }
}

fn unpack(bytes: &[u8]) -> Result<Vec<u32>, &'static str> {
    let (count, mut rest) = bytes.split_first_chunk::<4>().ok_or("no count")?;
    let count = u32::from_le_bytes(*count) as usize;
    // Each block takes at least its width byte: a count beyond that is damage,
    // not a reason to allocate.
    if count.div_ceil(BLOCK) > rest.len() {
        return Err("count larger than the blocks held");
    }
    let packer = BitPacker1x::new();
    let mut values = Vec::with_capacity(count.div_ceil(BLOCK) * BLOCK);
    let mut block = [0u32; BLOCK];
    let mut initial = 0;
    while values.len() < count {
        let (&width, after) = rest.split_first().ok_or("a block is missing")?;
        if width > 32 {
            return Err("a block wider than 32 bits");
        }
        let size = BitPacker1x::compressed_block_size(width);
        if after.len() < size {
            return Err("a block is cut short");
        }
        packer.decompress_sorted(initial, &after[..size], &mut block, width);
        values.extend_from_slice(&block);
        initial = block[BLOCK - 1];
        rest = &after[size..];
    }
    if !rest.is_empty() {
        return Err("bytes after the last block");
    }
    values.truncate(count);
    Ok(values)
}

/// Serialize a list in its stored form (`#[serde(with = "…::packed")]`).
pub fn serialize<S: Serializer>(values: &[u32], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_bytes(&to_bytes(values))
}

/// Deserialize a list from its stored form.
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u32>, D::Error> {
    d.deserialize_bytes(Packed)
}

struct Packed;

impl<'de> Visitor<'de> for Packed {
    type Value = Vec<u32>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a packed list of 32-bit values")
    }

    fn visit_bytes<E: Error>(self, bytes: &[u8]) -> Result<Vec<u32>, E> {
        from_bytes(bytes).map_err(E::custom)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u32>, A::Error> {
        let mut bytes = Vec::new();
        while let Some(b) = seq.next_element::<u8>()? {
            bytes.push(b);
        }
        self.visit_bytes(&bytes)
    }
}

#[derive(Deserialize)]
struct Values(#[serde(with = "self")] Vec<u32>);

struct ValuesRef<'a>(&'a [u32]);

impl Serialize for ValuesRef<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize(self.0, s)
    }
}

/// The same for an optional list.
pub mod option {
    use super::*;

    /// The list, if any, in its stored form.
    pub fn serialize<S: Serializer>(values: &Option<Vec<u32>>, s: S) -> Result<S::Ok, S::Error> {
        match values {
            Some(v) => s.serialize_some(&ValuesRef(v)),
            None => s.serialize_none(),
        }
    }

    /// The list, if any, back from its stored form.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<u32>>, D::Error> {
        Ok(Option::<Values>::deserialize(d)?.map(|v| v.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sorted(mut values: Vec<u32>) -> Vec<u32> {
        values.sort_unstable();
        values
    }

    proptest! {
        #[test]
        fn any_list_round_trips(values in proptest::collection::vec(any::<u32>(), 0..300)) {
            prop_assert_eq!(from_bytes(&to_bytes(&values)).unwrap(), values);
        }

        #[test]
        fn sorted_lists_round_trip_packed(values in proptest::collection::vec(any::<u32>(), 0..300).prop_map(sorted)) {
            let bytes = to_bytes(&values);
            prop_assert_eq!(bytes[0], PACKED);
            prop_assert_eq!(from_bytes(&bytes).unwrap(), values);
        }

        #[test]
        fn damaged_forms_are_refused_not_panicked_on(
            values in proptest::collection::vec(any::<u32>(), 1..100).prop_map(sorted),
            cut in any::<proptest::sample::Index>(),
            flip in any::<proptest::sample::Index>(),
        ) {
            let bytes = to_bytes(&values);
            let short = &bytes[..cut.index(bytes.len())];
            prop_assert!(from_bytes(short).is_err());
            let mut flipped = bytes.clone();
            let at = flip.index(flipped.len());
            flipped[at] ^= 0xA5;
            // A flipped bit may still decode (to other values); it must not panic.
            let _ = from_bytes(&flipped);
        }
    }

    /// A shingle set's worth of random hashes takes about 25 bits each, not
    /// 32: what the stored form is for.
    #[test]
    fn a_random_hash_set_packs_in_about_25_bits_a_value() {
        let mut state = 7u64;
        let values = sorted(
            (0..713)
                .map(|_| {
                    state = crate::hash::mix64(state.wrapping_add(0x9e37_79b9_7f4a_7c15));
                    state as u32
                })
                .collect(),
        );
        let bytes = to_bytes(&values);
        let bits = bytes.len() as f64 * 8.0 / values.len() as f64;
        assert!((23.0..26.5).contains(&bits), "{bits:.2} bits a value");
        assert_eq!(from_bytes(&bytes).unwrap(), values);
    }

    #[test]
    fn an_empty_list_is_five_bytes_and_comes_back_empty() {
        let bytes = to_bytes(&[]);
        assert_eq!(bytes, [PACKED, 0, 0, 0, 0]);
        assert_eq!(from_bytes(&bytes).unwrap(), Vec::<u32>::new());
    }

    #[test]
    fn unsorted_lists_are_kept_as_they_are() {
        let values = vec![5, 3, 9, 3];
        let bytes = to_bytes(&values);
        assert_eq!(bytes[0], RAW);
        assert_eq!(bytes.len(), 1 + 16);
        assert_eq!(from_bytes(&bytes).unwrap(), values);
    }

    #[test]
    fn optional_lists_round_trip_through_postcard() {
        #[derive(Serialize, Deserialize, PartialEq, Debug)]
        struct Row(#[serde(with = "option")] Option<Vec<u32>>);
        for row in [
            Row(None),
            Row(Some(vec![])),
            Row(Some(vec![1, 2, 40, 1 << 31])),
        ] {
            let blob = postcard::to_allocvec(&row).unwrap();
            assert_eq!(postcard::from_bytes::<Row>(&blob).unwrap(), row);
        }
    }
}
