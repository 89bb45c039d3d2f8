//! A backend's workspace: the device memory every call reuses (status words, the result slot,
//! the scratch pools), grown on demand and kept, so that calls after the largest one allocate
//! nothing; and the scratch handles the launches take from it (launch.rs).

use super::backend::GpuBackend;
use super::buffer::DeviceMem;
use super::ffi;
use super::launch::{Out, ReduceScratch};
use super::queue::Pending;
use super::runtime::GpuRuntime;
use super::tagged_pool::TaggedPool;
use wavekit_core::element::{ElemKind, Element};
use wavekit_core::error::{Result, WavekitError};

/// Bytes of the result slot that one-value results (a reduce, a count) come back through.
pub(crate) const RESULT_BYTES: usize = 64;

/// The workspace under the backend's lock: the status slots kernels report errors into and the
/// launches that may have written them, the pools launches take their scratch from, and the
/// one-element outputs lent to the returning conveniences. The lock also serialises calls on
/// one backend, so the work of one call uses the pools after the previous call's work on the
/// same stream.
pub(crate) struct Work<R: GpuRuntime> {
    pub(crate) status: DeviceMem<R>,
    /// Queued launches whose kernels may have written a status slot since they were last read.
    pub(crate) pending: Pending,
    pub(crate) pools: Pools<R>,
    /// One-element outputs lent to the returning conveniences (`raw_scalar`), kept for reuse.
    pub(crate) slots: Vec<DeviceMem<R>>,
}

/// Device memory a launch may take for its own: the slot one-value results come back through,
/// a grow-only scratch pool (compaction counts, look-back statuses), the device reduce's own
/// scratch, zeroed when allocated: its tickets must start at zero and every reduce leaves them
/// zero (csrc/kernels/device_reduce.cu), so no call pays for a memset, and the look-back
/// collectives' own, whose statuses each call tags (tagged_pool.rs), for the same reason.
pub(crate) struct Pools<R: GpuRuntime> {
    pub(crate) result: DeviceMem<R>,
    pub(crate) pool: DeviceMem<R>,
    pub(crate) reduce_pool: DeviceMem<R>,
    /// The look-back collectives' scratch, their statuses kept between calls (tagged_pool.rs),
    /// indexed by `Tagged`.
    pub(crate) tagged: [TaggedPool<R>; 4],
}

impl<R: GpuRuntime> GpuBackend<R> {
    /// A one-element output for a returning convenience: one this backend lent before, or a
    /// new one (counted).
    pub(crate) fn take_slot(&self) -> Result<DeviceMem<R>> {
        let slot = self.lock().slots.pop();
        match slot {
            Some(slot) => Ok(slot),
            None => self.mem(RESULT_BYTES),
        }
    }

    /// Keeps a lent slot for the next convenience.
    pub(crate) fn return_slot(&self, slot: DeviceMem<R>) {
        self.lock().slots.push(slot);
    }

    /// Makes the pool at least `bytes` long (it only ever grows) and lends it as a launch's
    /// scratch.
    pub(crate) fn ensure_pool<'p>(&self, pools: &'p mut Pools<R>, bytes: u64) -> Result<Out<'p>> {
        let bytes = usize::try_from(bytes).map_err(|_| WavekitError::OutOfMemory { bytes })?;
        if pools.pool.bytes < bytes {
            let grown = bytes.max(pools.pool.bytes.saturating_mul(2));
            // Freeing the old pool waits for the work queued on it (cuMemFree, hipFree).
            pools.pool = DeviceMem::new(&self.cache, 0)?;
            pools.pool = self.mem(grown)?;
        }
        self.output_mem(&mut pools.pool)
    }

    /// Makes the device reduce's zeroed scratch at least `bytes` long; it only ever grows, and a
    /// new allocation is zeroed before use.
    pub(crate) fn ensure_reduce_pool(&self, pools: &mut Pools<R>, bytes: u64) -> Result<()> {
        let bytes = usize::try_from(bytes).map_err(|_| WavekitError::OutOfMemory { bytes })?;
        if pools.reduce_pool.bytes < bytes {
            pools.reduce_pool = DeviceMem::new(&self.cache, 0)?;
            pools.reduce_pool = self.mem_zeroed(bytes)?;
        }
        Ok(())
    }

    /// The device reduce's scratch for `n` elements of `T`: the whole pool. The launcher keeps
    /// its tickets at the pool's start and its partials at the end, so that no call's partials
    /// land where another's tickets must stay zero.
    pub(crate) fn reduce_scratch<'p, T: Element>(
        &self,
        pools: &'p mut Pools<R>,
        n: usize,
    ) -> Result<ReduceScratch<'p>> {
        self.zeroed_scratch(pools, ffi::ALGO_DEVICE_REDUCE, T::KIND, n)
    }

    /// The reduce pool, at least `algo`'s bytes for `n` elements of `kind`, for a launcher that
    /// keeps its tickets there as the device reduce does (launchers.def: device_reduce,
    /// arg_reduce).
    pub(crate) fn zeroed_scratch<'p>(
        &self,
        pools: &'p mut Pools<R>,
        algo: u32,
        kind: ElemKind,
        n: usize,
    ) -> Result<ReduceScratch<'p>> {
        let need = self.scratch_bytes(algo, kind, n);
        self.ensure_reduce_pool(pools, need)?;
        Ok(ReduceScratch::new(&mut pools.reduce_pool))
    }
}
