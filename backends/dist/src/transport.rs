//! The `Transport` trait: what the distributed collectives need from a communicator. Two
//! implementations: ranks as threads over the CPU backend (`threads.rs`, the oracle CI runs) and
//! NCCL/RCCL over the GPU backends (`nccl/mod.rs`).
//!
//! Only two operations combine values, and both combine exactly two of them per element
//! (`pair_*`): every op is commutative bit for bit, so a two-value combine has one possible
//! result whatever the library's algorithm. Every longer chain of combines is spelled out by
//! the caller (`elementwise.rs`), which is what makes the reproducible collectives independent
//! of the transport. `all_reduce_native` is the library's own allreduce, for the fast mode.

use crate::device::SliceDevice;
use wavekit_core::{Backend, Element, ReduceOp, Result};

/// A device buffer of the transport's backend.
pub type Buf<X, T> = <<X as Transport>::Backend as Backend>::Buffer<T>;

/// One rank's endpoint of a communicator. Every rank calls the same methods in the same order
/// with equal lengths (the collectives check that with a handshake before moving data).
pub trait Transport: Send {
    type Backend: SliceDevice;

    /// The device this rank computes on.
    fn backend(&self) -> &Self::Backend;
    fn rank(&self) -> usize;
    fn world(&self) -> usize;

    /// `recv` = every rank's `send` concatenated in rank order (`recv.len() = world * send.len()`).
    fn all_gather<T: Element>(&self, send: &Buf<Self, T>, recv: &mut Buf<Self, T>) -> Result<()>;

    /// Two-rank reduce-scatter with `peer`: both pass `send` of `2m` elements; the lower rank of
    /// the pair gets `op(mine[i], theirs[i])` for `i < m`, the higher for `i >= m`, in `recv`.
    fn pair_reduce_scatter<T: Element>(
        &self,
        peer: usize,
        send: &Buf<Self, T>,
        recv: &mut Buf<Self, T>,
        op: ReduceOp,
    ) -> Result<()>;

    /// Two-rank allreduce with `peer`: both get `op(mine[i], theirs[i])` in `recv`.
    fn pair_all_reduce<T: Element>(
        &self,
        peer: usize,
        send: &Buf<Self, T>,
        recv: &mut Buf<Self, T>,
        op: ReduceOp,
    ) -> Result<()>;

    /// The library's own allreduce over all ranks: fast, but for floats its bits may depend on
    /// the rank count, the message size and the algorithm.
    fn all_reduce_native<T: Element>(
        &self,
        send: &Buf<Self, T>,
        recv: &mut Buf<Self, T>,
        op: ReduceOp,
    ) -> Result<()>;
}
