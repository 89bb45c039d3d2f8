//! The bench's timing harness: how one call is timed on a backend, the median of repetitions,
//! and the copy baseline every throughput is compared with.
//!
//! A backend joins the bench by implementing `BenchBackend`. The default clock is the host
//! wall clock around the call and a `synchronize`, which is exact for the CPU and counts launch
//! overhead on a GPU; a GPU backend can override `time_once` with device events.

use crate::backend::Backend;
use crate::cpu::CpuBackend;
use crate::error::Result;
use rayon::prelude::*;
use std::time::{Duration, Instant};

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

/// What the bench needs from a backend beyond `Backend`.
pub trait BenchBackend: Backend {
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
