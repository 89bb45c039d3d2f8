//! The bench's timing harness: how one call is timed on a backend, the median of repetitions,
//! and the copy baseline every throughput is compared with.
//!
//! A backend joins the bench by implementing `BenchBackend`. The default clock is the host
//! wall clock around the call and a `synchronize`, which is exact for the CPU and counts launch
//! overhead on a GPU; a GPU backend can override `time_once` with device events.

use super::job::Job;
use rayon::prelude::*;
use std::time::{Duration, Instant};
use wavekit::cpu::CpuBackend;
use wavekit::element::Element;
use wavekit::error::{Result, WavekitError};
use wavekit::{Collectives, WarpPrimitives};

/// Repetitions of one measurement: `warmup` untimed calls, then `reps` timed ones.
#[derive(Clone, Copy, Debug)]
pub struct Harness {
    pub warmup: usize,
    pub reps: usize,
}

/// The samples of one measurement, sorted.
#[derive(Clone, Debug)]
pub struct Timing {
    pub samples: Vec<Duration>,
}

impl Timing {
    pub fn new(mut samples: Vec<Duration>) -> Self {
        samples.sort();
        Timing { samples }
    }

    pub fn median(&self) -> Duration {
        let s = &self.samples;
        let mid = s.len() / 2;
        if s.len() % 2 == 1 {
            s[mid]
        } else {
            (s[mid - 1] + s[mid]) / 2
        }
    }

    pub fn min(&self) -> Duration {
        self.samples[0]
    }

    /// Bytes per second at the median, in GB/s (10^9 bytes).
    pub fn gb_per_s(&self, bytes: u64) -> f64 {
        bytes as f64 / self.median().as_secs_f64() / 1e9
    }
}

impl Harness {
    /// Times `f` on `backend`: warm-up calls, then `reps` calls timed one by one.
    pub fn measure<B: BenchBackend>(
        &self,
        backend: &B,
        mut f: impl FnMut() -> Result<()>,
    ) -> Result<Timing> {
        for _ in 0..self.warmup {
            f()?;
        }
        backend.synchronize()?;
        let samples = (0..self.reps.max(1))
            .map(|_| backend.time_once(&mut f))
            .collect::<Result<_>>()?;
        Ok(Timing::new(samples))
    }
}

/// A same-run measurement of the same work done another way (CUB, plain atomics): the ratio a
/// collective is reported against.
#[derive(Clone, Debug)]
pub struct Baseline {
    pub name: &'static str,
    pub timing: Timing,
}

/// The timing of a job, with its baseline when the backend has one.
#[derive(Clone, Debug)]
pub struct Timed {
    pub timing: Timing,
    pub baseline: Option<Baseline>,
}

/// What the bench needs from a backend beyond `Backend`.
pub trait BenchBackend: Collectives + WarpPrimitives + Sized {
    /// The time of one call of `f`, with all work it queued finished.
    fn time_once(&self, f: &mut dyn FnMut() -> Result<()>) -> Result<Duration> {
        let start = Instant::now();
        f()?;
        self.synchronize()?;
        Ok(start.elapsed())
    }

    /// The baseline: copying `bytes` bytes within the backend's own memory (read + write),
    /// timed with the same harness as the collectives.
    fn copy_baseline(&self, bytes: usize, harness: &Harness) -> Result<Timing>;

    /// Reading `bytes` bytes once with all the backend's parallelism: the ceiling of a
    /// collective that only reads. `None` when the backend has no such measurement.
    fn read_baseline(&self, _bytes: usize, _harness: &Harness) -> Result<Option<Timing>> {
        Ok(None)
    }

    /// Times `job`. By default: calls through the public API, timed by `time_once`.
    fn time_job<T: Element>(&self, harness: &Harness, job: &mut Job<'_, Self, T>) -> Result<Timed> {
        let timing = harness.measure(self, || job.call(self))?;
        Ok(Timed {
            timing,
            baseline: None,
        })
    }

    /// Whether `time_job` writes the jobs' output buffers (raw launches) rather than going
    /// through the public API, so the cases check those buffers after timing.
    fn writes_job_outputs(&self) -> bool {
        false
    }
}

