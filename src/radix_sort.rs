//! A stable LSD radix sort by an integer key, eleven bits at a time, skipping
//! the bits that are the same in every key. Detection sorts tens of thousands
//! of contacts by entity every frame; this does it in a few linear passes
//! instead of `n log n` comparisons.

/// Bits per pass: 2048 counters fit in the L1 cache.
const DIGIT_BITS: u32 = 11;
const DIGITS: usize = 1 << DIGIT_BITS;

/// Sorts `items` by `key`, stably. `scratch` is reused between calls.
pub(crate) fn radix_sort_by_key<T: Copy, K: RadixKey>(
    items: &mut Vec<T>,
    scratch: &mut Vec<T>,
    key: impl Fn(&T) -> K,
) {
    let Some(&first) = items.first() else {
        return;
    };
    let (mut all_or, mut all_and) = (key(&first).to_u128(), key(&first).to_u128());
    for item in items.iter() {
        let k = key(item).to_u128();
        all_or |= k;
        all_and &= k;
    }
    let varying = all_or ^ all_and;
    if varying == 0 {
        return;
    }
    scratch.clear();
    scratch.resize(items.len(), first);
    let (lowest, highest) = (varying.trailing_zeros(), 128 - varying.leading_zeros());
    let mut starts = [0u32; DIGITS + 1];
    for shift in (lowest..highest).step_by(DIGIT_BITS as usize) {
        if (varying >> shift) & (DIGITS as u128 - 1) == 0 {
            continue;
        }
        let digit = |item: &T| key(item).digit(shift);
        starts.fill(0);
        for item in items.iter() {
            starts[digit(item) + 1] += 1;
        }
        for d in 1..starts.len() {
            starts[d] += starts[d - 1];
        }
        for item in items.iter() {
            let slot = &mut starts[digit(item)];
            scratch[*slot as usize] = *item;
            *slot += 1;
        }
        std::mem::swap(items, scratch);
    }
}

/// Reusable space of [`sort_by_unique_pair`].
#[derive(Debug)]
pub(crate) struct PairSortSpace<T> {
    keys: Vec<u64>,
    sorted_keys: Vec<u64>,
    bucket_starts: Vec<u32>,
    placed: Vec<T>,
}

impl<T> Default for PairSortSpace<T> {
    fn default() -> Self {
        Self {
            keys: Vec::new(),
            sorted_keys: Vec::new(),
            bucket_starts: Vec::new(),
            placed: Vec::new(),
        }
    }
}

/// At most this many bits of a key choose its bucket in [`sort_keys`] (a
/// million buckets).
const MAX_BUCKET_BITS: u32 = 20;

/// Buckets up to this size are sorted by insertion.
const INSERTION_SORT_UP_TO: usize = 16;

/// Sorts `items` by the pair `key(item) = (major, minor)`, each pair
/// occurring at most once.
///
/// Moving the items around is what costs (tens of thousands of 40-byte
/// contacts do not fit in the L2 cache). So when the bits that vary among
/// the majors and among the minors, plus the bits of an item's index, fit in
/// 64 (as for entities spawned alike: their indices differ, their
/// generations do not), 64-bit keys holding the pair and the index are sorted
/// instead, and each item is then read once, in order. Otherwise the items
/// are radix sorted by a 128-bit key.
pub(crate) fn sort_by_unique_pair<T: Copy>(
    items: &mut Vec<T>,
    space: &mut PairSortSpace<T>,
    key: impl Fn(&T) -> (u64, u64),
) {
    if items.len() < 2 {
        return;
    }
    let (major, minor) = VaryingBits::of_pairs(items.iter().map(&key));
    let index_bits = usize::BITS - (items.len() - 1).leading_zeros();
    if major.width + minor.width + index_bits > 64 {
        radix_sort_by_key(items, &mut space.placed, |item| {
            let (major, minor) = key(item);
            (u128::from(major) << 64) | u128::from(minor)
        });
        return;
    }
    let PairSortSpace {
        keys,
        sorted_keys,
        bucket_starts,
        placed,
    } = space;
    keys.clear();
    keys.extend(items.iter().enumerate().map(|(index, item)| {
        let (a, b) = key(item);
        // Shifts below 64: with two items or more, index_bits >= 1.
        let pair = (major.field(a) << minor.width) | minor.field(b);
        (pair << index_bits) | index as u64
    }));
    let key_bits = major.width + minor.width + index_bits;
    sort_keys(keys, sorted_keys, bucket_starts, key_bits);
    let index_mask = (1u64 << index_bits) - 1;
    placed.clear();
    placed.extend(
        sorted_keys
            .iter()
            .map(|&key| items[(key & index_mask) as usize]),
    );
    std::mem::swap(items, placed);
}

/// Sorts `keys`, all below `2^key_bits`, into `sorted`: each key is placed
/// once in a bucket of its top bits (about one key per bucket), then each
/// bucket is sorted on its own.
fn sort_keys(keys: &[u64], sorted: &mut Vec<u64>, starts: &mut Vec<u32>, key_bits: u32) {
    let bucket_bits = (usize::BITS - keys.len().leading_zeros())
        .min(key_bits)
        .min(MAX_BUCKET_BITS);
    // Below 64: `bucket_bits` is 0 only when `key_bits` is.
    let shift = key_bits - bucket_bits;
    let bucket = |key: u64| (key >> shift) as usize;
    starts.clear();
    starts.resize((1 << bucket_bits) + 1, 0);
    for &key in keys {
        starts[bucket(key) + 1] += 1;
    }
    for b in 1..starts.len() {
        starts[b] += starts[b - 1];
    }
    sorted.clear();
    sorted.resize(keys.len(), 0);
    // Placed through `starts[b]`, which ends at the start of bucket `b + 1`.
    for &key in keys {
        let slot = &mut starts[bucket(key)];
        sorted[*slot as usize] = key;
        *slot += 1;
    }
    let mut bucket_start = 0;
    for &bucket_end in &starts[..starts.len() - 1] {
        let bucket = &mut sorted[bucket_start..bucket_end as usize];
        if bucket.len() <= INSERTION_SORT_UP_TO {
            insertion_sort(bucket);
        } else {
            bucket.sort_unstable();
        }
        bucket_start = bucket_end as usize;
    }
}

