//! The CUDA backend in the bench: each job's kernel launched directly from the launcher table on
//! the backend's stream and timed with device events (timer.rs), its result compared with the
//! public API's (itself checked against the reference first), and the same work done by CUB
//! (or plain atomics) timed the same way in the same process as the baseline.

mod arg_reduce;
mod by_key;
pub mod ffi;
mod grouped_shapes;
pub mod ladder;
mod more_variants;
mod partition;
mod reduce;
mod runs;
mod scan;
mod sort;
mod spmv_shapes;
pub mod timer;
mod variants;
mod vendor;

use super::case::{Case, ExtraCases};
use super::job::Job;
use super::timing::{Baseline, BenchBackend, Harness, Timed, Timing};
use reduce::cub_reduce;
use std::ffi::c_void;
use timer::{DeviceTimer, check};
use wavekit::api::Collectives;
use wavekit::cuda::{CudaBackend, CudaRuntime};
use wavekit::element::{ElemKind, Element};
use wavekit::error::{Result, WavekitError};
use wavekit::gpu::GpuBuffer;
use wavekit::gpu::GpuRuntime;
use wavekit::gpu::ffi::{self as wk, Status, dptr};
use wavekit::{Backend, DeviceBuffer, ScanKind, SliceDevice};

type Buf<T> = GpuBuffer<T, CudaRuntime>;

fn out<T: Element, P>(b: &Buf<T>) -> *mut P {
    dptr(b.device_ptr())
}

fn inp<T: Element, P>(b: &Buf<T>) -> *const P {
    dptr::<P>(b.device_ptr()).cast_const()
}

/// The backend's stream, its context current on this thread (for launches outside the timer).
fn stream(b: &CudaBackend) -> Result<*mut c_void> {
    b.runtime().make_current()?;
    Ok(b.runtime().stream())
}

/// `words` device words of a nonzero pattern, written on the device (the copy and read
/// baselines never run on zeros, and never wait for gigabytes to cross from the host).
fn filled(b: &CudaBackend, words: usize) -> Result<Buf<u32>> {
    let buf = b.alloc::<u32>(words)?;
    let s = stream(b)?;
    // SAFETY: `buf` holds `words` words; the backend's stream in its current context.
    unsafe {
        cudarc::driver::sys::cuMemsetD32Async(buf.device_ptr(), 0x3f80_0001, words, s.cast())
            .result()
            .map_err(|e| timer::driver_err("cuMemsetD32Async", e))?;
    }
    b.runtime().synchronize()?;
    Ok(buf)
}

/// `bytes` of zeroed device scratch (at least one word).
fn scratch(b: &CudaBackend, bytes: u64) -> Result<Buf<u64>> {
    b.alloc::<u64>((bytes as usize).div_ceil(8).max(1))
}

fn mismatch(what: &str, detail: String) -> WavekitError {
    WavekitError::Device {
        backend: "cuda",
        call: what.to_string(),
        message: detail,
    }
}

/// Element `i` of a device buffer (checked against its length).
fn element<T: Element>(b: &CudaBackend, buf: &Buf<T>, i: usize) -> Result<T> {
    Ok(b.download_strided(buf, i, 1, 1)?[0])
}

/// CUB's two-phase call, timed: `call(stream, temp, bytes)` once as CUB's size query (null
/// stream and scratch: CUB only writes `*bytes`), then on scratch of that size, timed on the
/// timer's stream. One closure for both keeps the two argument lists from drifting apart.
fn time_cub(
    b: &CudaBackend,
    timer: &DeviceTimer<'_>,
    h: &Harness,
    what: &str,
    mut call: impl FnMut(*mut c_void, *mut c_void, *mut usize) -> i32,
) -> Result<Timing> {
    let null = std::ptr::null_mut();
    let mut bytes = 0usize;
    check(b, call(null, null, &mut bytes), what)?;
    let temp = scratch(b, bytes as u64)?;
    timer.time(h, what, |s| {
        // CUB takes the size by pointer: each call gets the queried size afresh.
        let mut bytes = bytes;
        call(s, out(&temp), &mut bytes)
    })
}

fn cub(timing: Timing) -> Option<Baseline> {
    Some(Baseline {
        name: "CUB",
        timing,
    })
}

/// A module's vendor baseline of a job it owns (`baseline` in sort.rs, runs.rs, ...).
type BaselineOf<T> = fn(
    &CudaBackend,
    &DeviceTimer<'_>,
    &Harness,
    &mut Job<'_, CudaBackend, T>,
) -> Result<Option<Baseline>>;

