//! The arguments of `RawBackend`'s methods that are more than a buffer or a number: the
//! [`Validated`] token, a warp launch, segments, the runs and by-key outputs. Re-exported by
//! raw.rs, their home in the public paths; a sort's validated key order, `SortSpec`, is
//! vocabulary (vocab/sort.rs), re-exported there too.

use crate::backend::Backend;
use crate::element::Element;
use crate::mask::LaneMask;
use crate::vocab::ScanKind;

/// Proof that the validated API checked the arguments of this call. It has no public
/// constructor: only wavekit-core makes one, just before it calls a `RawBackend` method.
#[derive(Clone, Copy, Debug)]
pub struct Validated {
    _private: (),
}

impl Validated {
    pub(crate) const fn new() -> Self {
        Validated { _private: () }
    }

    /// A token for a raw call that the validated API did not check: the workspace's tests use
    /// it to make deliberately inconsistent calls and see a backend refuse them.
    ///
    /// # Safety
    /// The arguments of the raw call made with it must satisfy that method's contract, except
    /// where the backend checks them itself (`GpuBackend` checks every length, mask width,
    /// sub-width, tile and block size against what it is handed, and its kernels the SpMV
    /// columns and atomic slots).
    #[cfg(feature = "test-hooks")]
    #[doc(hidden)]
    pub const unsafe fn assume_checked() -> Self {
        Validated { _private: () }
    }
}

/// A launch of `threads` threads split into warps of the backend's width. Every warp uses
/// `mask` as its member mask; lanes past `threads` in the last warp are not members.
#[derive(Clone, Copy, Debug)]
pub struct WarpLaunch {
    /// Threads launched: one value per thread.
    pub threads: usize,
    /// The member mask of every warp.
    pub mask: LaneMask,
}

impl WarpLaunch {
    /// The member mask of warp `w`: `mask` less the lanes that do not exist.
    pub fn members(&self, warp: usize) -> LaneMask {
        let width = self.mask.width();
        let lanes = width.lanes() as usize;
        let live = self.threads.saturating_sub(warp * lanes).min(lanes) as u32;
        let live_bits = if live as usize == lanes {
            width.full_bits()
        } else {
            (1u64 << live) - 1
        };
        LaneMask::from_bits(self.mask.bits() & live_bits, width).expect("subset of a valid mask")
    }

    /// Warps launched: `threads` over the width, rounded up.
    pub fn warps(&self) -> usize {
        self.threads.div_ceil(self.mask.width().lanes() as usize)
    }
}

/// Segments of a segmented reduce, already validated. `vector` lanes share a segment.
#[derive(Clone, Copy, Debug)]
pub enum SegmentSpec<'a, O> {
    /// `count` segments of `size` consecutive elements; the last may be shorter.
    Fixed {
        /// Elements per segment.
        size: usize,
        /// Segments.
        count: usize,
        /// Lanes per segment.
        vector: u32,
    },
    /// Segment i is `[offsets[i], offsets[i+1])`; `count + 1` offsets, monotone, in range.
    Offsets {
        /// The offsets, on the device.
        offsets: &'a O,
        /// Segments.
        count: usize,
        /// Lanes per segment.
        vector: u32,
        /// The longest segment's length.
        longest: usize,
    },
}

/// The outputs of a runs collective
/// ([`RawBackend::raw_runs`](crate::RawBackend::raw_runs)), each as long as the keys and holding
/// the runs at its front: the first key of each run, the value at each run's first position,
/// and each run's length. At least one is given.
#[derive(Debug)]
pub struct RunsOut<'a, B: Backend, K: Element, V: Element> {
    /// The first key of each run.
    pub keys: Option<&'a mut B::Buffer<K>>,
    /// The value at each run's first position (the run's value input is given with it).
    pub values: Option<&'a mut B::Buffer<V>>,
    /// Each run's length (at most `u32::MAX` keys).
    pub lengths: Option<&'a mut B::Buffer<u32>>,
}

/// The output of a by-key collective ([`RawBackend::raw_by_key`](crate::RawBackend::raw_by_key)).
#[derive(Debug)]
pub enum ByKeyOut<'a, B: Backend, K: Element, V: Element> {
    /// scan_by_key: each run's values scanned, into `out` (the keys' length).
    Scan {
        /// The scanned values.
        out: &'a mut B::Buffer<V>,
        /// Inclusive, or exclusive with the identity at each run's first position.
        kind: ScanKind,
    },
    /// reduce_by_key: each run's first key and its values reduced into the fronts of `keys`
    /// and `values` (each the keys' length), the number of runs into `count` (one element).
    Reduce {
        /// The first key of each run.
        keys: &'a mut B::Buffer<K>,
        /// Each run's reduction.
        values: &'a mut B::Buffer<V>,
        /// The number of runs.
        count: &'a mut B::Buffer<u64>,
    },
}
