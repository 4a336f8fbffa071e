//! Stable, seeded hashing for everything doppel persists or compares.
//!
//! Fingerprints are stored and compared across runs, machines and versions, so
//! every hash here is a fixed function of its input bytes and an explicit seed
//! (xxh3 from `xxhash-rust`). Nothing in the engine may use `std`'s randomly
//! seeded `RandomState` for values that leave the process.

use xxhash_rust::xxh3::{xxh3_128_with_seed, xxh3_64_with_seed};

/// Seed of the base token hash. Changing it changes every stored fingerprint,
/// so it is part of the index format.
pub const TOKEN_SEED: u64 = 0x646f_7070_656c_0001; // "doppel" + 1

/// 64-bit hash of a byte string under `seed`.
#[inline]
pub fn hash64(bytes: &[u8], seed: u64) -> u64 {
    xxh3_64_with_seed(bytes, seed)
}

/// 128-bit hash of a byte string under `seed` (signatures where collisions
/// must be negligible across a whole library, e.g. `exact` and `imatch`).
#[inline]
pub fn hash128(bytes: &[u8], seed: u64) -> u128 {
    xxh3_128_with_seed(bytes, seed)
}

/// Hash of one token (word, term, Soundex code).
#[inline]
pub fn token_hash(token: &str) -> u64 {
    hash64(token.as_bytes(), TOKEN_SEED)
}

/// A strong, invertible 64-bit mixer (the `splitmix64` finalizer). Used to
/// derive independent-looking hashes from an already uniform hash and a key
/// without touching the original bytes again.
#[inline]
pub fn mix64(mut x: u64) -> u64 {
    x ^= x >> 30;
    x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// A strong 32-bit mixer that is a bijection (the MurmurHash3 finalizer:
/// each step, a right xor-shift or a product with an odd constant, can be
/// undone), so distinct inputs always give distinct outputs: the
/// candidate tables mix each algorithm's range of slots across the whole
/// 32 bits without two ranges ever meeting.
#[inline]
pub fn mix32(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x85eb_ca6b);
    x ^= x >> 13;
    x = x.wrapping_mul(0xc2b2_ae35);
    x ^ (x >> 16)
}

/// Derive a hash of `h` keyed by `seed`; distinct seeds give (practically)
/// independent functions of `h`.
#[inline]
pub fn rehash(h: u64, seed: u64) -> u64 {
    rehash_keyed(h, rehash_key(seed))
}

/// The key [`rehash`] derives from `seed`, for callers that rehash many
/// values under one seed: `rehash(h, seed) == rehash_keyed(h, rehash_key(seed))`.
#[inline]
pub fn rehash_key(seed: u64) -> u64 {
    mix64(seed.wrapping_add(0x9e37_79b9_7f4a_7c15))
}

/// [`rehash`] with its key already derived.
#[inline]
pub fn rehash_keyed(h: u64, key: u64) -> u64 {
    mix64(h ^ key)
}

/// Order-dependent combination of a sequence of hashes (64 bits, or 32
/// widened to 64) into one hash (super-shingles and LSH band keys hash runs
/// of min-hashes).
#[inline]
pub fn combine<T: Copy + Into<u64>>(hashes: &[T], seed: u64) -> u64 {
    let mut acc = mix64(seed ^ (hashes.len() as u64));
    for &h in hashes {
        acc = mix64(acc.rotate_left(23) ^ h.into()).wrapping_add(0x9e37_79b9_7f4a_7c15);
    }
    acc
}

/// Hash a sequence of u64 values as bytes (little-endian), for signatures.
pub fn hash_u64s_128(values: &[u64], seed: u64) -> u128 {
    #[cfg(target_endian = "little")]
    {
        // On a little-endian machine a u64's bytes in memory are its
        // little-endian bytes: hash them where they are.
        hash128(bytemuck::cast_slice(values), seed)
    }
    #[cfg(not(target_endian = "little"))]
    {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        hash128(&bytes, seed)
    }
}

/// [`hash_u64s_128`] of a sequence given in pieces: the same value as
/// hashing the whole sequence at once (xxh3's streaming form).
#[derive(Clone)]
pub struct U64sHash128(xxhash_rust::xxh3::Xxh3);

impl U64sHash128 {
    /// The hash of the empty sequence with this seed, ready for values.
    pub fn new(seed: u64) -> Self {
        Self(xxhash_rust::xxh3::Xxh3::with_seed(seed))
    }

    /// Hash the next values of the sequence.
    pub fn update(&mut self, values: &[u64]) {
        #[cfg(target_endian = "little")]
        {
            // As in `hash_u64s_128`: the values' bytes where they are.
            self.0.update(bytemuck::cast_slice(values));
        }
        #[cfg(not(target_endian = "little"))]
        for v in values {
            self.0.update(&v.to_le_bytes());
        }
    }

