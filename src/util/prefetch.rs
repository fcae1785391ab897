//! Reading scattered memory without waiting for each read in turn.

/// How many reads ahead a gather loop asks for the values it will read:
/// about as many as the processor can wait for at once.
pub(crate) const PREFETCH_DISTANCE: usize = 12;

/// Asks the processor to start loading `value` (both cache lines it may
/// span) into its cache, without waiting for it.
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let start = (value as *const T).cast::<i8>();
        let last = start.wrapping_add(size_of::<T>().saturating_sub(1));
        // SAFETY: SSE is part of every x86_64 target, and a prefetch is only
        // a hint: it reads nothing the program sees and never faults.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(start);
            _mm_prefetch::<_MM_HINT_T0>(last);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
