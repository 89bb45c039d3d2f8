//! wavekit-cli: the `wavekit` command line (info, verify, bench, show). Every command is
//! generic over the backend and reaches the backends through `registry`.
//!
//! How it fits: the top of the workspace. It depends on the `wavekit` facade (the backends its
//! features turn on), wavekit-conformance (`verify`) and wavekit-bench (`bench`); nothing
//! depends on it.

mod args;
mod bench;
#[cfg(feature = "simt")]
mod check;
mod error;
mod info;
mod registry;
mod show;
mod verify;

use args::{MaskSpec, PredSpec, ValuesSpec};
use clap::{Args, Parser, Subcommand, ValueEnum};
use error::CliResult;
use registry::BackendKind;
use std::ffi::OsString;
use std::process::ExitCode;
use wavekit::width::WarpWidth;
use wavekit_conformance::Scale;

#[derive(Parser, Debug)]
#[command(
    name = "wavekit",
    version,
    about = "Warp- and wavefront-level GPU primitives: conformance, benchmarks and lane diagrams",
    after_help = "With no command: `verify` on every backend built in (the SIMT executor on \
                  its own arch layer at its small scale, its instances side by side; `verify` \
                  adds it on the real arch_hip.h), then `bench` at its default sizes on the \
                  CPU at 32 and 64 lanes and any GPU built in; about 100 s on 2 cores. The \
                  executor is timed only when named: `bench --backend simt`."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Backends compiled in, their devices and warp widths.
    Info,
    /// Run the conformance suite on every selected backend and warp width.
    Verify(VerifyArgs),
    /// Throughput of each collective, checked first, against a copy of the same bytes (the SIMT
    /// executor only when named: --backend simt).
    Bench(BenchArgs),
    /// Draw the lanes of one primitive call, computed by a backend.
    Show(ShowArgs),
    /// Compile a kernel of yours (plain CUDA or HIP as it is, or written against csrc/wavekit.h
    /// with WK_EXPORT_KERNEL) for the SIMT executor, run it at 32 and 64 lanes on random or given
    /// inputs, and print every hazard (exit 1 if any).
    #[cfg(feature = "simt")]
    Check(CheckArgs),
}

