#![cfg(feature = "cuda")]
//! A cudarc user's kernel source compiled at run time by NVRTC with wavekit's device API
//! (`wavekit::cuda::rtc`): examples/nvrtc_warp.cu, the source tests/simt_source.rs checks on
//! the executor. Without a device (CI): it compiles to PTX that names its kernel, at more than
//! one architecture; a source that does not compile comes back with NVRTC's log; a kernel it
//! does not export is a typed error. On the GPU: the kernel runs on the caller's stream over
//! wavekit buffers and matches the CPU backend bit for bit, and bad launch shapes are refused.

use wavekit::cuda::cudarc::driver::{CudaContext, PushKernelArg};
use wavekit::cuda::rtc;
use wavekit::gpu::GpuRuntime;
use wavekit::prelude::*;

const SOURCE: &str = include_str!("../examples/nvrtc_warp.cu");
const LOWERED: &str = "_ZN7wk_cuda9warp_sumsEPKfPfPjj";

#[test]
fn the_example_compiles_to_ptx_without_a_device() {
    for arch in ["compute_80", "compute_90"] {
        let c = rtc::compile_ptx("nvrtc_warp.cu", SOURCE, arch, &[]).unwrap();
        let ptx = String::from_utf8(c.code.clone()).unwrap();
        assert!(
            ptx.contains(&format!(".entry {LOWERED}")),
            "{arch}: no entry in\n{ptx}"
        );
        assert!(
            ptx.contains(&format!(".target sm_{}", &arch[8..])),
            "{arch}"
        );
        assert_eq!(c.symbol("nvrtc_warp.cu", "warp_sums").unwrap(), LOWERED);
        assert!(matches!(
            c.symbol("nvrtc_warp.cu", "warp_sum"),
            Err(WavekitError::UnknownKernel { .. })
        ));
    }
}

#[test]
fn a_compile_error_comes_back_with_nvrtcs_log() {
    let broken = SOURCE.replace(
        "warp_reduce<OP_SUM>(v)",
        "warp_reduce<OP_SUM>(v, undeclared_width)",
    );
    match rtc::compile_ptx("broken.cu", &broken, "compute_90", &[]) {
        Err(WavekitError::Compile {
            compiler,
            source_name,
            log,
        }) => {
            assert_eq!(
                (compiler.as_str(), source_name.as_str()),
                ("nvrtc", "broken.cu")
            );
            assert!(log.contains("undeclared_width"), "{log}");
        }
        other => panic!("expected a Compile error, got {other:?}"),
    }
    let unexported = SOURCE.replace("WK_EXPORT_KERNEL(warp_sums);", "");
    assert!(matches!(
        rtc::compile_ptx("unexported.cu", &unexported, "compute_90", &[]),
        Err(WavekitError::UserSource { .. })
    ));
}

#[test]
fn nvrtc_result_codes_outside_its_enum_get_a_fallback_message() {
    use wavekit::gpu::rtc::RtcApi;
    // Codes NVRTC does not define must not be turned into its enum (that was a transmute, UB
    // for them): they are named as numbers, without asking NVRTC.
    for code in [9999, -1, 18, i32::MIN] {
        assert_eq!(
            rtc::Nvrtc::error_string(code),
            format!("NVRTC error {code}")
        );
    }
    // A code it defines gets NVRTC's own message (6 is NVRTC_ERROR_COMPILATION in nvrtc.h).
    assert_eq!(rtc::Nvrtc::error_string(6), "NVRTC_ERROR_COMPILATION");
}

fn input(n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| ((i * 7919) % 613) as f32 * 0.37 - 100.0 + 1.0 / (i as f32 + 3.0))
        .collect()
}