    /// The hash of the values given so far.
    pub fn finish(&self) -> u128 {
        self.0.digest128()
    }
}

/// A `Hasher` for keys that are already uniform 64-bit hashes (token and
/// term hashes): hashing them again would only cost time. In-process maps
/// only; nothing hashed with it is persisted.
#[derive(Default, Clone, Copy)]
pub struct IdentityHasher(u64);

impl std::hash::Hasher for IdentityHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// `BuildHasher` for maps keyed by uniform 64-bit hashes.
pub type IdentityBuild = std::hash::BuildHasherDefault<IdentityHasher>;

/// A `HashMap` keyed by uniform 64-bit hashes.
pub type HashKeyed<V> = std::collections::HashMap<u64, V, IdentityBuild>;

/// A `Hasher` for u32 keys that are already uniform (the top half of a
/// 64-bit hash): one multiply spreads them over the high bits the hash
/// table's probing reads. In-process maps only.
#[derive(Default, Clone, Copy)]
pub struct U32KeyHasher(u64);

impl std::hash::Hasher for U32KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.0 = u64::from(n).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// A `HashMap` keyed by uniform 32-bit hashes (8-byte entries with a u32 value).
pub type HashKeyed32<V> =
    std::collections::HashMap<u32, V, std::hash::BuildHasherDefault<U32KeyHasher>>;

/// A tiny deterministic PRNG (splitmix64) for seeded choices such as random
/// lexicons and the eval generator. Not for cryptography.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator starting from `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next value.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix64(self.0)
    }

    /// Uniform float in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform integer in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
}

/// Values spread evenly over their type's range: hashes.
pub trait HashValue: Copy + Ord + Default {
    /// The top `bits` bits (1–16) as an index.
    fn top(self, bits: u32) -> usize;
}

impl HashValue for u32 {
    #[inline]
    fn top(self, bits: u32) -> usize {
        (self >> (32 - bits)) as usize
    }
}

impl HashValue for u64 {
    #[inline]
    fn top(self, bits: u32) -> usize {
        (self >> (64 - bits)) as usize
    }
}

/// Sorts hashes: one counting pass files them into buckets by their top
/// bits, one or two to a bucket, and an insertion sort then only swaps
/// neighbours within a bucket. For the few hundred to few thousand hashes
/// of a document this is several times faster than a comparison sort. Any
/// input is sorted: a crowded bucket (a hash many times over, as the
/// learner's batches hold a shared shingle once per document) is sorted
/// on its own first.
pub fn sort_hashes<T: HashValue>(values: &mut [T]) {
    /// Buckets up to this long are left to the insertion sort.
    const CROWDED: u32 = 16;
    let n = values.len();
    if n < 64 {
        values.sort_unstable();
        return;
    }
    let bits = n.ilog2().min(16);
    let mut next = vec![0u32; (1 << bits) + 1];
    for &v in values.iter() {
        next[v.top(bits) + 1] += 1;
    }
    let crowded = next.iter().any(|&count| count > CROWDED);
    for b in 1..next.len() {
        next[b] += next[b - 1];
    }
    let mut filed = vec![T::default(); n];
    for &v in values.iter() {
        let slot = &mut next[v.top(bits)];
        filed[*slot as usize] = v;
        *slot += 1;
    }
    if crowded {
        // Filed, `next[b]` is where bucket `b` ends and the next begins.
        let mut start = 0;
        for &end in &next[..1 << bits] {
            if end - start > CROWDED {
                filed[start as usize..end as usize].sort_unstable();
            }
            start = end;
        }
    }
    // Each value is now at most a bucket (16) away from its place.
    for i in 1..n {
        let v = filed[i];
        let mut j = i;
        while j > 0 && filed[j - 1] > v {
            filed[j] = filed[j - 1];
            j -= 1;
        }
        filed[j] = v;
    }
    values.copy_from_slice(&filed);
}

/// Start loading `items[i]` into the cache (a hint: nothing when `i` is
/// out of range or on another architecture).
#[inline]
pub fn prefetch<T>(items: &[T], i: usize) {
    if let Some(item) = items.get(i) {
        prefetch_line(std::ptr::from_ref(item).cast());
    }
}

/// [`prefetch`] every cache line of `items[i]`, for an item wider than one.
#[inline]
pub fn prefetch_all_of<T>(items: &[T], i: usize) {
    if let Some(item) = items.get(i) {
        let start = std::ptr::from_ref(item).cast::<i8>();
        for offset in (0..std::mem::size_of::<T>()).step_by(64) {
            prefetch_line(start.wrapping_add(offset));
        }
    }
}

