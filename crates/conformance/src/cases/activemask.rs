//! activemask: only its guarantee, each member's result contains itself and only lanes of the
//! branch (independent thread scheduling may leave out other branch lanes).

use crate::Scale;
use crate::check::ok;
use crate::inputs::{masks, thread_counts};
use crate::reference;
use wavekit_core::RawBackend;
use wavekit_core::api::WarpPrimitives;

pub fn activemask_guarantee<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    let w = b.warp_width();
    let lanes = w.lanes() as usize;
    for threads in thread_counts(w, scale) {
        for (mname, branch) in masks(w, scale) {
            let ctx = format!("threads={threads} branch={mname}");
            let got = ok(&ctx, b.activemask(threads, branch))?;
            if got.len() != threads {
                return Err(format!(
                    "{ctx}: expected {threads} results, got {}",
                    got.len()
                ));
            }
            for (t, r) in got.iter().enumerate() {
                let (warp, lane) = (t / lanes, (t % lanes) as u32);
                let allowed = reference::activemask_lanes(branch, threads, warp);
                match r {
                    None if allowed >> lane & 1 == 0 => {}
                    None => return Err(format!("{ctx}: lane {t}: a branch lane got None")),
                    Some(_) if allowed >> lane & 1 == 0 => {
                        return Err(format!("{ctx}: lane {t}: not in the branch but got {r:?}"));
                    }
                    Some(m) if !m.contains(lane) => {
                        return Err(format!("{ctx}: lane {t}: result {m:?} lacks the caller"));
                    }
                    Some(m) if m.bits() & !allowed != 0 => {
                        return Err(format!(
                            "{ctx}: lane {t}: result {m:?} holds lanes outside the branch {allowed:#x}"
                        ));
                    }
                    Some(_) => {}
                }
            }
        }
    }
    Ok(())
}