#[test]
#[ignore = "needs a CUDA device"]
fn the_example_runs_on_the_callers_stream_and_matches_the_cpu_backend() {
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.new_stream().unwrap();
    let wk = wavekit::cuda::open_on_stream(stream.clone()).unwrap();
    let module = rtc::compile(&ctx, "nvrtc_warp.cu", SOURCE, &[]).unwrap();
    assert_eq!(module.kernels().collect::<Vec<_>>(), ["warp_sums"]);
    let f = module.function("warp_sums").unwrap();
    let width = wk.runtime().warp_size() as usize;
    for n in [1usize, 31, 1000, 1 << 20] {
        let x = input(n);
        let warps = n.div_ceil(width);
        // wavekit buffers, passed by address on the stream wavekit runs on.
        let data = wk.upload(&x).unwrap();
        let sums = wk.alloc::<f32>(warps).unwrap();
        let pos = wk.alloc::<u32>(warps).unwrap();
        let (p_in, p_sums, p_pos, n32) = (
            data.device_ptr(),
            sums.device_ptr(),
            pos.device_ptr(),
            n as u32,
        );
        let cfg = f
            .launch_config([n.div_ceil(256) as u32, 1, 1], [256, 1, 1], 0)
            .unwrap();
        let mut launch = stream.launch_builder(f.cuda_function());
        launch.arg(&p_in).arg(&p_sums).arg(&p_pos).arg(&n32);
        // SAFETY: the kernel reads n floats and writes ceil(n / width) of each output.
        f.check(unsafe { launch.launch(cfg) }).unwrap();
        f.check(stream.synchronize()).unwrap();
        let cpu = CpuBackend::new(WarpWidth::new(width as u32).unwrap());
        let want = cpu.warp_reduce(&x, width as u32, ReduceOp::Sum).unwrap();
        let got = wk.download(&sums).unwrap();
        let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&got), bits(&want), "n = {n}");
        let want_pos: Vec<u32> = x
            .chunks(width)
            .map(|c| c.iter().filter(|&&v| v > 0.0).count() as u32)
            .collect();
        assert_eq!(wk.download(&pos).unwrap(), want_pos, "n = {n}");
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn bad_kernel_names_and_launch_shapes_are_typed_errors() {
    let ctx = CudaContext::new(0).unwrap();
    let module = rtc::compile(&ctx, "nvrtc_warp.cu", SOURCE, &[]).unwrap();
    match module.function("warp_sum") {
        Err(WavekitError::UnknownKernel {
            kernel, available, ..
        }) => {
            assert_eq!(
                (kernel.as_str(), available),
                ("warp_sum", vec!["warp_sums".to_string()])
            );
        }
        other => panic!("expected UnknownKernel, got {other:?}"),
    }
    let f = module.function("warp_sums").unwrap();
    let over = f.limits().threads + 32;
    for (grid, block, shared, part) in [
        // Each dimension inside its own limit, their product past the kernel's.
        ([1, 1, 1], [32, over / 32, 1], 0, "threads per block"),
        ([1, 1, 1], [0, 1, 1], 0, "block dimension x"),
        ([0, 1, 1], [32, 1, 1], 0, "grid dimension x"),
        (
            [1, 1, 1],
            [32, 1, 1],
            1 << 30,
            "dynamic shared memory (bytes)",
        ),
    ] {
        match f.launch_config(grid, block, shared) {
            Err(WavekitError::LaunchBounds { what, .. }) => assert_eq!(what, part),
            other => panic!("{part}: expected LaunchBounds, got {other:?}"),
        }
    }
    // A launch the driver refuses (the shape unchecked), through `check`: a typed error.
    let stream = ctx.new_stream().unwrap();
    let cfg = wavekit::cuda::cudarc::driver::LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (over, 1, 1),
        shared_mem_bytes: 0,
    };
    let (a, b, c, n) = (0u64, 0u64, 0u64, 0u32);
    let mut launch = stream.launch_builder(f.cuda_function());
    launch.arg(&a).arg(&b).arg(&c).arg(&n);
    // SAFETY: n = 0: no lane touches memory, and the driver refuses the block anyway.
    match f.check(unsafe { launch.launch(cfg) }) {
        Err(WavekitError::Device { call, .. }) => assert!(call.contains("warp_sums"), "{call}"),
        other => panic!("expected a Device error, got {other:?}"),
    }
}
