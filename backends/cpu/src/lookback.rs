//! Chunks worked in input order by every rayon thread, each chunk handing one value to the next:
//! the CPU form of a decoupled look-back. A worker takes the next chunk from a shared counter,
//! does the part that needs nothing from its predecessor (a chunk total, a count) while the
//! chunk is read from memory, waits for the predecessor's value, publishes its own at once, and
//! finishes the chunk from cache. So the input is read from memory once, and the value passed
//! along is a left fold over the chunks in order whatever the scheduling.

use super::scratch::Scratch;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use wavekit_core::error::Result;

// The status words are the scratch's u64s viewed as atomics; these hold on every target with
// 64-bit atomics, and this stops the build where they would not.
const _: () = assert!(size_of::<AtomicU64>() == size_of::<u64>());
const _: () = assert!(align_of::<AtomicU64>() == align_of::<u64>());

const PENDING: u64 = 0;
const READY: u64 = 1;
/// The predecessor unwound without publishing: waiting would never end.
const POISONED: u64 = 2;

/// Spins on a pending predecessor before yielding the core to someone else.
const SPINS_BEFORE_YIELD: u32 = 256;

/// Chunk `index`'s connection to its neighbours. Dropping it without `publish` (a panic in the
/// chunk's work, or in the work of the chunk its worker did before) poisons the chain, so the
/// successor panics instead of waiting for ever.
pub(crate) struct Link<'a> {
    index: usize,
    /// The chunk the same worker takes next, if any: its input can be fetched ahead.
    next: Option<usize>,
    /// Two words per chunk: state, then value.
    words: &'a [AtomicU64],
    published: bool,
}

impl Link<'_> {
    /// The chunk this worker works after this one, if any.
    pub(crate) fn next(&self) -> Option<usize> {
        self.next
    }

    /// The value chunk `index - 1` published, waiting for it; `None` for chunk 0.
    pub(crate) fn wait(&self) -> Option<u64> {
        let prev = self.index.checked_sub(1)?;
        let (state, value) = (&self.words[2 * prev], &self.words[2 * prev + 1]);
        let mut spins = 0u32;
        loop {
            match state.load(Ordering::Acquire) {
                READY => return Some(value.load(Ordering::Relaxed)),
                POISONED => panic!("chunk {prev} of a chained pass panicked or was abandoned"),
                _ if spins < SPINS_BEFORE_YIELD => {
                    spins += 1;
                    std::hint::spin_loop();
                }
                _ => std::thread::yield_now(),
            }
        }
    }

    /// Hands `value` to chunk `index + 1`; call once, after `wait`.
    pub(crate) fn publish(&mut self, value: u64) {
        debug_assert!(!self.published, "chunk {} published twice", self.index);
        self.words[2 * self.index + 1].store(value, Ordering::Relaxed);
        self.words[2 * self.index].store(READY, Ordering::Release);
        self.published = true;
    }
}

impl Drop for Link<'_> {
    fn drop(&mut self) {
        if !self.published {
            self.words[2 * self.index].store(POISONED, Ordering::Release);
        }
    }
}

/// How many workers `chained` starts for `chunks` chunks (each calling its `init` once): at
/// least one.
pub(crate) fn workers(chunks: usize) -> usize {
    rayon::current_num_threads().min(chunks).max(1)
}

/// Runs `work(state, chunk, link)` for chunks `0..chunks` on every rayon thread, chunks taken
/// in increasing order, `state` made by `init` once per worker; each chunk must `publish`
/// through its link exactly once. A worker only waits on a chunk another worker took earlier
/// and is working or about to, so the chain always moves.
///
/// # Errors
/// `OutOfMemory` when the links do not fit in the scratch: no chunk is worked then.
pub(crate) fn chained<S>(
    chunks: usize,
    scratch: &Scratch,
    init: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, usize, &mut Link) + Sync,
) -> Result<()> {
    scratch.with::<u64, _>(2 * chunks, |words| {
        words.fill(PENDING);
        // SAFETY: AtomicU64 has the size, alignment (asserted above) and bit validity of u64,
        // and `words` is borrowed exclusively for the whole life of this shared atomic view.
        let words: &[AtomicU64] = unsafe { &*(words as *mut [u64] as *const [AtomicU64]) };
        let next = AtomicUsize::new(0);
        let claim = || {
            Some(next.fetch_add(1, Ordering::Relaxed))
                .filter(|&c| c < chunks)
                .map(|index| Link {
                    index,
                    next: None,
                    words,
                    published: false,
                })
        };
        // A worker claims its next chunk before working the current one, so it knows which
        // input to fetch ahead. Claims still go out in increasing order and every claimed
        // chunk belongs to a running worker, so the lowest unpublished chunk is always being
        // worked. The next chunk's link exists before the current one is worked: if the work
        // unwinds, both links drop and poison their chunks, and no successor waits on a chunk
        // that nobody will work.
        let worker = || {
            let mut state = init();
            let mut current = claim();
            while let Some(mut link) = current {
                current = claim();
                link.next = current.as_ref().map(|l| l.index);
                work(&mut state, link.index, &mut link);
            }
        };
        let workers = workers(chunks);
        if workers <= 1 {
            worker();
        } else {
            // One task a thread; a thread busy elsewhere leaves its share to the others.
            crate::par::for_each(workers, 1, |_| worker());
        }
    })
}