/// Bytes per parallel copy task: large enough that scheduling is noise, small enough to
/// spread a few MB over every core.
const HOST_COPY_CHUNK: usize = 1 << 16;

impl BenchBackend for CpuBackend {
    fn copy_baseline(&self, bytes: usize, harness: &Harness) -> Result<Timing> {
        let src: Vec<u8> = (0..bytes).map(|i| (i % 251) as u8 + 1).collect();
        let mut dst = vec![0u8; bytes];
        // The same rayon pool the CPU backend's collectives run on.
        let timing = harness.measure(self, || {
            dst.par_chunks_mut(HOST_COPY_CHUNK)
                .zip(src.par_chunks(HOST_COPY_CHUNK))
                .for_each(|(d, s)| d.copy_from_slice(s));
            Ok(())
        })?;
        debug_assert_eq!(dst, src);
        Ok(timing)
    }

    fn read_baseline(&self, bytes: usize, harness: &Harness) -> Result<Option<Timing>> {
        let words: Vec<u64> = (0..bytes.div_ceil(8) as u64)
            .into_par_iter()
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
            .collect();
        let mut seen = 0u64;
        // Every word read once, chunks spread over the same rayon pool the backend uses.
        let timing = harness.measure(self, || {
            seen = words
                .par_chunks(HOST_COPY_CHUNK / 8)
                .map(|c| c.iter().fold(0u64, |a, &w| a.wrapping_add(w)))
                .reduce(|| 0, u64::wrapping_add);
            Ok(())
        })?;
        std::hint::black_box(seen);
        Ok(Some(timing))
    }

    /// Through the public API; a keys-only sort also against rayon's `par_sort_unstable`.
    fn time_job<T: Element>(&self, harness: &Harness, job: &mut Job<'_, Self, T>) -> Result<Timed> {
        let timing = harness.measure(self, || job.call(self))?;
        let baseline = match job {
            Job::Sort {
                keys,
                keys_out,
                values: None,
            } => Some(rayon_sort(
                self,
                harness,
                keys.as_slice(),
                keys_out.as_slice(),
            )?),
            _ => None,
        };
        Ok(Timed { timing, baseline })
    }
}

/// rayon's `par_sort_unstable` by the keys' order bits (the sort's total order) on a fresh copy
/// of the keys each time, on the pool the CPU backend runs on: a sort that writes its result
/// apart from its input copies it first, so the copy is part of the work. Its result must equal
/// `sorted` (ours) bit for bit before its time is used; unstable is no difference for keys alone.
fn rayon_sort<T: Element>(
    b: &CpuBackend,
    harness: &Harness,
    keys: &[T],
    sorted: &[T],
) -> Result<Baseline> {
    let mut work = keys.to_vec();
    let chunk = HOST_COPY_CHUNK / size_of::<T>();
    let timing = harness.measure(b, || {
        work.par_chunks_mut(chunk)
            .zip(keys.par_chunks(chunk))
            .for_each(|(d, s)| d.copy_from_slice(s));
        work.par_sort_unstable_by_key(|x| x.order_bits());
        Ok(())
    })?;
    if let Some(i) = (0..keys.len()).find(|&i| work[i].order_bits() != sorted[i].order_bits()) {
        return Err(WavekitError::Device {
            backend: "cpu",
            call: "rayon par_sort_unstable".into(),
            message: format!("element {i}: rayon {:?}, ours {:?}", work[i], sorted[i]),
        });
    }
    Ok(Baseline {
        name: "rayon par_sort_unstable",
        timing,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        let ms = Duration::from_millis;
        assert_eq!(Timing::new(vec![ms(9), ms(1), ms(5)]).median(), ms(5));
        assert_eq!(
            Timing::new(vec![ms(4), ms(1), ms(2), ms(100)]).median(),
            ms(3)
        );
        assert_eq!(Timing::new(vec![ms(4), ms(1)]).min(), ms(1));
    }

    #[test]
    fn gb_per_s_is_bytes_over_median() {
        let t = Timing::new(vec![Duration::from_millis(2)]);
        assert!((t.gb_per_s(4_000_000) - 2.0).abs() < 1e-9);
    }
}