/// The jobs timed through the public API rather than a raw launcher: the name their time is
/// reported under and their module's baseline.
fn public_job<T: Element>(job: &Job<'_, CudaBackend, T>) -> Option<(&'static str, BaselineOf<T>)> {
    match job {
        Job::ArgReduce { .. } => Some(("arg_reduce", arg_reduce::baseline::<T>)),
        Job::Sort { .. } | Job::Argsort { .. } | Job::SegmentedSort { .. } | Job::TopK { .. } => {
            Some(("sort", sort::baseline::<T>))
        }
        Job::Runs { .. } => Some(("runs", runs::baseline::<T>)),
        Job::ByKey { .. } => Some(("by_key", by_key::baseline::<T>)),
        Job::Partition { .. } | Job::PartitionReversed { .. } => {
            Some(("partition", partition::baseline::<T>))
        }
        _ => None,
    }
}

impl ExtraCases for CudaBackend {
    fn extra_cases() -> Vec<Case<Self>> {
        let mut cases = variants::cases();
        cases.extend(vendor::cases());
        cases.extend(more_variants::cases());
        cases.extend(grouped_shapes::cases());
        cases.extend(spmv_shapes::cases());
        cases
    }
}

impl BenchBackend for CudaBackend {
    fn copy_baseline(&self, bytes: usize, harness: &Harness) -> Result<Timing> {
        let words = bytes.div_ceil(4).max(1);
        let src = filled(self, words)?;
        let dst = self.alloc::<u32>(words)?;
        let timer = DeviceTimer::new(self)?;
        // SAFETY: both buffers hold `words` words.
        timer.time(harness, "device copy", |s| unsafe {
            ffi::wk_bench_copy(s, out(&dst), inp(&src), (words * 4) as u64)
        })
    }

    fn read_baseline(&self, bytes: usize, harness: &Harness) -> Result<Option<Timing>> {
        let words = bytes.div_ceil(16).max(1) * 4;
        let src = filled(self, words)?;
        let sink = self.alloc::<u32>(1)?;
        let timer = DeviceTimer::new(self)?;
        // SAFETY: `src` holds `words` words, a multiple of 16 bytes, 256-byte aligned.
        let t = timer.time(harness, "device read", |s| unsafe {
            ffi::wk_bench_read(s, inp(&src), (words * 4) as u64, out(&sink))
        })?;
        Ok(Some(t))
    }

    fn writes_job_outputs(&self) -> bool {
        true
    }

