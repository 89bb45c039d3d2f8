#![cfg(feature = "hip")]
//! A kernel source compiled at run time by hipRTC with wavekit's device API
//! (`wavekit::hip::rtc`): examples/nvrtc_warp.cu, the source NVRTC compiles in
//! tests/cuda_rtc.rs and the executor checks in tests/simt_source.rs. hipRTC needs no GPU, so CI
//! compiles it for a wave64 and a wave32 target (gfx90a, gfx1030) and reads the wave size back from each code
//! object; a source that does not compile comes back with hipRTC's log.

use wavekit::WavekitError;
use wavekit::hip::rtc;

const SOURCE: &str = include_str!("../examples/nvrtc_warp.cu");

/// The `.wavefront_size` of the code object's kernel metadata (AMDGPU code object v3+ notes).
fn wavefront_size(code: &[u8]) -> Option<u32> {
    let key = b".wavefront_size";
    let at = code.windows(key.len()).position(|w| w == key)? + key.len();
    // msgpack: the key, then a positive fixint holding the value.
    code.get(at).map(|&b| u32::from(b))
}

#[test]
fn the_example_compiles_for_wave64_and_wave32_targets_without_a_gpu() {
    // A device's full target name is what `compile` passes. (gfx940 is left out: ROCm 5.2's
    // hipRTC aborts in the compiler library on it, though its hipcc builds it offline.)
    let targets = [
        ("gfx90a", 64),
        ("gfx90a:sramecc+:xnack-", 64),
        ("gfx1030", 32),
    ];
    for (arch, wave) in targets {
        let c = rtc::compile_code_object("nvrtc_warp.cu", SOURCE, arch, &[])
            .unwrap_or_else(|e| panic!("{arch}: {e}"));
        assert!(c.code.starts_with(b"\x7fELF"), "{arch}: not a code object");
        let symbol = c.symbol("nvrtc_warp.cu", "warp_sums").unwrap();
        assert_eq!(symbol, "_ZN6wk_hip9warp_sumsEPKfPfPjj", "{arch}");
        assert!(
            c.code.windows(symbol.len()).any(|w| w == symbol.as_bytes()),
            "{arch}: the kernel is not in the code object"
        );
        assert_eq!(wavefront_size(&c.code), Some(wave), "{arch}");
    }
}

#[test]
fn a_compile_error_comes_back_with_hiprtcs_log() {
    let broken = SOURCE.replace(
        "warp_reduce<OP_SUM>(v)",
        "warp_reduce<OP_SUM>(v, undeclared_width)",
    );
    match rtc::compile_code_object("broken.cu", &broken, "gfx90a", &[]) {
        Err(WavekitError::Compile { compiler, log, .. }) => {
            assert_eq!(compiler, "hiprtc");
            assert!(log.contains("undeclared_width"), "{log}");
        }
        other => panic!("expected a Compile error, got {other:?}"),
    }
    assert!(matches!(
        rtc::compile_code_object("x.cu", SOURCE, "gfx90a", &[])
            .unwrap()
            .symbol("x.cu", "nope"),
        Err(WavekitError::UnknownKernel { .. })
    ));
}

#[test]
#[ignore = "needs an AMD GPU"]
fn the_example_runs_on_the_device_and_matches_the_cpu_backend() {
    use wavekit::gpu::GpuRuntime;
    use wavekit::prelude::*;
    let wk = wavekit::hip::open(0).unwrap();
    let module = rtc::compile(wk.runtime(), "nvrtc_warp.cu", SOURCE, &[]).unwrap();
    let f = module.function("warp_sums").unwrap();
    let width = wk.runtime().warp_size() as usize;
    let n = 100_000usize;
    let x: Vec<f32> = (0..n)
        .map(|i| ((i * 7919) % 613) as f32 * 0.37 - 100.0)
        .collect();
    let warps = n.div_ceil(width);
    let data = wk.upload(&x).unwrap();
    let sums = wk.alloc::<f32>(warps).unwrap();
    let pos = wk.alloc::<u32>(warps).unwrap();
    let (mut a, mut b, mut c, mut m) = (
        data.device_ptr(),
        sums.device_ptr(),
        pos.device_ptr(),
        n as u32,
    );
    let mut args: [*mut std::ffi::c_void; 4] = [
        (&raw mut a).cast(),
        (&raw mut b).cast(),
        (&raw mut c).cast(),
        (&raw mut m).cast(),
    ];
    // SAFETY: four arguments of the kernel's types; the buffers outlive the synchronisation.
    unsafe {
        f.launch(
            wk.runtime(),
            [n.div_ceil(256) as u32, 1, 1],
            [256, 1, 1],
            0,
            &mut args,
        )
    }
    .unwrap();
    let cpu = CpuBackend::new(WarpWidth::new(width as u32).unwrap());
    let want = cpu.warp_reduce(&x, width as u32, ReduceOp::Sum).unwrap();
    let got = wk.download(&sums).unwrap();
    let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&got), bits(&want));
    let want_pos: Vec<u32> = x
        .chunks(width)
        .map(|c| c.iter().filter(|&&v| v > 0.0).count() as u32)
        .collect();
    assert_eq!(wk.download(&pos).unwrap(), want_pos);
    assert!(matches!(
        f.limits()
            .threads
            .checked_add(64)
            // SAFETY: the same four arguments as the launch above; refused (LaunchBounds) before
            // anything is launched.
            .map(|t| unsafe { f.launch(wk.runtime(), [1, 1, 1], [t, 1, 1], 0, &mut args) }),
        Some(Err(WavekitError::LaunchBounds { .. }))
    ));
}