/// Start loading the cache line holding `address` (a hint).
#[inline]
fn prefetch_line(address: *const i8) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch is a hint; it never faults, whatever the
        // address, and reads nothing into the program.
        #[allow(unsafe_code)]
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(address)
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`mix32`] undone step by step: the inverse of a product with an odd
    /// constant (Newton's iteration mod 2^32) and of a right xor-shift.
    fn unmix32(mut x: u32) -> u32 {
        fn inverse(a: u32) -> u32 {
            let mut y = a;
            for _ in 0..5 {
                y = y.wrapping_mul(2u32.wrapping_sub(a.wrapping_mul(y)));
            }
            y
        }
        fn unshift(x: u32, s: u32) -> u32 {
            let mut y = x;
            for _ in 0..32 / s {
                y = x ^ (y >> s);
            }
            y
        }
        x = unshift(x, 16);
        x = x.wrapping_mul(inverse(0xc2b2_ae35));
        x = unshift(x, 13);
        x = x.wrapping_mul(inverse(0x85eb_ca6b));
        unshift(x, 16)
    }

    proptest::proptest! {
        /// `mix32` is a bijection: undone, it gives back its input.
        #[test]
        fn mix32_is_undone_by_its_inverse(x in proptest::num::u32::ANY) {
            proptest::prop_assert_eq!(unmix32(mix32(x)), x);
        }
    }

    proptest::proptest! {
        #[test]
        fn hashes_sort_like_any_sort(mut values in proptest::collection::vec(proptest::num::u32::ANY, 0..3000), skew in 0u32..32) {
            // Skewed values crowd the low buckets.
            values.iter_mut().for_each(|v| *v >>= skew);
            let mut expected = values.clone();
            expected.sort_unstable();
            sort_hashes(&mut values);
            proptest::prop_assert_eq!(values, expected);
        }
    }

    proptest::proptest! {
        /// The streamed 128-bit hash of a sequence cut anywhere is the
        /// hash of the whole (the `exact` signature of a file read in pieces).
        #[test]
        fn streamed_u64s_hash_equals_the_whole(
            values in proptest::collection::vec(proptest::prelude::any::<u64>(), 0..300),
            cuts in proptest::collection::vec(0usize..300, 0..5),
            seed: u64,
        ) {
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(values.len())).collect();
            cuts.sort_unstable();
            let mut stream = U64sHash128::new(seed);
            let mut at = 0;
            for cut in cuts.into_iter().chain([values.len()]) {
                stream.update(&values[at..cut]);
                at = cut;
            }
            proptest::prop_assert_eq!(stream.finish(), hash_u64s_128(&values, seed));
        }
    }

    #[test]
    fn sixty_four_bit_hashes_sort_too() {
        let mut values: Vec<u64> = (0..5000u64).map(crate::hash::mix64).collect();
        values.extend_from_slice(&values.clone()[..100]);
        let mut expected = values.clone();
        expected.sort_unstable();
        sort_hashes(&mut values);
        assert_eq!(values, expected);
    }

    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    struct Lists {
        #[serde(with = "le_u64s")]
        all: Vec<u64>,
        #[serde(with = "le_u64s::option")]
        some: Option<Vec<u64>>,
        #[serde(with = "le_u64s::option")]
        none: Option<Vec<u64>>,
    }

    #[test]
    fn hash_lists_round_trip_as_eight_bytes_each() {
        let lists = Lists {
            all: vec![0, 1, u64::MAX, mix64(7)],
            some: Some((0..100).map(mix64).collect()),
            none: None,
        };
        let blob = postcard::to_allocvec(&lists).unwrap();
        // Two length prefixes (1 and 2 bytes), the Some and None tags.
        assert_eq!(blob.len(), 8 * 104 + 5);
        assert_eq!(postcard::from_bytes::<Lists>(&blob).unwrap(), lists);
        let json = serde_json::to_string(&lists).unwrap();
        assert_eq!(serde_json::from_str::<Lists>(&json).unwrap(), lists);
        assert!(postcard::from_bytes::<Lists>(&blob[..blob.len() - 3]).is_err());
    }

    #[test]
    fn a_list_of_values_hashes_as_its_little_endian_bytes() {
        let values = [0, 1, u64::MAX, mix64(3), 0x0102_0304_0506_0708];
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        assert_eq!(hash_u64s_128(&values, 9), hash128(&bytes, 9));
        assert_eq!(hash_u64s_128(&[], 9), hash128(&[], 9));
    }

    #[test]
    fn token_hash_is_pinned_across_versions() {
        // If this changes, every persisted fingerprint silently becomes
        // incomparable: bump the index schema instead (whole fingerprints
        // are pinned in tests/fingerprint_pin.rs).
        assert_eq!(token_hash("doppel"), 0x7dde_9368_d283_8565);
        assert_eq!(hash64(b"", 0), 0x2d06_8005_38d3_94c2);
    }

    #[test]
    fn combine_depends_on_order() {
        assert_ne!(combine(&[1u64, 2, 3], 7), combine(&[3u64, 2, 1], 7));
        assert_ne!(combine(&[1u64, 2, 3], 7), combine(&[1u64, 2, 3], 8));
        assert_eq!(combine(&[1u32, 2, 3], 7), combine(&[1u64, 2, 3], 7));
    }

    #[test]
    fn splitmix_below_stays_in_range() {
        let mut rng = SplitMix64::new(42);
        for _ in 0..1000 {
            assert!(rng.below(7) < 7);
        }
    }
}