#[cfg(feature = "simt")]
#[derive(Args, Debug)]
struct CheckArgs {
    /// The .cu file.
    file: std::path::PathBuf,
    /// The kernel to run: its name in a plain CUDA/HIP file (a template's instantiation, e.g.
    /// 'reduce<float, 256>'), or its WK_EXPORT_KERNEL name. Repeat for several.
    #[arg(long, required = true)]
    kernel: Vec<String>,
    /// Blocks: X, X,Y or X,Y,Z.
    #[arg(long, value_parser = check::parse_dim, default_value = "1")]
    grid: [u32; 3],
    /// Threads per block: X, X,Y or X,Y,Z.
    #[arg(long, value_parser = check::parse_dim)]
    block: [u32; 3],
    /// Only this warp width (default: 32 and 64).
    #[arg(long, value_parser = parse_warp)]
    warp: Option<WarpWidth>,
    /// Elements of every buffer argument (default: one per thread of the launch).
    #[arg(long)]
    len: Option<usize>,
    /// Parameter INDEX gets VALUE: a scalar, or a comma list for a buffer (repeated to fill it);
    /// INDEX.FIELD=VALUE for a field of a struct parameter. Read-only buffers not given are
    /// random, others zero; scalars not given are --len.
    #[arg(long = "arg", value_parser = check::parse_arg)]
    args: Vec<check::ArgSpec>,
    /// Seed of the random inputs (and of the random schedule).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Thread order: lockstep, forward, reverse or random (default: lockstep at 64 lanes, as
    /// AMD runs a wavefront; random at 32, as Volta may; lockstep at both for HIP source).
    #[arg(long, value_enum)]
    schedule: Option<ScheduleArg>,
    /// A folder of the program's headers, as the compiler's -I (repeat for several): a plain
    /// file's `#include <...>` found there is read and rewritten like the file.
    #[arg(long = "include", short = 'I')]
    include: Vec<std::path::PathBuf>,
    /// Dynamic shared memory bytes per block.
    #[arg(long, default_value_t = 0)]
    shared: usize,
    /// A cooperative launch (cudaLaunchCooperativeKernel): every block of the grid runs at
    /// once, so grid.sync() runs as a barrier across the grid, checked as __syncthreads is;
    /// at most 16384 threads in all. Without it a kernel reaching grid.sync() is refused.
    #[arg(long)]
    cooperative: bool,
    /// Output elements printed per written buffer.
    #[arg(long, default_value_t = 16)]
    show: usize,
    /// The CUDA version a plain CUDA file is read and built as, MAJOR.MINOR: nvcc's
    /// __CUDACC_VER_MAJOR__/__CUDACC_VER_MINOR__ and CUDART_VERSION (12.4: 12040).
    #[arg(long, value_parser = check::parse_version, default_value = "12.4")]
    cuda_version: (u32, u32),
    /// The target of nvcc's device pass, which the executor compiles: __CUDA_ARCH__ is ten
    /// times it (90 or sm_90: 900).
    #[arg(long, value_parser = check::parse_arch, default_value = "90")]
    cuda_arch: u32,
    /// The HIP version a plain HIP file is read and built as, MAJOR.MINOR (HIP_VERSION_MAJOR,
    /// HIP_VERSION_MINOR, HIP_VERSION).
    #[arg(long, value_parser = check::parse_version, default_value = "6.2")]
    hip_version: (u32, u32),
    /// Reports kept of each hazard kind per run (kernel and width); those past it are counted.
    #[arg(long, default_value_t = 16)]
    max_reports: u32,
    /// Every report, however many (overrides --max-reports).
    #[arg(long)]
    all: bool,
    /// One JSON document on stdout instead of the text (docs/DEVICE_API.md gives its schema).
    #[arg(long)]
    json: bool,
}

#[cfg(feature = "simt")]
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ScheduleArg {
    Lockstep,
    Forward,
    Reverse,
    Random,
}

#[derive(Args, Debug, Default)]
struct Selection {
    /// Only this backend (default: every backend built in that has a device here; `bench`
    /// leaves out simt, the executor, unless named).
    #[arg(long)]
    backend: Option<BackendKind>,
    /// Only this warp width (the CPU oracle runs both).
    #[arg(long, value_parser = parse_warp)]
    warp: Option<WarpWidth>,
}

