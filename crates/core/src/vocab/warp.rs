//! The kinds of warp primitive: [`Vote`], [`Shfl`] and [`Match`], as CUDA names them (the
//! `repr(u32)` codes are the kernels').

/// A warp vote: which of CUDA's `__all_sync`, `__any_sync`, `__uni_sync`, `__ballot_sync`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum Vote {
    /// `true` when the predicate holds on every member (`__all_sync`).
    All = 0,
    /// `true` when the predicate holds on at least one member (`__any_sync`).
    Any = 1,
    /// `true` when every member holds the same predicate (`__uni_sync`).
    Uni = 2,
    /// The mask of members whose predicate holds (`__ballot_sync`).
    Ballot = 3,
}

/// A warp shuffle: which of `__shfl_sync`, `__shfl_up_sync`, `__shfl_down_sync`,
/// `__shfl_xor_sync`. Lanes are counted within the caller's segment of `width` lanes.
///
/// The shuffle kinds. In every kind `arg` is first cut to its low log2(W) bits, as the
/// hardware reads it ([`hw_shfl_arg`](crate::lanes::hw_shfl_arg)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum Shfl {
    /// Read lane `arg % width` of the caller's width segment.
    Idx = 0,
    /// Read lane `lane - arg`, or keep the caller's value below the segment start.
    Up = 1,
    /// Read lane `lane + arg`, or keep the caller's value at or past the segment end.
    Down = 2,
    /// Read lane `lane ^ arg`, or keep the caller's value if that lies past the segment.
    Xor = 3,
}

/// A warp match: `__match_any_sync` or `__match_all_sync`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum Match {
    /// Each member gets the members holding the same bits as itself.
    Any = 0,
    /// Every member gets the member mask when all hold the same bits, else the empty mask.
    All = 1,
}
