//! block_reduce on a GPU (`RawBackend::raw_block_reduce`, which raw_backend.rs hands here):
//! the block size and the output's length checked again, csrc/kernels/block_reduce.cu's launch
//! enqueued on the stream with the caller's output.

use super::backend::GpuBackend;
use super::buffer::GpuBuffer;
use super::ffi::kind;
use super::queue::Reports;
use super::runtime::GpuRuntime;
use wavekit_core::ReduceOp;
use wavekit_core::api::check_len;
use wavekit_core::canonical::MAX_BLOCK;
use wavekit_core::element::Element;
use wavekit_core::error::{Result, WavekitError};
use wavekit_core::width::LOGICAL_GROUP;

impl<R: GpuRuntime> GpuBackend<R> {
    /// What `RawBackend::raw_block_reduce` does on this backend.
    pub(crate) fn block_reduce_enqueue<T: Element>(
        &self,
        input: &GpuBuffer<T, R>,
        block: u32,
        op: ReduceOp,
        output: &mut GpuBuffer<T, R>,
    ) -> Result<()> {
        self.own(input)?;
        self.own(output)?;
        if !block.is_multiple_of(LOGICAL_GROUP) || block == 0 || block > MAX_BLOCK {
            return Err(WavekitError::InvalidBlockSize(block));
        }
        let n = input.len;
        check_len(
            "block reduce output (one per block)",
            n.div_ceil(block as usize),
            output.len,
        )?;
        let mut work = self.lock();
        // The block_reduce launcher does not pass the status word to its kernel.
        self.launch(&mut work, "block_reduce", Reports::Nothing, |k, _| {
            k.block_reduce(
                kind::<T>(),
                op as u32,
                self.input(input)?,
                n as u64,
                block,
                self.output(output)?,
            )
        })
    }
}
