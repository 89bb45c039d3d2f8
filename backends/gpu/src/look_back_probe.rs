//! Test hook: the scan's look-back over statuses the caller chooses
//! (csrc/kernels/look_back_probe.cu). Real scans nearly always meet an inclusive prefix a few tiles back, so
//! this is how the long-chain paths of the look-back are checked against a plain fold.

use super::backend::GpuBackend;
use super::ffi;
use super::runtime::GpuRuntime;
use wavekit_core::Backend;
use wavekit_core::element::Element;
use wavekit_core::error::{Result, WavekitError};
use wavekit_core::op::ReduceOp;

/// What a tile has published when the look-back reads it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TileStatus<T> {
    /// The tile's own aggregate A_i.
    Aggregate(T),
    /// The inclusive prefix X_{i+1} (every tile before it and itself).
    Inclusive(T),
}

impl<R: GpuRuntime> GpuBackend<R> {
    /// The exclusive prefix the look-back folds for tile `statuses.len()` once tiles 0.. have
    /// published `statuses`. Tile 0 must be `Inclusive`: a look-back ends only at an inclusive
    /// prefix, as in a real scan, where tile 0 publishes nothing else.
    #[doc(hidden)]
    pub fn probe_look_back<T: Element>(
        &self,
        op: ReduceOp,
        statuses: &[TileStatus<T>],
    ) -> Result<T> {
        op.check::<T>()?;
        match statuses.first() {
            None => {
                return Err(WavekitError::EmptyInput {
                    what: "look-back statuses",
                });
            }
            Some(TileStatus::Aggregate(_)) => {
                return Err(WavekitError::InvalidStatus {
                    tile: 0,
                    reason: "tile 0 must publish an inclusive prefix",
                });
            }
            Some(TileStatus::Inclusive(_)) => {}
        }
        let (flags, values): (Vec<u32>, Vec<T>) = statuses
            .iter()
            .map(|s| match *s {
                TileStatus::Aggregate(v) => (1, v),
                TileStatus::Inclusive(v) => (2, v),
            })
            .unzip();
        let flags = self.upload(&flags)?;
        let values = self.upload(&values)?;
        let mut out = self.alloc::<T>(1)?;
        let tiles = statuses.len();
        let mut work = self.lock();
        self.rt.make_current()?;
        let n = tiles
            .checked_mul(wavekit_core::canonical::SCAN_TILE)
            .ok_or(WavekitError::TooLarge {
                what: "look-back tiles",
                value: tiles as u64,
                limit: (usize::MAX / wavekit_core::canonical::SCAN_TILE) as u64,
            })?;
        let bytes = self.scratch_bytes(ffi::ALGO_DEVICE_SCAN, T::KIND, n);
        self.run_checked(&mut work, "look_back_probe", |k, pools| {
            let (flags, values) = (self.input(&flags)?, self.input(&values)?);
            let (scratch, out) = (self.ensure_pool(pools, bytes)?, self.output(&mut out)?);
            // SAFETY: `flags` is the upload of one status a tile, each 1 (aggregate) or 2
            // (inclusive) by the match above, tile 0's 2 (checked first), so the look-back
            // meets an inclusive prefix at tile 0 at the latest.
            unsafe {
                k.look_back_probe(
                    T::KIND as u32,
                    op as u32,
                    flags,
                    values,
                    tiles as u64,
                    scratch,
                    bytes,
                    out,
                )
            }
        })?;
        drop(work);
        Ok(self.download(&out)?[0])
    }
}