    fn time_job<T: Element>(&self, h: &Harness, job: &mut Job<'_, Self, T>) -> Result<Timed> {
        let timer = DeviceTimer::new(self)?;
        if let Some((name, baseline)) = public_job(job) {
            // Device events around the public `_into` call, which only enqueues on the
            // backend's stream; then the vendor's call on the same stream and buffers.
            let timing = timer.time_call(h, name, || job.call(self))?;
            let baseline = baseline(self, &timer, h, job)?;
            return Ok(Timed { timing, baseline });
        }
        // wk_status cleared: code 0, detail "none".
        let status = self.upload(&[0u64, u64::MAX])?;
        let st = dptr::<Status>(status.device_ptr());
        let t = self.runtime().launchers();
        let kind = T::KIND as u32;
        let timed = match job {
            Job::Reduce { input, op } => {
                let n = input.len();
                // SAFETY: scratch_bytes is a pure size query: integers in, one integer out.
                let bytes = unsafe { (t.scratch_bytes)(wk::ALGO_DEVICE_REDUCE, kind, n as u64) };
                let sc = scratch(self, bytes)?;
                let res = self.alloc::<T>(1)?;
                // SAFETY: `input` holds n elements, `sc` at least `bytes` bytes (scratch() rounds
                // up to words) and `res` one element, all live buffers of this backend used by
                // nothing else during the timing; `st` is the cleared status word in `status`; `s`
                // is the backend's stream.
                let timing = timer.time(h, "device_reduce", |s| unsafe {
                    (t.device_reduce)(
                        s,
                        st,
                        kind,
                        *op as u32,
                        inp(input),
                        n as u64,
                        out(&sc),
                        bytes,
                        out(&res),
                    )
                })?;
                let (raw, api) = (self.download(&res)?[0], self.reduce(*input, *op)?);
                if !raw.same(api) {
                    return Err(mismatch(
                        "device_reduce",
                        format!("launch gave {raw:?}, API {api:?}"),
                    ));
                }
                Timed {
                    timing,
                    baseline: cub_reduce(self, &timer, h, input, *op, api)?,
                }
            }
            Job::Scan {
                input,
                output,
                op,
                kind: scan,
            } => {
                let n = input.len();
                let exclusive = (*scan == ScanKind::Exclusive) as u32;
                // SAFETY: a pure size query, as above.
                let bytes = unsafe { (t.scratch_bytes)(wk::ALGO_DEVICE_SCAN, kind, n as u64) };
                let sc = scratch(self, bytes)?;
                // As the backend does: this scratch kept for the scan, zeroed by the first call.
                let tags = std::cell::Cell::new(0u32);
                // SAFETY: `input` and `output` hold n elements each (the job's scan pair, distinct
                // buffers), `sc` at least `bytes` bytes; the tag grows on every call as the
                // backend's own does, so the zeroed scratch is read as fresh; `st` and `s` as
                // above.
                let timing = timer.time(h, "device_scan", |s| unsafe {
                    tags.set(tags.get() + 1);
                    (t.device_scan_tagged)(
                        s,
                        st,
                        kind,
                        *op as u32,
                        exclusive,
                        inp(input),
                        n as u64,
                        out(&sc),
                        bytes,
                        tags.get(),
                        out(output),
                    )
                })?;
                Timed {
                    timing,
                    baseline: scan::cub_scan(self, &timer, h, input, output, *op, *scan)?,
                }
            }
            Job::Segmented {
                input,
                raw,
                output,
                op,
                ..
            } => {
                let offsets = raw.offsets.map_or(std::ptr::null(), inp::<_, u32>);
                // SAFETY: the job's segmented arguments as the API checked them for the backend's
                // own launch: `output` holds `raw.count` values, the offsets (when not null)
                // `raw.count + 1` entries inside the input's length, fixed segments end at it; the
                // kernel clamps offsets to the input again.
                let timing = timer.time(h, "segmented_reduce", |s| unsafe {
                    (t.segmented_reduce)(
                        s,
                        st,
                        kind,
                        *op as u32,
                        inp(input),
                        input.len() as u64,
                        offsets.cast(),
                        raw.seg_size as u64,
                        raw.count as u64,
                        raw.vector,
                        out(output),
                    )
                })?;
                let baseline = reduce::cub_segmented_reduce(
                    self,
                    &timer,
                    h,
                    input,
                    raw.baseline_offsets,
                    raw.count,
                    *op,
                )?;
                Timed { timing, baseline }
            }
            Job::Spmv {
                a,
                raw,
                vals,
                x,
                y,
                vector,
            } => {
                // The public call, as a solver's loop makes it: the matrix's partition was made
                // once, by Csr::new, as cuSPARSE's preprocessing is for the baseline.
                let v = wavekit::VectorSize::Lanes(*vector);
                let timing = timer.time_call(h, "spmv", || self.spmv(a, x, y, v))?;
                Timed {
                    timing,
                    baseline: vendor::cusparse_spmv(self, &timer, h, raw, vals, x, y)?,
                }
            }
            Job::CountIf { input, pred } => {
                let (code, a, bb) = pred.encode();
                let res = self.alloc::<u64>(1)?;
                let n = input.len() as u64;
                // SAFETY: `input` holds n elements and `res` one u64; no scratch (null, 0 bytes).
                let timing = timer.time(h, "count_if", |s| unsafe {
                    (t.count_if)(
                        s,
                        st,
                        kind,
                        code,
                        a,
                        bb,
                        inp(input),
                        n,
                        std::ptr::null_mut(),
                        0,
                        out(&res),
                    )
                })?;
                let (raw, api) = (self.download(&res)?[0], self.count_if(*input, *pred)?);
                if raw != api {
                    return Err(mismatch(
                        "count_if",
                        format!("launch gave {raw}, API {api}"),
                    ));
                }
                // The one-counter baseline exists for f32 `x < a`.
                let baseline = if T::KIND == ElemKind::F32 && code == 0 {
                    let threshold = f32::from_bits(a as u32);
                    let c = self.alloc::<u64>(1)?;
                    // SAFETY: `input` holds n f32s and `c` one u64, the only thing the kernel
                    // writes.
                    let timing = timer.time(h, "one-counter count", |s| unsafe {
                        ffi::wk_bench_count_atomic(s, inp(input), n, threshold, out(&c))
                    })?;
                    let got = self.download(&c)?[0];
                    if got != api {
                        return Err(mismatch(
                            "one-counter count",
                            format!("gave {got}, expected {api}"),
                        ));
                    }
                    Some(Baseline {
                        name: "1-counter atomics",
                        timing,
                    })
                } else {
                    None
                };
                Timed { timing, baseline }
            }
            Job::Compact {
                input,
                pred,
                stable,
                output,
                ..
            } => {
                let n = input.len() as u64;
                let (code, a, bb) = pred.encode();
                // SAFETY: a pure size query, as above.
                let bytes = unsafe { (t.scratch_bytes)(wk::ALGO_COMPACT, kind, n) };
                let sc = scratch(self, bytes)?;
                let count = self.alloc::<u64>(1)?;
                let warp = self.warp_width().lanes();
                let stable_flag = *stable as u32;
                // Stable: as the backend does, this scratch kept for the compaction, zeroed by
                // the first call.
                let tags = std::cell::Cell::new(0u32);
                // SAFETY: `input` holds n elements, `output` at least n (the job's compaction
                // output is the input's length) and `count` one u64, `sc` at least `bytes` bytes;
                // the tag grows as the backend's own does; distinct buffers used by nothing else
                // during the timing.
                let timing = timer.time(h, "compact", |s| unsafe {
                    if stable_flag == 0 {
                        return (t.compact)(
                            s,
                            st,
                            warp,
                            kind,
                            code,
                            a,
                            bb,
                            0,
                            inp(input),
                            n,
                            out(&sc),
                            bytes,
                            out(output),
                            out(&count),
                        );
                    }
                    tags.set(tags.get() + 1);
                    (t.compact_tagged)(
                        s,
                        st,
                        warp,
                        kind,
                        code,
                        a,
                        bb,
                        inp(input),
                        n,
                        out(&sc),
                        bytes,
                        tags.get(),
                        out(output),
                        out(&count),
                    )
                })?;
                let api = self.compact(*input, *pred, *stable)?.len as u64;
                let raw = self.download(&count)?[0];
                if raw != api {
                    return Err(mismatch(
                        "compact",
                        format!("launch counted {raw}, API {api}"),
                    ));
                }
                // CUB's DeviceSelect::If (stable) for f32 and f64 `x > a`.
                let threshold = match T::KIND {
                    ElemKind::F32 => Some(f32::from_bits(a as u32) as f64),
                    ElemKind::F64 => Some(f64::from_bits(a)),
                    _ => None,
                };
                let baseline = if let (Some(threshold), 2) = (threshold, code) {
                    let cub_out = self.alloc::<T>(input.len())?;
                    let cub_count = self.alloc::<i64>(1)?;
                    // SAFETY: a null `temp` is CUB's size query, where it writes only `*bytes`;
                    // otherwise `input` and `cub_out` hold n elements, `cub_count` one i64 and
                    // `temp` `*bytes` bytes of scratch, on the timer's stream; CUB writes only
                    // those three.
                    let timing =
                        time_cub(self, &timer, h, "cub select", |s, temp, bytes| unsafe {
                            ffi::wk_bench_cub_select_gt(
                                s,
                                kind,
                                inp(input),
                                n,
                                threshold,
                                out(&cub_out),
                                out(&cub_count),
                                temp,
                                bytes,
                            )
                        })?;
                    let got = self.download(&cub_count)?[0];
                    if got as u64 != api {
                        return Err(mismatch(
                            "cub select",
                            format!("selected {got}, expected {api}"),
                        ));
                    }
                    Some(Baseline {
                        name: "CUB select",
                        timing,
                    })
                } else {
                    None
                };
                Timed { timing, baseline }
            }
            Job::Histogram { keys, bins } => {
                let n = keys.len() as u64;
                let res = self.alloc::<u64>(*bins as usize + 1)?;
                // SAFETY: `keys` holds n keys and `res` `bins + 1` u64s, which the kernel zeroes
                // and counts into (keys past the bins into the last).
                let timing = timer.time(h, "histogram", |s| unsafe {
                    (t.histogram)(s, st, inp(keys), n, *bins, out(&res))
                })?;
                let api = self.histogram(*keys, *bins)?;
                let mut want = api.counts.clone();
                want.push(api.outside);
                if self.download(&res)? != want {
                    return Err(mismatch("histogram", "launch and API counts differ".into()));
                }
                // The naive histogram: one atomicAdd per key on the global counts.
                let plain = self.alloc::<u64>(*bins as usize + 1)?;
                // SAFETY: as above, with `plain` `bins + 1` u64s.
                let timing_plain = timer.time(h, "global-atomics histogram", |s| unsafe {
                    ffi::wk_bench_histogram_mode(s, inp(keys), n, *bins, out(&plain), 3)
                })?;
                if self.download(&plain)? != want {
                    return Err(mismatch("global-atomics histogram", "counts differ".into()));
                }
                Timed {
                    timing,
                    baseline: Some(Baseline {
                        name: "global atomics",
                        timing: timing_plain,
                    }),
                }
            }
            // Timed above, through the API (sort.rs, runs.rs, by_key.rs, partition.rs,
            // arg_reduce.rs).
            Job::Sort { .. }
            | Job::Argsort { .. }
            | Job::SegmentedSort { .. }
            | Job::TopK { .. }
            | Job::Runs { .. }
            | Job::ByKey { .. }
            | Job::Partition { .. }
            | Job::PartitionReversed { .. }
            | Job::ArgReduce { .. } => {
                return Err(mismatch(
                    "sort",
                    "sorting jobs are timed by cuda::sort".into(),
                ));
            }
        };
        let st = self.download(&status)?;
        if st[0] as u32 != 0 {
            return Err(mismatch(
                "timed launches",
                format!("kernel status code {}", st[0] as u32 as i32),
            ));
        }
        Ok(timed)
    }
}
