//! `wavekit info`: the backends built in, their devices and warp widths.

use crate::registry::BackendKind;
use std::fmt::Write;
use wavekit::width::WarpWidth;

pub fn report() -> String {
    let mut out = String::new();
    let _ = writeln!(out, "wavekit {}", env!("CARGO_PKG_VERSION"));
    let built: Vec<_> = BackendKind::ALL
        .into_iter()
        .map(|k| format!("{} {}", k.name(), if k.compiled() { "yes" } else { "no" }))
        .collect();
    let _ = writeln!(out, "backends compiled in: {}", built.join(", "));
    for kind in BackendKind::ALL {
        if !kind.compiled() {
            let _ = writeln!(
                out,
                "{}: not compiled in (bash scripts/setup-{0}.sh, then build with --features {0})",
                kind.name()
            );
            continue;
        }
        match kind.open(None) {
            Ok(found) => {
                let _ = writeln!(out, "{}: {}", kind.name(), describe(kind));
                for b in &found {
                    let _ = writeln!(out, "  {:<40} warp width {}", b.name(), b.warp_width());
                }
            }
            Err(e) => {
                let _ = writeln!(out, "{}: compiled in, unavailable: {e}", kind.name());
            }
        }
    }
    out
}

fn describe(kind: BackendKind) -> String {
    match kind {
        BackendKind::Cpu => {
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            let widths: Vec<String> = WarpWidth::ALL.iter().map(|w| w.to_string()).collect();
            format!(
                "host oracle, {cores} cores ({} rayon threads); warp widths {} all available",
                rayon::current_num_threads(),
                widths.join(" and ")
            )
        }
        BackendKind::Simt => {
            "the csrc kernels on the CPU, lanes as fibers, hazards reported; warp widths 32 and \
             64, on the executor's arch layer and on the real arch_hip.h"
                .into()
        }
        BackendKind::Cuda | BackendKind::Hip => "devices:".into(),
    }
}