/// Sorts a few keys.
fn insertion_sort(keys: &mut [u64]) {
    for i in 1..keys.len() {
        let current = keys[i];
        let mut j = i;
        while j > 0 && keys[j - 1] > current {
            keys[j] = keys[j - 1];
            j -= 1;
        }
        keys[j] = current;
    }
}

/// The bits in which some values differ: every value agrees on the bits
/// below `shift` and from `shift + width` up, so comparing the `width` bits
/// from `shift` compares the values.
#[derive(Clone, Copy, Debug)]
struct VaryingBits {
    shift: u32,
    width: u32,
}

impl VaryingBits {
    /// Those of the first and of the second values of `pairs` (not empty),
    /// in one pass.
    fn of_pairs(mut pairs: impl Iterator<Item = (u64, u64)>) -> (Self, Self) {
        let (a, b) = pairs.next().unwrap_or_default();
        let (or_a, and_a, or_b, and_b) = pairs.fold((a, a, b, b), |(oa, na, ob, nb), (a, b)| {
            (oa | a, na & a, ob | b, nb & b)
        });
        (
            Self::from_varying(or_a ^ and_a),
            Self::from_varying(or_b ^ and_b),
        )
    }

    fn from_varying(varying: u64) -> Self {
        if varying == 0 {
            Self { shift: 0, width: 0 }
        } else {
            let shift = varying.trailing_zeros();
            Self {
                shift,
                width: 64 - varying.leading_zeros() - shift,
            }
        }
    }

    /// The varying bits of `value`, at the bottom (`width` below 64).
    fn field(self, value: u64) -> u64 {
        (value >> self.shift) & ((1 << self.width) - 1)
    }
}

/// An unsigned integer usable as a radix sort key.
pub(crate) trait RadixKey: Copy {
    /// The key widened losslessly.
    fn to_u128(self) -> u128;
    /// The digit of [`DIGIT_BITS`] bits starting at bit `shift` (below the
    /// key's width).
    fn digit(self, shift: u32) -> usize;
}

macro_rules! radix_key {
    ($($t:ty),*) => {$(
        impl RadixKey for $t {
            fn to_u128(self) -> u128 {
                self.into()
            }
            fn digit(self, shift: u32) -> usize {
                (self >> shift) as usize & (DIGITS - 1)
            }
        }
    )*};
}

radix_key!(u32, u64, u128);

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator, so the test needs no dependency.
    fn pseudo_random(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    #[test]
    fn sorts_like_a_stable_sort() {
        let mut seed = 0x1234_5678;
        for len in [0, 1, 2, 17, 1000] {
            // Keys with few distinct values test stability; the payload tells
            // equal keys apart.
            let items: Vec<(u32, u32)> = (0..len)
                .map(|i| ((pseudo_random(&mut seed) % 300) as u32 * 0x0101, i))
                .collect();
            let mut radix = items.clone();
            radix_sort_by_key(&mut radix, &mut Vec::new(), |&(k, _)| k);
            let mut expected = items;
            expected.sort_by_key(|&(k, _)| k);
            assert_eq!(radix, expected);
        }
    }

    #[test]
    fn sorts_wide_keys_in_every_byte() {
        let mut seed = 99;
        let items: Vec<u128> = (0..500)
            .map(|_| {
                (u128::from(pseudo_random(&mut seed)) << 64) | u128::from(pseudo_random(&mut seed))
            })
            .collect();
        let mut radix = items.clone();
        radix_sort_by_key(&mut radix, &mut Vec::new(), |&k| k);
        let mut expected = items;
        expected.sort_unstable();
        assert_eq!(radix, expected);
    }

    /// Pairs of keys whose varying bits fit in 64 (packed) and do not (the
    /// 128-bit fallback), against a comparison sort.
    #[test]
    fn sorts_unique_pairs_packed_or_not() {
        let mut seed = 7;
        let narrow = |seed: &mut u64| (3 << 40) | (pseudo_random(seed) % 100_000);
        let wide = |seed: &mut u64| pseudo_random(seed);
        let constant = |_: &mut u64| 42;
        type Draw = fn(&mut u64) -> u64;
        let cases: [(Draw, Draw); 5] = [
            (narrow, narrow),
            (constant, wide),
            (wide, constant),
            (wide, narrow),
            (constant, constant),
        ];
        let mut space = PairSortSpace::default();
        for (major, minor) in cases {
            for len in [0, 1, 2, 1000] {
                let mut items: Vec<(u64, u64, u32)> = (0..len)
                    .map(|i| (major(&mut seed), minor(&mut seed), i))
                    .collect();
                items.sort_unstable_by_key(|&(a, b, _)| (a, b));
                items.dedup_by_key(|&mut (a, b, _)| (a, b));
                let expected = items.clone();
                items.reverse();
                sort_by_unique_pair(&mut items, &mut space, |&(a, b, _)| (a, b));
                assert_eq!(items, expected, "{len} items");
            }
        }
    }
}
