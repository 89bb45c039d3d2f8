//! The tile primitives on a GPU (`RawBackend`'s `raw_tile_shfl`, `raw_tile_vote`,
//! `raw_tile_reduce`, which raw_backend.rs hands here): the values uploaded, one launch of
//! csrc/kernels/tile.cu run and waited for, one result a thread read back.

use super::backend::GpuBackend;
use super::ffi::kind;
use super::runtime::GpuRuntime;
use super::warp::bools;
use wavekit_core::api::check_len;
use wavekit_core::element::Element;
use wavekit_core::error::Result;
use wavekit_core::{ReduceOp, Shfl, Vote};

impl<R: GpuRuntime> GpuBackend<R> {
    /// What `RawBackend::raw_tile_shfl` does on this backend.
    pub(crate) fn tile_shfl_run<T: Element>(
        &self,
        threads: usize,
        tile: u32,
        kind_: Shfl,
        vals: &[T],
        arg: i32,
    ) -> Result<Vec<T>> {
        self.width.check_tile(tile)?;
        check_len("tile_shfl values", threads, vals.len())?;
        self.map_values("tile_shfl", vals, threads, |k, input, out| {
            k.tile_shfl(
                self.launch_width,
                kind::<T>(),
                kind_ as u32,
                input,
                threads as u64,
                tile,
                arg,
                out,
            )
        })
    }

    /// What `RawBackend::raw_tile_vote` does on this backend.
    pub(crate) fn tile_vote_run(
        &self,
        threads: usize,
        tile: u32,
        vote: Vote,
        preds: &[bool],
    ) -> Result<Vec<u64>> {
        self.width.check_tile(tile)?;
        check_len("tile_vote predicates", threads, preds.len())?;
        let mut work = self.lock();
        self.rt.make_current()?;
        let input = self.mem_from(&bools(preds)?)?;
        let mut out = self.lanes_zeroed::<u64>(threads)?;
        self.run_checked(&mut work, "tile_vote", |k, _| {
            k.tile_vote(
                self.launch_width,
                self.impl_code(),
                vote as u32,
                self.input_mem(&input)?,
                threads as u64,
                tile,
                self.output_mem(&mut out)?,
            )
        })?;
        self.read_u64s(&out, threads)
    }

    /// What `RawBackend::raw_tile_reduce` does on this backend.
    pub(crate) fn tile_reduce_run<T: Element>(
        &self,
        threads: usize,
        tile: u32,
        op: ReduceOp,
        vals: &[T],
    ) -> Result<Vec<T>> {
        self.width.check_tile(tile)?;
        check_len("tile_reduce values", threads, vals.len())?;
        self.map_values("tile_reduce", vals, threads, |k, input, out| {
            k.tile_reduce(
                self.launch_width,
                kind::<T>(),
                op as u32,
                input,
                threads as u64,
                tile,
                out,
            )
        })
    }
}
