//! The sorting collectives on a GPU (`RawBackend`'s `raw_sort_*`, `raw_segmented_sort`,
//! `raw_top_k`, which imp.rs hands here): every length checked again against the buffers, the
//! scratch taken from the backend's pool, one launcher each (csrc/kernels/sort.cu,
//! segmented_sort.cu, top_k.cu), enqueued on the stream.

use super::backend::{GpuBackend, Reports};
use super::buffer::GpuBuffer;
use super::ffi::{self, cptr, dptr};
use super::runtime::GpuRuntime;
use std::ffi::c_void;
use wavekit_core::api::check_len;
use wavekit_core::element::Element;
use wavekit_core::error::{Result, WavekitError};
use wavekit_core::{SegmentSpec, SortSpec};

fn null() -> *mut c_void {
    std::ptr::null_mut()
}

/// Indices and segment positions are u32 on the device.
fn check_indexable(what: &'static str, n: usize) -> Result<()> {
    if n > u32::MAX as usize {
        return Err(WavekitError::TooLarge {
            what,
            value: n as u64,
            limit: u32::MAX as u64,
        });
    }
    Ok(())
}

impl<R: GpuRuntime> GpuBackend<R> {
    pub(crate) fn sort_scratch(
        &self,
        algo: u32,
        key_size: usize,
        value_size: usize,
        n: usize,
    ) -> u64 {
        // SAFETY: a pure size query of the launcher table.
        unsafe {
            (self.table.sort_scratch_bytes)(algo, key_size as u32, value_size as u32, n as u64)
        }
    }

    /// The scratch every sorting collective needs for `n` keys of `K` with values of `T`
    /// (`reserve`'s part for them).
    pub(crate) fn sort_reserve_bytes<T: Element>(&self, n: usize) -> u64 {
        let size = size_of::<T>();
        [
            self.sort_scratch(ffi::ALGO_SORT, size, size, n),
            self.sort_scratch(ffi::ALGO_ARGSORT, size, 4, n),
            self.sort_scratch(ffi::ALGO_SEGMENTED_SORT, size, size, n),
            self.sort_scratch(ffi::ALGO_TOP_K, size, 4, n),
        ]
        .into_iter()
        .max()
        .unwrap_or(0)
    }

    /// Keys, pairs or an argsort (`values` None with `values_out`: the indices).
    pub(crate) fn sort_enqueue<K: Element, V: Element>(
        &self,
        keys: &GpuBuffer<K, R>,
        values: Option<&GpuBuffer<V, R>>,
        keys_out: Option<&mut GpuBuffer<K, R>>,
        values_out: Option<&mut GpuBuffer<V, R>>,
        spec: SortSpec,
    ) -> Result<()> {
        let n = keys.len;
        self.own(keys)?;
        if let Some(v) = values {
            self.own(v)?;
            check_len("values (one per key)", n, v.len)?;
        }
        let kout = match keys_out {
            Some(k) => {
                self.own(k)?;
                check_len("sorted keys (the keys' length)", n, k.len)?;
                dptr::<c_void>(k.device_ptr())
            }
            None => null(),
        };
        let (value_size, vout) = match values_out {
            Some(v) => {
                self.own(v)?;
                check_len("sorted values (the keys' length)", n, v.len)?;
                (size_of::<V>(), dptr::<c_void>(v.device_ptr()))
            }
            None => (0, null()),
        };
        let indices = values.is_none() && value_size != 0;
        if indices && V::KIND != wavekit_core::ElemKind::U32 {
            return Err(WavekitError::Device {
                backend: R::BACKEND,
                call: "sort".into(),
                message: "an argsort's values are u32 indices".into(),
            });
        }
        if indices {
            check_indexable("argsort keys (indices are u32)", n)?;
        }
        if n == 0 {
            return Ok(());
        }
        let algo = if kout.is_null() {
            ffi::ALGO_ARGSORT
        } else {
            ffi::ALGO_SORT
        };
        let mut work = self.lock();
        self.rt.make_current()?;
        let bytes = self.sort_scratch(algo, size_of::<K>(), value_size, n);
        let scratch = self.ensure_pool(&mut work, bytes)?;
        let vin = values.map_or(std::ptr::null(), |v| cptr(v.device_ptr()));
        // SAFETY: the kernels read n keys (and n values when `vin` is not null: checked above) and
        // write n keys to `kout` and n values or indices to `vout` where those are not null (each
        // output checked to hold n); `scratch` is `bytes` bytes of the pool (ensure_pool), owned by
        // the locked workspace. The outputs are borrowed exclusively, so no input aliases them.
        self.launch(&mut work, "sort", Reports::Errors, |s, st| unsafe {
            (self.table.sort)(
                s,
                st,
                self.launch_width,
                K::KIND as u32,
                value_size as u32,
                indices as u32,
                cptr(keys.device_ptr()),
                vin,
                n as u64,
                spec.begin_bit,
                spec.end_bit,
                spec.descending as u32,
                dptr(scratch),
                bytes,
                kout,
                vout,
            )
        })
    }

