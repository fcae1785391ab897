//! Chunked work shared by the thread running a detection step, the compute
//! task pool's other threads and, when it would otherwise sit idle, the main
//! thread.
//!
//! Bevy's multi-threaded executor runs systems on the compute task pool while
//! the main thread waits for the schedule to end, and its default pools give
//! the compute pool a single thread on a 2-CPU machine: a plain
//! `ComputeTaskPool::scope` would then run every chunk on one thread and
//! leave the other CPU idle. So the main thread is invited too. It claims
//! chunks only once it wakes up and is never waited for unless it holds one,
//! so a busy or slow main thread costs nothing but the invitation.

use std::cell::UnsafeCell;
#[cfg(feature = "parallel")]
use std::sync::{Mutex, MutexGuard, PoisonError};
#[cfg(feature = "parallel")]
use std::{
    any::Any,
    panic::AssertUnwindSafe,
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicUsize, Ordering},
    },
};

use bevy::prelude::*;
#[cfg(feature = "parallel")]
use bevy::tasks::{ComputeTaskPool, TaskPool, ThreadExecutor};

/// Runs chunked work on every thread that can help (see the module docs).
#[derive(Resource)]
pub(crate) struct Workers {
    /// The executor of the thread that built the app, which that thread
    /// ticks while it runs a schedule.
    #[cfg(feature = "parallel")]
    main: Arc<ThreadExecutor<'static>>,
    /// Whether an invitation to the main thread has not been taken up yet:
    /// then no other is sent, so a main thread that never ticks its executor
    /// cannot pile them up.
    #[cfg(feature = "parallel")]
    invitation_pending: Arc<AtomicBool>,
}

impl Default for Workers {
    /// Must be created on the thread that runs the app's schedules (the
    /// plugin is built there).
    fn default() -> Self {
        Self {
            #[cfg(feature = "parallel")]
            main: TaskPool::get_thread_executor(),
            #[cfg(feature = "parallel")]
            invitation_pending: Arc::new(AtomicBool::new(false)),
        }
    }
}

/// Runs `work(k)` once for every `k` in `0..chunks` and returns when all
/// calls have returned, in any order and on any threads: callers that need
/// a deterministic result store it by chunk ([`ChunkOutputs`]).
///
/// # Safety
///
/// Implementations must call `work(k)` exactly once for each `k` and return
/// only after every call has returned (or unwind): [`map_parts`] hands each
/// chunk its own `&mut` part on that promise.
pub(crate) unsafe trait RunChunks {
    fn for_each_chunk(&self, chunks: usize, work: impl Fn(usize) + Sync);

    /// How many threads may run chunks at once: work that costs more when
    /// cut finer can be cut into this many chunks.
    fn threads(&self) -> usize;
}

/// Runs chunks in order on the calling thread.
pub(crate) struct InOrder;

// SAFETY: each chunk runs once, in order, before the call returns.
unsafe impl RunChunks for InOrder {
    fn for_each_chunk(&self, chunks: usize, work: impl Fn(usize) + Sync) {
        (0..chunks).for_each(work);
    }

    fn threads(&self) -> usize {
        1
    }
}

// SAFETY: `Workers::share` claims each chunk once through an atomic counter
// and waits until every claimed chunk has finished.
unsafe impl RunChunks for Workers {
    /// The compute task pool's threads and the main thread.
    fn threads(&self) -> usize {
        #[cfg(feature = "parallel")]
        if let Some(pool) = ComputeTaskPool::try_get() {
            return pool.thread_num().max(1) + 1;
        }
        1
    }

    /// Spreads the chunks over the threads that can help.
    fn for_each_chunk(&self, chunks: usize, work: impl Fn(usize) + Sync) {
        #[cfg(feature = "parallel")]
        if chunks > 1 {
            self.share(chunks, &work);
            return;
        }
        (0..chunks).for_each(work);
    }
}

/// Runs chunks last first on the calling thread, but claims to have
/// `threads` threads, so that tests see work cut as for that many threads
/// and chunks finishing out of order.
#[cfg(test)]
pub(crate) struct InReverse {
    pub(crate) threads: usize,
}

// SAFETY: each chunk runs once, before the call returns.
#[cfg(test)]
unsafe impl RunChunks for InReverse {
    fn for_each_chunk(&self, chunks: usize, work: impl Fn(usize) + Sync) {
        (0..chunks).rev().for_each(work);
    }

