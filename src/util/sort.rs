//! Sorting by integer keys in linear passes instead of `n log n`
//! comparisons: detection sorts tens of thousands of contacts by entity
//! every frame. [`radix_sort_by_key`] is a stable LSD radix sort, eleven bits
//! at a time, skipping the bits that are the same in every key;
//! [`sort_by_unique_pair`] packs an entity pair and an item's index into a
//! 64-bit key ([`PairKeys`]) when it fits, so that only keys are sorted
//! ([`SortedKeys`]) and each item is moved once.

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
    sorted_keys: SortedKeys,
    placed: Vec<T>,
}

impl<T> Default for PairSortSpace<T> {
    fn default() -> Self {
        Self {
            keys: Vec::new(),
            sorted_keys: SortedKeys::default(),
            placed: Vec::new(),
        }
    }
}

/// Sorts `items` by the pair `key(item) = (major, minor)`, each pair
/// occurring at most once.
///
/// Moving the items around is what costs (tens of thousands of 40-byte
/// contacts do not fit in the L2 cache). So when the bits that vary among
/// the majors and among the minors, plus the bits of an item's index, fit in
/// 64 (as for entities of up to tens of thousands of indices and a few
/// generations), 64-bit keys holding the pair and the index are sorted
/// instead ([`PairKeys`]), and each item is then read once, in order.
/// Otherwise the items are radix sorted by a 128-bit key.
pub(crate) fn sort_by_unique_pair<T: Copy>(
    items: &mut Vec<T>,
    space: &mut PairSortSpace<T>,
    key: impl Fn(&T) -> (u64, u64),
) {
    if items.len() < 2 {
        return;
    }
    let (major, minor) = varying_bits_of_pairs(items.iter().map(&key));
    let Some(packing) = PairKeys::new(major, minor, items.len()) else {
        radix_sort_by_key(items, &mut space.placed, |item| {
            let (major, minor) = key(item);
            (u128::from(major) << 64) | u128::from(minor)
        });
        return;
    };
    let PairSortSpace {
        keys,
        sorted_keys,
        placed,
    } = space;
    keys.clear();
    keys.extend(
        items
            .iter()
            .enumerate()
            .map(|(index, item)| packing.key(key(item), index)),
    );
    placed.clear();
    placed.extend(
        sorted_keys
            .sort(keys, packing.bits())
            .iter()
            .map(|&key| items[packing.index(key)]),
    );
    std::mem::swap(items, placed);
}

/// How a pair of values `(major, minor)` and an index pack into one `u64`
/// that orders as the pair: only the bits in which the values vary are
/// kept, and the index (which tells the item apart and finds it again) takes
/// the lowest bits.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PairKeys {
    major: VaryingBits,
    minor: VaryingBits,
    index_bits: u32,
}

impl PairKeys {
    /// Packing for majors that differ only in the bits set in
    /// `major_varying`, minors that differ only in those of `minor_varying`
    /// (as [`varying_bits_of_pairs`] finds them) and indices below `count`;
    /// `None` when that takes more than 64 bits.
    pub(crate) fn new(major_varying: u64, minor_varying: u64, count: usize) -> Option<Self> {
        let (major, minor) = (
            VaryingBits::from_varying(major_varying),
            VaryingBits::from_varying(minor_varying),
        );
        // At least one bit, so that every shift below stays under 64.
        let index_bits = (usize::BITS - count.saturating_sub(1).leading_zeros()).max(1);
        (major.width() + minor.width() + index_bits <= 64).then_some(Self {
            major,
            minor,
            index_bits,
        })
    }

    /// The key of `pair` at `index` (below the `count` given to
    /// [`Self::new`]).
    #[inline]
    pub(crate) fn key(self, (major, minor): (u64, u64), index: usize) -> u64 {
        let pair = (self.major.field(major) << self.minor.width()) | self.minor.field(minor);
        (pair << self.index_bits) | index as u64
    }

    /// The index packed into `key`.
    #[inline]
    pub(crate) fn index(self, key: u64) -> usize {
        (key & ((1 << self.index_bits) - 1)) as usize
    }

    /// How many low bits the keys use.
    pub(crate) fn bits(self) -> u32 {
        self.major.width() + self.minor.width() + self.index_bits
    }
}

/// At most this many bits of a key choose its bucket in [`SortedKeys::sort`]
/// (a million buckets).
const MAX_BUCKET_BITS: u32 = 20;

/// Buckets up to this size are sorted by insertion.
const INSERTION_SORT_UP_TO: usize = 16;

/// Keys sorted by [`SortedKeys::sort`], with the space sorting takes, kept
/// to reuse the allocations.
#[derive(Debug, Default)]
pub(crate) struct SortedKeys {
    sorted: Vec<u64>,
    bucket_starts: Vec<u32>,
}