/// Serde modules for lists of uniform hashes as little-endian bytes:
/// postcard would spend a varint of up to 10 bytes on each and decode it a
/// byte at a time, where raw bytes copy straight back (the stored
/// fingerprints). `$name::option` does the same for an optional list.
macro_rules! le_words {
    ($(#[$doc:meta])* $name:ident, $word:ty) => {
        $(#[$doc])*
        pub mod $name {
            use serde::de::{Error, SeqAccess, Visitor};
            use serde::{Deserialize, Deserializer, Serialize, Serializer};

            const SIZE: usize = std::mem::size_of::<$word>();

            /// The list as its little-endian bytes.
            pub fn serialize<S: Serializer>(values: &[$word], s: S) -> Result<S::Ok, S::Error> {
                s.serialize_bytes(&to_bytes(values))
            }

            /// The list's little-endian bytes (sized up front: collecting
            /// a flat map of arrays grows the vector a byte at a time).
            pub fn to_bytes(values: &[$word]) -> Vec<u8> {
                let mut bytes = Vec::with_capacity(values.len() * SIZE);
                for v in values {
                    bytes.extend_from_slice(&v.to_le_bytes());
                }
                bytes
            }

            /// The list back from its little-endian bytes; `None` when
            /// they are not whole words.
            pub fn from_bytes(bytes: &[u8]) -> Option<Vec<$word>> {
                bytes.len().is_multiple_of(SIZE).then(|| {
                    bytes
                        .chunks_exact(SIZE)
                        .map(|c| <$word>::from_le_bytes(c.try_into().expect("word size")))
                        .collect()
                })
            }

            /// The list back from its little-endian bytes.
            pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<$word>, D::Error> {
                struct Words;
                impl<'de> Visitor<'de> for Words {
                    type Value = Vec<$word>;

                    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                        write!(f, "bytes holding little-endian {}-byte values", SIZE)
                    }

                    fn visit_bytes<E: Error>(self, bytes: &[u8]) -> Result<Vec<$word>, E> {
                        from_bytes(bytes).ok_or_else(|| E::invalid_length(bytes.len(), &self))
                    }

                    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<$word>, A::Error> {
                        let mut bytes = Vec::new();
                        while let Some(b) = seq.next_element::<u8>()? {
                            bytes.push(b);
                        }
                        self.visit_bytes(&bytes)
                    }
                }
                d.deserialize_bytes(Words)
            }

            #[derive(Deserialize)]
            struct Words(#[serde(with = "self")] Vec<$word>);

            struct WordsRef<'a>(&'a [$word]);

            impl Serialize for WordsRef<'_> {
                fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                    serialize(self.0, s)
                }
            }

            /// The same for an optional list.
            pub mod option {
                use super::*;

                /// The list, if any, as its little-endian bytes.
                pub fn serialize<S: Serializer>(
                    values: &Option<Vec<$word>>,
                    s: S,
                ) -> Result<S::Ok, S::Error> {
                    match values {
                        Some(v) => s.serialize_some(&WordsRef(v)),
                        None => s.serialize_none(),
                    }
                }

                /// The list, if any, back from its little-endian bytes.
                pub fn deserialize<'de, D: Deserializer<'de>>(
                    d: D,
                ) -> Result<Option<Vec<$word>>, D::Error> {
                    Ok(Option::<Words>::deserialize(d)?.map(|w| w.0))
                }
            }
        }
    };
}

le_words!(
    /// 64-bit hash lists as 8 little-endian bytes each.
    le_u64s,
    u64
);
le_words!(
    /// 32-bit hash lists as 4 little-endian bytes each.
    le_u32s,
    u32
);
le_words!(
    /// 8-bit hash lists as one byte each (a byte string, not a sequence).
    le_u8s,
    u8
);