    fn threads(&self) -> usize {
        self.threads
    }
}

/// Locks `mutex`, even if a chunk panicked while holding it: that panic is
/// raised again on the calling thread once the chunks are done, so a poisoned
/// lock adds nothing to report.
#[cfg(feature = "parallel")]
#[inline]
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Runs `work(k, part)` for every part `k`, each part moved into exactly one
/// call, spread over `runner`'s threads, and returns the results in part
/// order. Parts are usually disjoint `&mut` slices (or structs of them), so
/// chunks write their own places in shared arrays without locks.
pub(crate) fn map_parts<P: Send, R: Send>(
    runner: &impl RunChunks,
    parts: Vec<P>,
    work: impl Fn(usize, P) -> R + Sync,
) -> Vec<R> {
    let slots: Vec<PartSlot<P, R>> = (parts.into_iter())
        .map(|part| PartSlot(UnsafeCell::new(PartState::Waiting(part))))
        .collect();
    runner.for_each_chunk(slots.len(), |k| {
        // SAFETY: `RunChunks` calls each `k` exactly once, so no other call
        // reaches slot `k` while this one takes its part and leaves its
        // result; the caller reads the results only after all calls return.
        let state = unsafe { &mut *slots[k].0.get() };
        if let PartState::Waiting(part) = std::mem::replace(state, PartState::Taken) {
            *state = PartState::Done(work(k, part));
        }
    });
    (slots.into_iter())
        .filter_map(|slot| match slot.0.into_inner() {
            PartState::Done(result) => Some(result),
            PartState::Waiting(_) | PartState::Taken => None,
        })
        .collect()
}

/// [`map_parts`] without results.
pub(crate) fn for_each_part<P: Send>(
    runner: &impl RunChunks,
    parts: Vec<P>,
    work: impl Fn(usize, P) + Sync,
) {
    map_parts(runner, parts, work);
}

/// Runs `work(k, chunk)` on `items` cut into chunks of `per_chunk` (the last
/// one shorter), chunk `k` starting at `k * per_chunk`, in parallel.
pub(crate) fn for_each_chunk_mut<T: Send>(
    runner: &impl RunChunks,
    items: &mut [T],
    per_chunk: usize,
    work: impl Fn(usize, &mut [T]) + Sync,
) {
    for_each_part(runner, items.chunks_mut(per_chunk).collect(), work);
}

/// `items` cut into consecutive parts of the given `lengths` (together at
/// most its length; what is left over is not returned).
pub(crate) fn split_parts<T>(
    mut items: &mut [T],
    lengths: impl IntoIterator<Item = usize>,
) -> Vec<&mut [T]> {
    (lengths.into_iter())
        .map(|length| {
            let (part, rest) = std::mem::take(&mut items).split_at_mut(length);
            items = rest;
            part
        })
        .collect()
}

/// One part of a [`map_parts`] call, reached by its own chunk only.
struct PartSlot<P, R>(UnsafeCell<PartState<P, R>>);

enum PartState<P, R> {
    Waiting(P),
    Taken,
    Done(R),
}

// SAFETY: each slot is reached by one chunk call only (see `map_parts`), which
// moves the part out and the result in: values cross threads (`Send`) but
// are never shared.
unsafe impl<P: Send, R: Send> Sync for PartSlot<P, R> {}

/// One output list per chunk, kept between calls to reuse their allocations.
#[derive(Debug)]
pub(crate) struct ChunkOutputs<T>(Vec<Vec<T>>);

impl<T> Default for ChunkOutputs<T> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<T: Copy + Send> ChunkOutputs<T> {
    /// Runs `work(k, part, output)` for every part `k` (it appends part `k`'s
    /// results to `output`), then appends all outputs to `all` in part
    /// order, so that `all` does not depend on which thread ran what.
    pub(crate) fn collect_parts<P: Send>(
        &mut self,
        runner: &impl RunChunks,
        parts: Vec<P>,
        work: impl Fn(usize, P, &mut Vec<T>) + Sync,
        all: &mut Vec<T>,
    ) {
        if parts.len() <= 1 {
            for (k, part) in parts.into_iter().enumerate() {
                work(k, part, all);
            }
            return;
        }
        if self.0.len() < parts.len() {
            self.0.resize_with(parts.len(), Vec::new);
        }
        let outputs = &mut self.0[..parts.len()];
        let with_outputs = parts.into_iter().zip(outputs.iter_mut()).collect();
        for_each_part(runner, with_outputs, |k, (part, output)| {
            output.clear();
            work(k, part, output);
        });
        for output in outputs.iter() {
            all.extend_from_slice(output);
        }
    }

