//! The stable merge of sorted runs (the `merge_runs` launcher, csrc/kernels/merge_runs.cu):
//! wavekit-dist's sample sort receives one sorted run from every rank and merges them instead
//! of sorting what it received again.

use super::backend::{GpuBackend, Reports};
use super::buffer::GpuBuffer;
use super::ffi::{self, cptr, dptr};
use super::runtime::GpuRuntime;
use std::ffi::c_void;
use wavekit_core::api::check_len;
use wavekit_core::element::Element;
use wavekit_core::error::{Result, WavekitError};
use wavekit_core::{Backend, SortOrder};

/// The most runs one [`GpuBackend::merge_runs_keys`] or [`GpuBackend::merge_runs_pairs`]
/// merges.
pub const MAX_MERGE_RUNS: usize = 1024;

impl<R: GpuRuntime> GpuBackend<R> {
    /// The stable merge of sorted runs: `keys` holds `runs.len()` runs one after another, run k
    /// of `runs[k]` keys, each sorted by `order`; the result, in a new buffer, is their merge
    /// by `order` in which equal keys keep the runs' order. That is the stable sort of `keys`
    /// by `order` (docs/SEMANTICS.md "sort"), in one pass over the keys per level of a
    /// pairwise merge tree instead of a radix pass per digit. Synchronises.
    ///
    /// ```
    /// use wavekit_core::{Backend, SortOrder, WarpWidth};
    /// let gpu = wavekit_simt::open(WarpWidth::W32)?;
    /// let keys = gpu.upload(&[1u32, 4, 9, 2, 4, 8, 4])?; // runs [1, 4, 9], [2, 4, 8], [4]
    /// let merged = gpu.merge_runs_keys(&keys, &[3, 3, 1], SortOrder::ASCENDING)?;
    /// assert_eq!(gpu.download(&merged)?, [1, 2, 4, 4, 4, 8, 9]);
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidBitRange` for the order, `TooLarge` past [`MAX_MERGE_RUNS`] runs,
    /// `EmptyInput` for no runs, `LengthMismatch` when the run lengths do not sum to the keys'
    /// length, `ForeignBuffer`, `Device`. A run that is not sorted is not an error: the
    /// output is then some interleaving of the runs.
    pub fn merge_runs_keys<K: Element>(
        &self,
        keys: &GpuBuffer<K, R>,
        runs: &[usize],
        order: SortOrder,
    ) -> Result<GpuBuffer<K, R>> {
        let mut out = self.alloc::<K>(keys.len)?;
        self.merge_runs_enqueue::<K, K>(keys, None, runs, order, &mut out, None)?;
        self.synchronize()?;
        Ok(out)
    }

    /// [`merge_runs_keys`](Self::merge_runs_keys) with a value beside each key, moved with it
    /// (`values` as long as `keys`). Synchronises.
    ///
    /// ```
    /// use wavekit_core::{Backend, SortOrder, WarpWidth};
    /// let gpu = wavekit_simt::open(WarpWidth::W64)?;
    /// let keys = gpu.upload(&[3i32, 5, 3, 4])?; // runs [3, 5], [3, 4]
    /// let vals = gpu.upload(&[0u64, 1, 2, 3])?;
    /// let (k, v) = gpu.merge_runs_pairs(&keys, &vals, &[2, 2], SortOrder::ASCENDING)?;
    /// assert_eq!(gpu.download(&k)?, [3, 3, 4, 5]);
    /// assert_eq!(gpu.download(&v)?, [0, 2, 3, 1]); // the first run's 3 first
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// As [`merge_runs_keys`](Self::merge_runs_keys), and `LengthMismatch` when `values` is
    /// not as long as `keys`.
    pub fn merge_runs_pairs<K: Element, V: Element>(
        &self,
        keys: &GpuBuffer<K, R>,
        values: &GpuBuffer<V, R>,
        runs: &[usize],
        order: SortOrder,
    ) -> Result<(GpuBuffer<K, R>, GpuBuffer<V, R>)> {
        let mut out = self.alloc::<K>(keys.len)?;
        let mut vout = self.alloc::<V>(values.len)?;
        self.merge_runs_enqueue(keys, Some(values), runs, order, &mut out, Some(&mut vout))?;
        self.synchronize()?;
        Ok((out, vout))
    }

    fn merge_runs_enqueue<K: Element, V: Element>(
        &self,
        keys: &GpuBuffer<K, R>,
        values: Option<&GpuBuffer<V, R>>,
        runs: &[usize],
        order: SortOrder,
        keys_out: &mut GpuBuffer<K, R>,
        values_out: Option<&mut GpuBuffer<V, R>>,
    ) -> Result<()> {
        let spec = order.spec::<K>()?;
        if runs.is_empty() {
            return Err(WavekitError::EmptyInput {
                what: "merge runs (at least one run)",
            });
        }
        if runs.len() > MAX_MERGE_RUNS {
            return Err(WavekitError::TooLarge {
                what: "merge runs",
                value: runs.len() as u64,
                limit: MAX_MERGE_RUNS as u64,
            });
        }
        let n = keys.len;
        let total = runs.iter().try_fold(0usize, |t, &r| t.checked_add(r));
        check_len(
            "merge run lengths (summing to the keys)",
            n,
            total.unwrap_or(usize::MAX),
        )?;
        self.own(keys)?;
        self.own(keys_out)?;
        check_len("merged keys (one per key)", n, keys_out.len)?;
        let (vin, vout, value_size) = match (values, values_out) {
            (Some(v), Some(o)) => {
                self.own(v)?;
                self.own(o)?;
                check_len("values (one per key)", n, v.len)?;
                check_len("merged values (one per key)", n, o.len)?;
                let vin = cptr::<c_void>(v.device_ptr());
                (vin, dptr::<c_void>(o.device_ptr()), size_of::<V>())
            }
            _ => (std::ptr::null(), std::ptr::null_mut(), 0),
        };
        if n == 0 {
            return Ok(());
        }
        let lens: Vec<u64> = runs.iter().map(|&r| r as u64).collect();
        let mut work = self.lock();
        self.rt.make_current()?;
        let bytes = self.sort_scratch(ffi::ALGO_MERGE_RUNS, size_of::<K>(), value_size, n);
        let scratch = self.ensure_pool(&mut work, bytes)?;
        // SAFETY: the kernels read n keys (and n values when `vin` is not null) and write n
        // keys to `keys_out` (and n values to `vout`), every length checked against n above;
        // the run lengths sum to n and are host memory the launcher reads before it returns;
        // `scratch` is `bytes` bytes of the pool (ensure_pool), owned by the locked workspace.
        // The outputs are borrowed exclusively, so nothing aliases them.
        self.launch(&mut work, "merge_runs", Reports::Nothing, |s, st| unsafe {
            (self.table.merge_runs)(
                s,
                st,
                K::KIND as u32,
                value_size as u32,
                cptr::<c_void>(keys.device_ptr()),
                vin,
                lens.as_ptr(),
                lens.len() as u32,
                spec.begin_bit,
                spec.end_bit,
                spec.descending as u32,
                dptr(scratch),
                bytes,
                dptr(keys_out.device_ptr()),
                vout,
            )
        })
    }
}
