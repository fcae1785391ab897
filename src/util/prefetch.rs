//! Reading scattered memory without waiting for each read in turn.

/// How many reads ahead a gather loop asks for the values it will read:
/// about as many as the processor can wait for at once.
pub(crate) const PREFETCH_DISTANCE: usize = 12;

/// Asks the processor to start loading `value` (both cache lines it may
/// span) into its cache, without waiting for it.
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
    let start = (value as *const T).cast::<u8>();
    prefetch_line(start);
    prefetch_line(start.wrapping_add(size_of::<T>().saturating_sub(1)));
}

/// [`prefetch`] for every cache line of `values` (at most 8 lines: a long
/// run is read sequentially anyway, which the processor sees coming).
#[inline(always)]
pub(crate) fn prefetch_slice<T>(values: &[T]) {
    let start = values.as_ptr().cast::<u8>();
    let len = size_of_val(values).min(8 * 64);
    for offset in (0..len).step_by(64) {
        prefetch_line(start.wrapping_add(offset));
    }
    if len > 0 {
        prefetch_line(start.wrapping_add(len - 1));
    }
}

/// Starts loading the cache line holding `address`.
#[inline(always)]
fn prefetch_line(address: *const u8) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: SSE is part of every x86_64 target, and a prefetch is only
        // a hint: it reads nothing the program sees and never faults.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(address.cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}