    /// [`Self::collect_parts`] over the chunk numbers `0..chunks`.
    pub(crate) fn collect(
        &mut self,
        runner: &impl RunChunks,
        chunks: usize,
        work: impl Fn(usize, &mut Vec<T>) + Sync,
        all: &mut Vec<T>,
    ) {
        let parts = (0..chunks).collect();
        self.collect_parts(runner, parts, |k, _, output| work(k, output), all);
    }

    /// [`Self::collect_parts`] over `items` cut into chunks of `per_chunk`
    /// (the last one shorter): `work(k, chunk, output)`.
    pub(crate) fn collect_over<I: Sync>(
        &mut self,
        runner: &impl RunChunks,
        items: &[I],
        per_chunk: usize,
        work: impl Fn(usize, &[I], &mut Vec<T>) + Sync,
        all: &mut Vec<T>,
    ) {
        let parts = items.chunks(per_chunk).collect();
        self.collect_parts(runner, parts, work, all);
    }
}

impl Workers {
    #[cfg(feature = "parallel")]
    fn share(&self, chunks: usize, work: &(dyn Fn(usize) + Sync)) {
        // The pointer outlives `work`, but is only followed for a claimed
        // chunk (see `Job::help`), and every chunk is claimed and finished
        // before this function returns: the caller's own `help` below claims
        // until none is left, and the wait at the end lasts until all have
        // finished. A helper that runs later claims nothing.
        // SAFETY: only the lifetime of the trait object changes.
        let work: *const (dyn Fn(usize) + Sync + 'static) =
            unsafe { std::mem::transmute(work as *const (dyn Fn(usize) + Sync + '_)) };
        let job = Arc::new(Job {
            next: AtomicUsize::new(0),
            finished: AtomicUsize::new(0),
            panic: Mutex::new(None),
            chunks,
            work,
        });
        // Invite the main thread, unless this is the main thread or an
        // earlier invitation is still unanswered.
        if self.main.ticker().is_none() && !self.invitation_pending.swap(true, Ordering::AcqRel) {
            let (job, pending) = (job.clone(), self.invitation_pending.clone());
            self.main
                .spawn(async move {
                    pending.store(false, Ordering::Release);
                    job.help();
                })
                .detach();
        }
        match ComputeTaskPool::try_get() {
            Some(pool) if pool.thread_num() > 1 => {
                pool.scope(|scope| {
                    for _ in 0..pool.thread_num() {
                        scope.spawn(async { job.help() });
                    }
                });
            }
            _ => job.help(),
        }
        // Every chunk is claimed; wait for the ones other threads still run.
        while job.finished.load(Ordering::Acquire) < chunks {
            std::thread::yield_now();
        }
        // A chunk that panicked, on whichever thread: go on unwinding here.
        let panic = lock(&job.panic).take();
        if let Some(payload) = panic {
            std::panic::resume_unwind(payload);
        }
    }
}

/// One [`Workers::for_each_chunk`] call, shared by its helpers.
#[cfg(feature = "parallel")]
struct Job {
    /// The next chunk to claim (claims past `chunks` find nothing).
    next: AtomicUsize,
    /// How many claimed chunks have been run.
    finished: AtomicUsize,
    /// The first panic of a chunk, caught so that the chunk still counts as
    /// finished, to be resumed on the caller.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    chunks: usize,
    /// The work of each chunk; valid until every chunk has finished (see
    /// `Workers::share`).
    work: *const (dyn Fn(usize) + Sync),
}

// SAFETY: `work` points to a `Sync` closure and is only called while valid
// (see `Workers::share`); the rest are atomics and a mutex.
#[cfg(feature = "parallel")]
unsafe impl Send for Job {}
// SAFETY: as for `Send`: `work` is only called while valid, and a `Sync`
// closure may be called from several threads at once.
#[cfg(feature = "parallel")]
unsafe impl Sync for Job {}

#[cfg(feature = "parallel")]
impl Job {
    /// Runs chunks until none is left to claim.
    fn help(&self) {
        loop {
            let chunk = self.next.fetch_add(1, Ordering::Relaxed);
            if chunk >= self.chunks {
                return;
            }
            // SAFETY: `chunk` is claimed, so the caller of `Workers::share`
            // is still waiting and `work` is valid.
            let work = unsafe { &*self.work };
            if let Err(payload) = std::panic::catch_unwind(AssertUnwindSafe(|| work(chunk))) {
                let mut first = lock(&self.panic);
                if first.is_none() {
                    *first = Some(payload);
                } else {
                    // Not dropped here: a payload whose drop panics would
                    // unwind past the count below.
                    std::mem::forget(payload);
                }
            }
            self.finished.fetch_add(1, Ordering::Release);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

    #[test]
    fn every_chunk_runs_exactly_once() {
        let workers = Workers::default();
        for chunks in [0, 1, 2, 7, 100] {
            let runs: Vec<AtomicU32> = (0..chunks).map(|_| AtomicU32::new(0)).collect();
            workers.for_each_chunk(chunks, |k| {
                runs[k].fetch_add(1, Ordering::Relaxed);
            });
            assert!(
                runs.iter().all(|r| r.load(Ordering::Relaxed) == 1),
                "{chunks} chunks"
            );
        }
    }

    /// From a thread other than the one that created the workers, chunks are
    /// offered to that thread too, and the call returns even though that
    /// thread never ticks its executor (the invitation just waits).
    #[cfg(feature = "parallel")]
    #[test]
    fn does_not_wait_for_a_main_thread_that_never_helps() {
        let workers = Workers::default();
        std::thread::scope(|s| {
            s.spawn(|| {
                for _ in 0..3 {
                    let sum = AtomicUsize::new(0);
                    workers.for_each_chunk(10, |k| {
                        sum.fetch_add(k, Ordering::Relaxed);
                    });
                    assert_eq!(sum.into_inner(), 45);
                }
            });
        });
        assert!(workers.invitation_pending.load(Ordering::Acquire));
    }

    #[cfg(feature = "parallel")]
    #[test]
    fn a_panicking_chunk_panics_the_caller_after_the_others_ran() {
        let workers = Workers::default();
        let ran = AtomicUsize::new(0);
        let result = std::panic::catch_unwind(AssertUnwindSafe(|| {
            workers.for_each_chunk(10, |k| {
                ran.fetch_add(1, Ordering::Relaxed);
                if k == 3 {
                    panic!("chunk three");
                }
            });
        }));
        let payload = result.expect_err("the panic reaches the caller");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"chunk three"));
        assert_eq!(ran.into_inner(), 10);
    }

    /// Every part reaches exactly one call and comes back in part order,
    /// and chunks write their own slices of one array.
    #[test]
    fn parts_are_handed_out_once_and_results_kept_in_order() {
        let workers = Workers::default();
        for len in [0, 1, 5, 1000] {
            let mut items = vec![0usize; len];
            let lengths = [len / 3, len / 3, len - 2 * (len / 3)];
            let parts = split_parts(&mut items, lengths);
            let sums = map_parts(&workers, parts, |k, part| {
                part.iter_mut().for_each(|item| *item = k + 1);
                part.len()
            });
            assert_eq!(sums, lengths, "{len} items");
            let expected: Vec<usize> = (0..3).flat_map(|k| vec![k + 1; lengths[k]]).collect();
            assert_eq!(items, expected, "{len} items");
            for_each_chunk_mut(&workers, &mut items, 7, |k, chunk| {
                chunk.iter_mut().for_each(|item| *item = k)
            });
            assert!(items.iter().enumerate().all(|(at, &k)| k == at / 7));
        }
    }

    #[test]
    fn outputs_are_collected_in_chunk_order() {
        let mut outputs = ChunkOutputs::default();
        for chunks in [0, 1, 5, 3] {
            let mut all = vec![99];
            outputs.collect(
                &Workers::default(),
                chunks,
                |k, output| output.extend(std::iter::repeat_n(k, k + 1)),
                &mut all,
            );
            let expected: Vec<usize> = std::iter::once(99)
                .chain((0..chunks).flat_map(|k| std::iter::repeat_n(k, k + 1)))
                .collect();
            assert_eq!(all, expected, "{chunks} chunks");
        }
    }
}
