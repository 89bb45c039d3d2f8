//! The HIP runtime FFI against the real libamdhip64, on any machine: error codes become typed
//! errors with the runtime's own names, a missing device is `NoDevice`, and the rule that
//! decides whether a built target runs on a device.
#![cfg(feature = "hip")]

use wavekit::WavekitError;
use wavekit::hip::result;
use wavekit::hip::runtime::{BUILT_ARCHS, target_runs_on};
use wavekit::hip::{HipRuntime, sys};

#[test]
fn a_device_past_the_last_is_no_device() {
    let count = HipRuntime::device_count().expect("hipGetDeviceCount");
    match HipRuntime::new(count) {
        Err(WavekitError::NoDevice { backend, reason }) => {
            assert_eq!(backend, "hip");
            let want = if count == 0 {
                "no AMD GPU"
            } else {
                "was requested"
            };
            assert!(reason.contains(want), "reason: {reason}");
        }
        Err(other) => panic!("expected NoDevice, got {other}"),
        Ok(_) => panic!("device {count} opened although {count} exist"),
    }
}

#[test]
fn success_is_ok_and_errors_carry_the_runtime_name() {
    assert_eq!(result::check(sys::wk_hip_abi_success, "anything"), Ok(()));
    let err = result::check(sys::wk_hip_abi_error_no_device, "hipFoo").unwrap_err();
    match &err {
        WavekitError::Device {
            backend,
            call,
            message,
        } => {
            assert_eq!(*backend, "hip");
            assert_eq!(call, "hipFoo");
            assert!(
                message.starts_with("hipErrorNoDevice ("),
                "message: {message}"
            );
        }
        other => panic!("expected a Device error, got {other:?}"),
    }
    let text = err.to_string();
    assert!(text.contains("hip call hipFoo failed"), "display: {text}");
    let invalid = result::describe(sys::wk_hip_abi_error_invalid_device);
    assert!(invalid.starts_with("hipErrorInvalidDevice ("), "{invalid}");
}

#[test]
fn abi_values_come_from_the_headers() {
    // Distinct values, success zero: catches a shim that exports the wrong names.
    assert_eq!(sys::wk_hip_abi_success, 0);
    let kinds = [
        sys::wk_hip_abi_memcpy_htod,
        sys::wk_hip_abi_memcpy_dtoh,
        sys::wk_hip_abi_memcpy_dtod,
    ];
    assert_eq!(kinds, [1, 2, 3], "hipMemcpyKind is CUDA's cudaMemcpyKind");
    assert_ne!(
        sys::wk_hip_abi_attr_warp_size,
        sys::wk_hip_abi_attr_multiprocessors
    );
    assert!(result::describe(sys::wk_hip_abi_error_no_device).contains("NoDevice"));
}

#[test]
fn a_built_target_runs_only_on_its_processor_with_matching_features() {
    assert!(target_runs_on("gfx90a", "gfx90a:sramecc+:xnack-"));
    assert!(target_runs_on("gfx90a", "gfx90a"));
    assert!(target_runs_on("gfx90a:xnack-", "gfx90a:sramecc+:xnack-"));
    assert!(!target_runs_on("gfx90a:xnack+", "gfx90a:sramecc+:xnack-"));
    assert!(!target_runs_on("gfx90a", "gfx908:sramecc+:xnack-"));
    assert!(!target_runs_on("gfx940", "gfx942:sramecc+:xnack-"));
    assert!(!target_runs_on("gfx1030", "gfx1031"));
    assert!(!target_runs_on("gfx90", "gfx90a"));
}

#[test]
fn the_built_target_list_is_exported() {
    let archs: Vec<&str> = BUILT_ARCHS.split(',').collect();
    assert!(
        !archs.is_empty() && archs.iter().all(|a| a.starts_with("gfx")),
        "{BUILT_ARCHS}"
    );
}
