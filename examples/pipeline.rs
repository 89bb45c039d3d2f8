//! A scan -> compaction -> histogram pipeline on the user's own data, batch after batch, on one
//! backend: its workspace and every output are allocated once, before the first batch, and
//! each batch is queued without a host round trip between the three collectives (on a GPU
//! they go to the backend's stream back to back) and read once at the end.
//!
//! The data: load readings (0..100 percent) of a machine, in batches. Per batch: the running
//! total (inclusive scan), the overloads (readings of 80 and more, in order: a stable
//! compaction), and how many overloads were at each level (a histogram). Every result is
//! checked against a plain-Rust computation.
//!
//! `cargo run --example pipeline` (CPU, then the SIMT executor, which counts device
//! allocations); `--features cuda` adds CUDA device 0 when there is one.

use wavekit::prelude::*;
use wavekit::{Result, WavekitError};

const BATCH: usize = 10_000;
const BATCHES: usize = 3;
const OVERLOAD: u32 = 80;
/// Histogram bins: one per load level; a key at or past them is counted as outside.
const LEVELS: u32 = 100;

/// The user's data: a deterministic load curve with bursts.
fn readings(batch: usize) -> Vec<u32> {
    (0..BATCH)
        .map(|i| {
            let t = (batch * BATCH + i) as u64;
            let noise = (t.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 59) as u32; // 0..32
            let burst = if (t / 500) % 7 == 3 { 25 } else { 0 };
            (40 + noise + burst).min(99)
        })
        .collect()
}

/// What one batch gives, read back.
struct Batch {
    running_total: Vec<u32>,
    overloads: Vec<u32>,
    levels: Vec<u64>,
}

/// The backend's buffers for one batch: the input and every output, made once.
struct Pipeline<B: Backend> {
    input: B::Buffer<u32>,
    running: B::Buffer<u32>,
    overloads: B::Buffer<u32>,
    count: B::Buffer<u64>,
    levels: B::Buffer<u64>,
    /// Written over the compaction output before each batch: the compaction writes only its
    /// first `count` elements and leaves the rest as it was, so the rest, a key past the bins,
    /// is counted outside the histogram's bins instead of as a stale overload.
    past_the_bins: Vec<u32>,
}

impl<B: Collectives> Pipeline<B> {
    fn new(b: &B) -> Result<Self> {
        Ok(Pipeline {
            input: b.alloc(BATCH)?,
            running: b.alloc(BATCH)?,
            overloads: b.alloc(BATCH)?,
            count: b.alloc(1)?,
            levels: b.alloc(LEVELS as usize + 1)?,
            past_the_bins: vec![LEVELS; BATCH],
        })
    }

    fn run(&mut self, b: &B, data: &[u32]) -> Result<Batch> {
        b.write(&mut self.input, data)?;
        b.write(&mut self.overloads, &self.past_the_bins)?;
        // Queued back to back; nothing waits until the reads below.
        b.scan(
            &self.input,
            &mut self.running,
            ReduceOp::Sum,
            ScanKind::Inclusive,
        )?;
        b.compact_into(
            &self.input,
            Predicate::Ge(OVERLOAD),
            true,
            &mut self.overloads,
            &mut self.count,
        )?;
        b.histogram_into(&self.overloads, LEVELS, &mut self.levels)?;
        let n = b.download(&self.count)?[0] as usize;
        let mut overloads = b.download(&self.overloads)?;
        overloads.truncate(n);
        Ok(Batch {
            running_total: b.download(&self.running)?,
            overloads,
            levels: b.download(&self.levels)?,
        })
    }
}

/// The same batch computed in plain Rust.
fn expected(data: &[u32]) -> Batch {
    let running_total = data
        .iter()
        .scan(0u32, |acc, &x| {
            *acc += x;
            Some(*acc)
        })
        .collect();
    let overloads: Vec<u32> = data.iter().copied().filter(|&x| x >= OVERLOAD).collect();
    let mut levels = vec![0u64; LEVELS as usize + 1];
    for &x in &overloads {
        levels[x as usize] += 1;
    }
    levels[LEVELS as usize] = (BATCH - overloads.len()) as u64;
    Batch {
        running_total,
        overloads,
        levels,
    }
}

fn check(what: &str, ok: bool) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(WavekitError::Device {
            backend: "example",
            call: what.to_string(),
            message: "differs from the plain-Rust computation".into(),
        })
    }
}

/// Every batch through one pipeline on `b`; `allocations` reads the backend's device
/// allocation count where it has one.
fn run_on<B: Collectives>(b: &B, allocations: impl Fn() -> Option<u64>) -> Result<()> {
    println!("== {}", b.name());
    let mut pipeline = Pipeline::new(b)?;
    for batch in 0..BATCHES {
        let data = readings(batch);
        let before = allocations();
        let got = pipeline.run(b, &data)?;
        let want = expected(&data);
        check("running total", got.running_total == want.running_total)?;
        check("overloads", got.overloads == want.overloads)?;
        check("histogram", got.levels == want.levels)?;
        let busiest = (OVERLOAD..LEVELS)
            .max_by_key(|&l| got.levels[l as usize])
            .expect("levels");
        print!(
            "batch {batch}: total load {}, {} overloads (first at {:?}), most often at {}% ({} times)",
            got.running_total[BATCH - 1],
            got.overloads.len(),
            data.iter().position(|&x| x >= OVERLOAD),
            busiest,
            got.levels[busiest as usize],
        );
        match (before, allocations()) {
            (Some(a), Some(z)) => println!(", {} device allocations", z - a),
            _ => println!(),
        }
    }
    println!("every batch matches the plain-Rust computation");
    Ok(())
}

fn main() -> Result<()> {
    run_on(&CpuBackend::new(WarpWidth::W32), || None)?;
    #[cfg(feature = "simt")]
    {
        let b = wavekit::simt::open(WarpWidth::W32)?;
        // The workspace sized up front: the first batch allocates nothing either.
        b.reserve::<u32>(BATCH)?;
        run_on(&b, || Some(b.device_allocations()))?;
    }
    #[cfg(feature = "cuda")]
    if wavekit::cuda::device_count() > 0 {
        let b = wavekit::cuda::open(0)?;
        b.reserve::<u32>(BATCH)?;
        run_on(&b, || Some(b.device_allocations()))?;
    }
    Ok(())
}
