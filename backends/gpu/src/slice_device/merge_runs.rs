//! The stable merge of sorted runs (the `merge_runs` launcher, csrc/kernels/merge_runs.cu;
//! `SliceDevice::merge_runs_keys` / `merge_runs_pairs` on this backend): wavekit-dist's sample
//! sort receives one sorted run from every rank and merges them instead of sorting what it
//! received again.

use crate::backend::GpuBackend;
use crate::buffer::GpuBuffer;
use crate::ffi;
use crate::queue::Reports;
use crate::runtime::GpuRuntime;
use wavekit_core::SortOrder;
use wavekit_core::api::check_len;
use wavekit_core::element::Element;
use wavekit_core::error::{Result, WavekitError};

/// The most runs one merge takes on this backend (`SliceDevice::merge_runs_keys` /
/// `merge_runs_pairs` sort past it instead).
pub const MAX_MERGE_RUNS: usize = 1024;

impl<R: GpuRuntime> GpuBackend<R> {
    /// The stable merge of sorted runs: `keys` holds `runs.len()` runs one after another, run k
    /// of `runs[k]` keys, each sorted by `order`; their merge by `order`, in which equal keys
    /// keep the runs' order, into `keys_out` (and the values moved with their keys into
    /// `values_out`). That is the stable sort of `keys` by `order` (docs/SEMANTICS.md "sort"),
    /// in one pass over the keys per level of a pairwise merge tree instead of a radix pass per
    /// digit. Everything is checked again here.
    ///
    /// # Errors
    /// `InvalidBitRange` for the order, `TooLarge` past [`MAX_MERGE_RUNS`] runs,
    /// `EmptyInput` for no runs, `LengthMismatch` when the run lengths do not sum to the keys'
    /// length or an output or the values are not the keys' length, `ForeignBuffer`, `Device`.
    pub(crate) fn merge_runs_enqueue<K: Element, V: Element>(
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
        let (values, values_out, value_size) = match (values, values_out) {
            (Some(v), Some(o)) => {
                self.own(v)?;
                self.own(o)?;
                check_len("values (one per key)", n, v.len)?;
                check_len("merged values (one per key)", n, o.len)?;
                (Some(v), Some(o), size_of::<V>())
            }
            _ => (None, None, 0),
        };
        if n == 0 {
            return Ok(());
        }
        let lens: Vec<u64> = runs.iter().map(|&r| r as u64).collect();
        let mut work = self.lock();
        self.rt.make_current()?;
        let bytes = self.sort_scratch(ffi::ALGO_MERGE_RUNS, size_of::<K>(), value_size, n);
        // The run lengths are host memory the launcher reads before it returns.
        self.launch(&mut work, "merge_runs", Reports::Nothing, |k, pools| {
            k.merge_runs(
                K::KIND as u32,
                value_size as u32,
                self.input(keys)?,
                self.input_or_null(values)?,
                &lens,
                lens.len() as u32,
                spec.begin_bit,
                spec.end_bit,
                spec.descending as u32,
                self.ensure_pool(pools, bytes)?,
                bytes,
                self.output(keys_out)?,
                self.output_or_null(values_out)?,
            )
        })
    }
}