#[derive(Args, Debug)]
struct VerifyArgs {
    #[command(flatten)]
    selection: Selection,
    /// How many and how large the conformance cases are.
    #[arg(long, value_enum, default_value_t = ScaleArg::Full)]
    scale: ScaleArg,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ScaleArg {
    Full,
    Small,
}

impl ScaleArg {
    fn scale(self) -> Scale {
        match self {
            ScaleArg::Full => Scale::Full,
            ScaleArg::Small => Scale::Small,
        }
    }
}

/// More threads than this make a diagram nobody reads.
const MAX_SHOW_THREADS: i64 = 4096;

/// Default element counts of `bench`: short enough for a 2-core CI box.
const DEFAULT_SIZES: &str = "2^16,2^20";
const DEFAULT_REPS: u32 = 10;

#[derive(Args, Debug)]
struct BenchArgs {
    #[command(flatten)]
    selection: Selection,
    /// Element counts, comma separated: numbers or powers of two written 2^K.
    #[arg(long, value_delimiter = ',', value_parser = args::parse_size, default_value = DEFAULT_SIZES)]
    sizes: Vec<usize>,
    /// Timed repetitions per measurement (the median is reported).
    #[arg(long, default_value_t = DEFAULT_REPS, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    reps: u32,
    /// Only collectives whose name, or name and element type, contains this (e.g. reduce, scan,
    /// spmv, "scan inclusive sum f16").
    #[arg(long)]
    only: Option<String>,
    /// Also write every row to this CSV file.
    #[arg(long)]
    csv: Option<String>,
    /// Also plot GB/s against n per backend, with the same-run baselines, to this SVG file.
    #[arg(long)]
    plot: Option<String>,
    /// Run the seed ladder (seed 003's reduction steps) on the CUDA device instead.
    #[arg(long)]
    ladder: bool,
}

#[derive(Args, Debug)]
struct ShowArgs {
    /// The primitive to draw.
    #[arg(value_enum)]
    primitive: show::Primitive,
    /// The backend that computes it.
    #[arg(long, value_enum, default_value_t = BackendKind::Cpu)]
    backend: BackendKind,
    /// Warp width.
    #[arg(long, value_parser = parse_warp, default_value = "32")]
    warp: WarpWidth,
    /// Shuffle argument: source lane (shfl), delta (up, down) or lane mask (xor); any i32,
    /// negative included (the hardware reads its low log2(warp) bits).
    #[arg(long, allow_negative_numbers = true)]
    arg: Option<i32>,
    /// Shuffle or warp reduce/scan sub-width (default: the warp width).
    #[arg(long)]
    width: Option<u32>,
    /// Cooperative-group tile size for the tile_* primitives.
    #[arg(long, default_value_t = 8)]
    tile: u32,
    /// Member mask (activemask: the lanes taking the branch): full, none, even, odd, lower,
    /// upper, lane:N or hex:0x...
    #[arg(long, value_parser = args::parse_mask, default_value = "full")]
    mask: MaskSpec,
    /// Lane values: lanes (each its lane id), mod:K, div:K, or a comma list (repeated).
    #[arg(long, value_parser = args::parse_values, default_value = "lanes")]
    values: ValuesSpec,
    /// Vote predicate of a lane's value: true, false, odd, even, lt:N, ge:N, eq:N.
    #[arg(long, value_parser = args::parse_pred, default_value = "odd")]
    pred: PredSpec,
    /// Reduction op for tile_reduce, warp_reduce, warp_scan.
    #[arg(long, value_enum, default_value_t = show::OpArg::Sum)]
    op: show::OpArg,
    /// warp_scan: exclusive instead of inclusive.
    #[arg(long)]
    exclusive: bool,
    /// Threads in the launch (default: one warp); a partial last warp has fewer lanes.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=MAX_SHOW_THREADS))]
    threads: Option<u32>,
}

fn parse_warp(s: &str) -> Result<WarpWidth, String> {
    let lanes: u32 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a number"))?;
    WarpWidth::new(lanes).map_err(|e| e.to_string())
}

/// Runs the command line `args` (the program name first) and says how it went.
fn main() -> ExitCode {
    run(std::env::args_os())
}

/// Parses `args` (the program name first) and runs the command.
fn run<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version print to stdout and succeed; usage errors exit 2.
            let _ = e.print();
            return ExitCode::from(e.exit_code().clamp(0, 255) as u8);
        }
    };
    match dispatch(cli.command) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn dispatch(command: Option<Command>) -> CliResult<bool> {
    match command {
        None => {
            eprintln!("wavekit: verify, then a short bench (`wavekit --help` lists the commands)");
            let verified = verify::run_default()?;
            println!();
            let benched = bench::run(&default_bench())?;
            Ok(verified && benched)
        }
        Some(Command::Info) => {
            print!("{}", info::report());
            Ok(true)
        }
        Some(Command::Verify(a)) => {
            verify::run(a.selection.backend, a.selection.warp, a.scale.scale())
        }
        Some(Command::Bench(a)) => {
            let opts = bench::Options {
                backend: a.selection.backend,
                warp: a.selection.warp,
                sizes: a.sizes,
                reps: a.reps as usize,
                only: a.only,
                csv: a.csv,
                plot: a.plot,
            };
            if a.ladder {
                bench::run_ladder(&opts)
            } else {
                bench::run(&opts)
            }
        }
        Some(Command::Show(a)) => {
            let req = show::Request {
                primitive: a.primitive,
                backend: a.backend,
                warp: a.warp,
                arg: a.arg,
                width: a.width,
                tile: a.tile,
                mask: a.mask,
                values: a.values,
                pred: a.pred,
                op: a.op,
                exclusive: a.exclusive,
                threads: a.threads.map(|t| t as usize),
            };
            print!("{}", show::run(&req)?);
            Ok(true)
        }
        #[cfg(feature = "simt")]
        Some(Command::Check(a)) => {
            use wavekit::simt::Schedule;
            let req = check::Request {
                file: a.file,
                kernels: a.kernel,
                include_dirs: a.include,
                grid: a.grid,
                block: a.block,
                widths: a.warp.map_or(WarpWidth::ALL.to_vec(), |w| vec![w]),
                len: a.len,
                args: a.args,
                seed: a.seed,
                schedule: a.schedule.map(|s| match s {
                    ScheduleArg::Lockstep => Schedule::Lockstep,
                    ScheduleArg::Forward => Schedule::Forward,
                    ScheduleArg::Reverse => Schedule::Reverse,
                    ScheduleArg::Random => Schedule::Random(a.seed),
                }),
                dynamic_shared_bytes: a.shared,
                cooperative: a.cooperative,
                show: a.show,
                toolchain: wavekit_kernels::plain::Toolchain {
                    cuda: a.cuda_version,
                    arch: a.cuda_arch,
                    hip: a.hip_version,
                },
                max_reports: (!a.all).then_some(a.max_reports),
                json: a.json,
            };
            let (text, clean) = check::run(&req)?;
            print!("{text}");
            Ok(clean)
        }
    }
}

