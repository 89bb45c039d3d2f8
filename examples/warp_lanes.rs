//! Warp primitives lane by lane: vote and ballot, the four shuffles, match_any, warp reduce and
//! warp scan on one 32-lane warp (CPU backend), then the same at 64 lanes on the SIMT executor
//! (the real GPU kernels run on the CPU) and the CPU backend. Every lane is checked against the
//! CUDA rule written out in plain Rust below; a mismatch exits non-zero.
//!
//! ```sh
//! cargo run --example warp_lanes --features simt
//! ```

use std::process::ExitCode;
use wavekit::prelude::*;

fn main() -> ExitCode {
    let mut bad = 0;
    let cpu32 = CpuBackend::new(WarpWidth::W32);
    let result = warp(&cpu32, true, &mut bad).and_then(|()| {
        let exec64: SimtBackend = wavekit::simt::open(WarpWidth::W64)?;
        warp(&exec64, true, &mut bad)?;
        warp(&CpuBackend::new(WarpWidth::W64), false, &mut bad)
    });
    match result {
        Ok(()) if bad == 0 => {
            println!("warp_lanes: every lane matches");
            ExitCode::SUCCESS
        }
        Ok(()) => {
            eprintln!("warp_lanes: {bad} lanes differ");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("warp_lanes: {e}");
            ExitCode::FAILURE
        }
    }
}

/// What each lane holds: distinct values, so a shuffle's source can be read off the output.
fn value(lane: u32) -> i32 {
    100 + lane as i32
}

/// The shuffle source lane as CUDA defines it, within segments of `width` lanes.
fn source(kind: Shfl, lane: u32, arg: u32, width: u32) -> u32 {
    let base = lane / width * width;
    match kind {
        Shfl::Idx => base + arg % width,
        Shfl::Up if lane - base >= arg => lane - arg,
        Shfl::Down if lane - base + arg < width => lane + arg,
        Shfl::Xor if (lane ^ arg) < base + width => lane ^ arg,
        _ => lane,
    }
}

fn mark(ok: bool) -> &'static str {
    if ok { " " } else { "!" }
}

/// Runs every primitive on one full warp of backend `b`, prints the lane table when `print`,
/// and counts the lanes that differ from the plain-Rust rule.
fn warp<B: WarpPrimitives>(b: &B, print: bool, bad: &mut usize) -> Result<()> {
    let w = b.warp_width();
    let lanes = w.lanes();
    let full = LaneMask::full(w);
    let vals: Vec<i32> = (0..lanes).map(value).collect();
    let preds: Vec<bool> = (0..lanes).map(|l| l % 3 == 0).collect();
    let keys: Vec<u32> = (0..lanes).map(|l| l % 4).collect();

    // Votes: every lane gets the same answer.
    let want_ballot = LaneMask::from_fn(w, |l| l % 3 == 0);
    let ballot = b.vote(Vote::Ballot, &preds, full)?;
    let any = b.vote(Vote::Any, &preds, full)?;
    let all = b.vote(Vote::All, &preds, full)?;
    let vote_ok = (0..lanes as usize).all(|l| {
        ballot[l] == Some(VoteResult::Ballot(want_ballot))
            && any[l] == Some(VoteResult::Bool(true))
            && all[l] == Some(VoteResult::Bool(false))
    });
    *bad += usize::from(!vote_ok);

    // Shuffles over the whole warp: idx 5, up 1, down 2, xor 3.
    let shuffles = [
        (Shfl::Idx, 5),
        (Shfl::Up, 1),
        (Shfl::Down, 2),
        (Shfl::Xor, 3),
    ];
    let mut shfl_out = Vec::new();
    for (kind, arg) in shuffles {
        shfl_out.push(b.shfl(kind, &vals, arg, lanes, full)?);
    }

    let groups = b.match_any(&keys, full)?;
    let scan = b.warp_scan(&vals, lanes, ReduceOp::Sum, ScanKind::Inclusive)?;
    let reduce8 = b.warp_reduce(&vals, 8, ReduceOp::Sum)?;
    let reduce_all = b.warp_reduce(&vals, lanes, ReduceOp::Max)?;

    if print {
        println!("\n{} ({} lanes)", b.name(), lanes);
        println!(
            "  ballot(lane % 3 == 0) = {}  any = true, all = false",
            want_ballot
        );
        println!("  lane value | idx 5 | up 1 | down 2 | xor 3 | match_any(lane % 4)  | scan Sum");
    }
    let mut prefix = 0;
    for l in 0..lanes {
        let t = l as usize;
        let mut row = format!("  {l:>4} {:>5} |", vals[t]);
        for ((kind, arg), out) in shuffles.iter().zip(&shfl_out) {
            let want = Some(value(source(*kind, l, *arg as u32, lanes)));
            *bad += usize::from(out[t] != want);
            let shown = out[t].map_or("--".to_string(), |v| v.to_string());
            row += &format!(" {shown:>4}{} |", mark(out[t] == want));
        }
        let want_group = LaneMask::from_fn(w, |m| m % 4 == l % 4);
        *bad += usize::from(groups[t] != Some(want_group));
        row += &format!(
            " {:#018x}{} |",
            groups[t].map_or(0, |m| m.bits()),
            mark(groups[t] == Some(want_group))
        );
        prefix += vals[t];
        *bad += usize::from(scan[t] != prefix);
        row += &format!(" {:>5}{}", scan[t], mark(scan[t] == prefix));
        if print {
            println!("{row}");
        }
    }

    let want8: Vec<i32> = vals.chunks(8).map(|c| c.iter().sum()).collect();
    let want_max = vec![value(lanes - 1)];
    *bad += usize::from(reduce8 != want8) + usize::from(reduce_all != want_max);
    println!(
        "{} w{lanes}: warp_reduce Sum by 8 lanes = {reduce8:?} {}, Max over the warp = {reduce_all:?} {}, votes {}",
        b.name(),
        if reduce8 == want8 { "ok" } else { "FAIL" },
        if reduce_all == want_max { "ok" } else { "FAIL" },
        if vote_ok { "ok" } else { "FAIL" },
    );
    Ok(())
}