impl SortedKeys {
    /// `keys` (all below `2^key_bits`) sorted: each key is placed once in a
    /// bucket of its top bits (about one key per bucket), then the keys are
    /// put in order within their buckets.
    pub(crate) fn sort(&mut self, keys: &[u64], key_bits: u32) -> &[u64] {
        let Self {
            sorted,
            bucket_starts: starts,
        } = self;
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
        let mut largest_bucket = 0;
        for b in 1..starts.len() {
            largest_bucket = largest_bucket.max(starts[b]);
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
        if largest_bucket as usize <= INSERTION_SORT_UP_TO {
            // Keys are out of order only within their small buckets: one
            // insertion sort over all of them costs a compare per key, where
            // a loop over the buckets would branch on each bucket's size.
            insertion_sort(sorted);
            return sorted;
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
        sorted
    }
}

/// Sorts keys that are each only a few places from where they belong.
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

/// The bits in which the first values of `pairs` differ, and those in which
/// the second values do, in one pass.
pub(crate) fn varying_bits_of_pairs(pairs: impl Iterator<Item = (u64, u64)>) -> (u64, u64) {
    let (a, b) = pairs.fold((BitsSeen::NONE, BitsSeen::NONE), |(a, b), (x, y)| {
        (a.union(BitsSeen::of(x)), b.union(BitsSeen::of(y)))
    });
    (a.varying(), b.varying())
}

/// The OR and the AND of some `u64` values, from which the bits in which
/// they differ follow.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BitsSeen {
    or: u64,
    and: u64,
}

impl BitsSeen {
    /// Of no value: the identity of [`BitsSeen::union`].
    pub(crate) const NONE: Self = Self {
        or: 0,
        and: u64::MAX,
    };

    #[inline]
    pub(crate) fn of(value: u64) -> Self {
        Self {
            or: value,
            and: value,
        }
    }

    #[inline]
    pub(crate) fn union(self, other: Self) -> Self {
        Self {
            or: self.or | other.or,
            and: self.and & other.and,
        }
    }

    /// The bits set in some of the values and clear in others (none for no
    /// value or one).
    pub(crate) fn varying(self) -> u64 {
        self.or & !self.and
    }
}

/// Where some `u64` values differ, each half on its own: an entity's index
/// is in the low half of its bits and its generation in the high half, so
/// entities of a few generations differ in a few high bits and many low
/// ones, with a gap between that need not be kept.
#[derive(Clone, Copy, Debug)]
struct VaryingBits {
    high: BitSpan,
    low: BitSpan,
}

impl VaryingBits {
    /// From the bits in which the values differ (`or ^ and`).
    fn from_varying(varying: u64) -> Self {
        Self {
            high: BitSpan::of((varying >> 32) as u32),
            low: BitSpan::of(varying as u32),
        }
    }

    fn width(self) -> u32 {
        self.high.width + self.low.width
    }

    /// The varying bits of `value`, at the bottom: comparing them compares
    /// the values.
    #[inline]
    fn field(self, value: u64) -> u64 {
        let high = self.high.field((value >> 32) as u32);
        (high << self.low.width) | self.low.field(value as u32)
    }
}

/// The bits of some `u32` values from the lowest to the highest in which
/// they differ: every value agrees on the bits below `shift` and from
/// `shift + width` up.
#[derive(Clone, Copy, Debug)]
struct BitSpan {
    shift: u32,
    width: u32,
}

impl BitSpan {
    /// From the bits in which the values differ.
    fn of(varying: u32) -> Self {
        if varying == 0 {
            Self { shift: 0, width: 0 }
        } else {
            let shift = varying.trailing_zeros();
            Self {
                shift,
                width: 32 - varying.leading_zeros() - shift,
            }
        }
    }

    /// The span's bits of `value`, at the bottom.
    #[inline]
    fn field(self, value: u32) -> u64 {
        u64::from(value >> self.shift) & ((1 << self.width) - 1)
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

    /// Keys spread evenly (a bucket holds a few: one insertion sort over
    /// all) and keys crowded into one bucket (each bucket sorted on its
    /// own), against a comparison sort.
    #[test]
    fn sorted_keys_match_a_comparison_sort() {
        let mut seed = 3;
        let mut sorted_keys = SortedKeys::default();
        for len in [0, 1, 5, 1000, 5000] {
            let spread: Vec<u64> = (0..len)
                .map(|_| pseudo_random(&mut seed) % (1 << 40))
                .collect();
            // Nine in ten below 2^20: all in the first bucket.
            let crowded: Vec<u64> = (0..len)
                .map(|i| pseudo_random(&mut seed) % if i % 10 == 0 { 1 << 40 } else { 1 << 20 })
                .collect();
            for keys in [spread, crowded] {
                let mut expected = keys.clone();
                expected.sort_unstable();
                assert_eq!(sorted_keys.sort(&keys, 40), expected, "{len} keys");
            }
        }
    }

    /// Pairs of keys whose varying bits fit in 64 (packed) and do not (the
    /// 128-bit fallback), against a comparison sort.
    #[test]
    fn sorts_unique_pairs_packed_or_not() {
        let mut seed = 7;
        let narrow = |seed: &mut u64| (3 << 40) | (pseudo_random(seed) % 100_000);
        // Entities of a few generations: a gap between the varying bits.
        let generations = |seed: &mut u64| {
            let r = pseudo_random(seed);
            ((r % 5) << 32) | (r >> 40)
        };
        let wide = |seed: &mut u64| pseudo_random(seed);
        let constant = |_: &mut u64| 42;
        type Draw = fn(&mut u64) -> u64;
        let cases: [(Draw, Draw); 6] = [
            (narrow, narrow),
            (generations, generations),
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