/// The bench of `wavekit` with no command: `bench`'s own defaults, on the backends a user came
/// for (the CPU at both widths and any GPU; the executor's times say nothing of a GPU). At
/// these sizes the CPU's rows take about 10 s on 2 cores.
fn default_bench() -> bench::Options {
    bench::Options {
        backend: None,
        warp: None,
        sizes: default_sizes(),
        reps: DEFAULT_REPS as usize,
        only: None,
        csv: None,
        plot: None,
    }
}

fn default_sizes() -> Vec<usize> {
    DEFAULT_SIZES
        .split(',')
        .map(|s| args::parse_size(s).expect("the default sizes parse"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }

    #[test]
    fn defaults_parse() {
        assert_eq!(default_sizes(), vec![1 << 16, 1 << 20]);
        let cli = Cli::try_parse_from(["wavekit", "bench"]).unwrap();
        match cli.command {
            Some(Command::Bench(a)) => {
                assert_eq!(a.sizes, default_sizes());
                assert_eq!(a.reps, DEFAULT_REPS);
                assert_eq!(a.selection.backend, None);
            }
            other => panic!("parsed as {other:?}"),
        }
    }

    #[test]
    fn the_default_run_benches_the_cpu_at_both_widths_and_not_the_executor() {
        let plan = bench::backends(&default_bench()).unwrap();
        let kinds: Vec<_> = plan.backends.iter().map(|b| b.kind()).collect();
        assert!(!kinds.contains(&BackendKind::Simt), "{kinds:?}");
        let cpu: Vec<_> = plan
            .backends
            .iter()
            .filter(|b| b.kind() == BackendKind::Cpu)
            .map(|b| b.warp_width())
            .collect();
        assert_eq!(cpu, WarpWidth::ALL.to_vec());
        // Every GPU built in is in the plan, or skipped with why (no device here).
        for gpu in [BackendKind::Cuda, BackendKind::Hip]
            .into_iter()
            .filter(|k| k.compiled())
        {
            let skipped = plan.skipped.iter().any(|(k, _)| *k == gpu);
            assert!(
                kinds.contains(&gpu) || skipped,
                "{gpu:?} neither run nor skipped"
            );
        }
    }

    /// The (arch layer, width) of each executor instance in `plan`, in order.
    #[cfg(feature = "simt")]
    fn executor_instances(plan: &registry::Selected) -> Vec<(wavekit::simt::Arch, WarpWidth)> {
        use wavekit::Backend;
        plan.backends
            .iter()
            .filter_map(|b| match b {
                registry::AnyBackend::Simt(s) => Some((s.runtime().arch(), s.warp_width())),
                _ => None,
            })
            .collect()
    }

    #[cfg(feature = "simt")]
    #[test]
    fn the_default_run_verifies_every_backend_the_executor_on_its_own_layer() {
        use wavekit::simt::Arch;
        let (plan, left_out) = verify::default_backends().unwrap();
        let kinds: Vec<_> = plan.backends.iter().map(|b| b.kind()).collect();
        assert!(kinds.contains(&BackendKind::Cpu), "{kinds:?}");
        let executor = executor_instances(&plan);
        let own: Vec<_> = WarpWidth::ALL.iter().map(|&w| (Arch::Simt, w)).collect();
        assert_eq!(
            executor, own,
            "the executor's own layer at both widths, only"
        );
        assert_eq!(
            left_out,
            WarpWidth::ALL.len(),
            "arch_hip.h at both widths left out"
        );
    }

    #[cfg(feature = "simt")]
    #[test]
    fn verify_runs_the_executor_on_both_arch_layers() {
        use wavekit::simt::Arch;
        let plan = verify::backends(Some(BackendKind::Simt), None).unwrap();
        let arches = executor_instances(&plan);
        assert_eq!(arches.len(), plan.backends.len(), "only the executor");
        for arch in Arch::ALL {
            for w in WarpWidth::ALL {
                assert!(arches.contains(&(arch, w)), "{arch:?} at {w:?} missing");
            }
        }
    }

    #[cfg(feature = "simt")]
    #[test]
    fn the_executor_is_benched_only_when_named() {
        let mut opts = default_bench();
        opts.backend = Some(BackendKind::Simt);
        let plan = bench::backends(&opts).unwrap();
        assert!(!plan.backends.is_empty());
        assert!(plan.backends.iter().all(|b| b.kind() == BackendKind::Simt));
    }

    #[test]
    fn show_arguments_parse() {
        let cli = Cli::try_parse_from([
            "wavekit",
            "show",
            "shfl_down",
            "--arg",
            "2",
            "--width",
            "16",
            "--mask",
            "even",
            "--warp",
            "64",
        ])
        .unwrap();
        match cli.command {
            Some(Command::Show(a)) => {
                assert_eq!(a.primitive, show::Primitive::ShflDown);
                assert_eq!(
                    (a.arg, a.width, a.warp),
                    (Some(2), Some(16), WarpWidth::W64)
                );
                assert_eq!(a.mask, MaskSpec::Even);
            }
            other => panic!("parsed as {other:?}"),
        }
    }

    #[test]
    fn bad_arguments_are_usage_errors() {
        for bad in [
            vec!["wavekit", "frobnicate"],
            vec!["wavekit", "show", "shuffle_sideways"],
            vec!["wavekit", "show", "shfl", "--warp", "48"],
            vec!["wavekit", "show", "shfl", "--mask", "most"],
            vec!["wavekit", "bench", "--sizes", "2^x"],
            vec!["wavekit", "bench", "--reps", "0"],
            vec!["wavekit", "verify", "--scale", "huge"],
            vec!["wavekit", "verify", "--backend", "opencl"],
        ] {
            let e = Cli::try_parse_from(&bad).expect_err(&bad.join(" "));
            assert_eq!(e.exit_code(), 2, "{}", bad.join(" "));
        }
    }
}