    /// Each segment sorted on its own.
    pub(crate) fn segmented_sort_enqueue<K: Element, V: Element>(
        &self,
        keys: &GpuBuffer<K, R>,
        values: Option<&GpuBuffer<V, R>>,
        segments: SegmentSpec<'_, GpuBuffer<u32, R>>,
        keys_out: &mut GpuBuffer<K, R>,
        values_out: Option<&mut GpuBuffer<V, R>>,
        spec: SortSpec,
    ) -> Result<()> {
        let n = keys.len;
        self.own(keys)?;
        self.own(keys_out)?;
        check_len("sorted keys (the keys' length)", n, keys_out.len)?;
        check_indexable("segmented sort keys (positions are u32)", n)?;
        let (vin, vout, value_size) = match (values, values_out) {
            (Some(v), Some(o)) => {
                self.own(v)?;
                self.own(o)?;
                check_len("values (one per key)", n, v.len)?;
                check_len("sorted values (the keys' length)", n, o.len)?;
                (
                    cptr(v.device_ptr()),
                    dptr::<c_void>(o.device_ptr()),
                    size_of::<V>(),
                )
            }
            (None, None) => (std::ptr::null(), null(), 0),
            _ => {
                return Err(WavekitError::EmptyInput {
                    what: "segmented sort values or their output",
                });
            }
        };
        let (offsets, size, count, longest) = match segments {
            SegmentSpec::Fixed { size, count, .. } => {
                check_len(
                    "fixed segments (covering the keys)",
                    n.div_ceil(size.max(1)),
                    count,
                )?;
                (std::ptr::null(), size as u64, count, size.min(n))
            }
            SegmentSpec::Offsets {
                offsets,
                count,
                longest,
                ..
            } => {
                self.own(offsets)?;
                check_len(
                    "segment offsets (count + 1)",
                    count.saturating_add(1),
                    offsets.len,
                )?;
                (
                    dptr::<u32>(offsets.device_ptr()).cast_const(),
                    0,
                    count,
                    longest,
                )
            }
        };
        if n == 0 || count == 0 {
            return Ok(());
        }
        let mut work = self.lock();
        self.rt.make_current()?;
        let fits_warp = longest <= self.width.lanes() as usize;
        let bytes = if fits_warp {
            0
        } else {
            self.sort_scratch(ffi::ALGO_SEGMENTED_SORT, size_of::<K>(), value_size, n)
        };
        let scratch = self.ensure_pool(&mut work, bytes)?;
        self.launch(
            &mut work,
            "segmented_sort",
            Reports::Errors,
            // SAFETY: the kernels read n keys (and n values when `vin` is not null) and write n to
            // `keys_out` (and n to `vout`), all checked against n above; the segments lie inside
            // the n keys: fixed ones cover them with the count checked, offsets (count + 1 of them,
            // checked) come from a validated `Segments` whose last offset the API checked against
            // n. `scratch` is `bytes` bytes of the pool (none when every segment fits a warp). The
            // outputs are borrowed exclusively.
            |s, st| unsafe {
                (self.table.segmented_sort)(
                    s,
                    st,
                    self.launch_width,
                    K::KIND as u32,
                    value_size as u32,
                    cptr(keys.device_ptr()),
                    vin,
                    n as u64,
                    offsets,
                    size,
                    count as u64,
                    longest as u64,
                    spec.begin_bit,
                    spec.end_bit,
                    spec.descending as u32,
                    dptr(scratch),
                    bytes,
                    dptr(keys_out.device_ptr()),
                    vout,
                )
            },
        )
    }

    /// The first k of the stable sort, with their indices when asked.
    pub(crate) fn top_k_enqueue<T: Element>(
        &self,
        input: &GpuBuffer<T, R>,
        k: usize,
        spec: SortSpec,
        values_out: &mut GpuBuffer<T, R>,
        indices_out: Option<&mut GpuBuffer<u32, R>>,
    ) -> Result<()> {
        let n = input.len;
        self.own(input)?;
        self.own(values_out)?;
        if k == 0 || k > n {
            return Err(WavekitError::InvalidK { k, n });
        }
        check_indexable("top-k input (indices are u32)", n)?;
        check_len("top-k values (k elements)", k, values_out.len)?;
        let iout = match indices_out {
            Some(i) => {
                self.own(i)?;
                check_len("top-k indices (k elements)", k, i.len)?;
                dptr::<u32>(i.device_ptr())
            }
            None => std::ptr::null_mut(),
        };
        let mut work = self.lock();
        self.rt.make_current()?;
        let bytes = self.sort_scratch(ffi::ALGO_TOP_K, size_of::<T>(), 4, n);
        let scratch = self.ensure_pool(&mut work, bytes)?;
        // SAFETY: the kernels read the n elements of `input` and write k values to `values_out`
        // and, when not null, k indices to `iout` (both checked to hold k, and k <= n); `scratch`
        // is `bytes` bytes of the pool (ensure_pool), owned by the locked workspace. The outputs
        // are borrowed exclusively.
        self.launch(&mut work, "top_k", Reports::Errors, |s, st| unsafe {
            (self.table.top_k)(
                s,
                st,
                self.launch_width,
                T::KIND as u32,
                cptr(input.device_ptr()),
                n as u64,
                k as u64,
                spec.begin_bit,
                spec.end_bit,
                spec.descending as u32,
                dptr(scratch),
                bytes,
                dptr(values_out.device_ptr()),
                iout,
            )
        })
    }
}
