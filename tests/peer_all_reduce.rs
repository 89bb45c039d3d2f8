//! `GpuBackend::peer_all_reduce` (the reproducible allreduce of one node's GPUs, each kernel
//! reading the others' buffers) against the conformance reference's butterfly, bit for bit:
//! ranks as threads, each with its own backend, on the SIMT executor at 32 and 64 lanes (CI;
//! one executor process is one address space, as GPUs with peer access are) and on CUDA
//! devices (one rank a GPU). Both forms of a call: the kernels reading the callers' buffers
//! (ranks sharing a process), and each rank staging through a buffer of its own that the
//! others read (ranks in separate processes, which map only what is exported to them).

use std::sync::{Arc, Barrier, Mutex, mpsc};
use std::time::Duration;
use wavekit::gpu::{GpuBackend, GpuBuffer, GpuRuntime, MAX_PEERS, PeerCall};
use wavekit::prelude::*;
use wavekit::{WavekitError, element::splitmix};
use wavekit_conformance::reference;

fn values<T: Element>(n: usize, seed: u64) -> Vec<T> {
    (0..n as u64)
        .map(|i| T::from_seed(splitmix(seed ^ (i << 8))))
        .collect()
}

/// Every rank's send for one call.
fn sends<T: Element>(ranks: usize, n: usize, call: u64) -> Vec<Vec<T>> {
    (0..ranks)
        .map(|k| values::<T>(n, call * 100 + k as u64))
        .collect()
}

fn want<T: Element>(sends: &[Vec<T>], op: ReduceOp) -> Vec<T> {
    let n = sends[0].len();
    (0..n)
        .map(|i| {
            let column: Vec<T> = sends.iter().map(|s| s[i]).collect();
            reference::bfly_pow2(op, &column)
        })
        .collect()
}

/// What the ranks share between their launches: their addresses, published once a call.
struct Board {
    barrier: Barrier,
    slots: Mutex<Vec<[u64; 3]>>,
}

impl Board {
    fn new(ranks: usize) -> Self {
        Board {
            barrier: Barrier::new(ranks),
            slots: Mutex::new(vec![[0; 3]; ranks]),
        }
    }

    /// Every rank's (send, recv, flags), once every rank has published its own.
    fn exchange(&self, rank: usize, mine: [u64; 3]) -> Vec<[u64; 3]> {
        self.slots.lock().unwrap()[rank] = mine;
        self.barrier.wait();
        let all = self.slots.lock().unwrap().clone();
        self.barrier.wait();
        all
    }
}

/// One rank's part of a run of calls: `ranks` threads each call this with their backend.
/// Calls alternate the two modes and the two forms (direct, staged) and change length, op and
/// type, over one flag buffer and one staging buffer.
/// A mismatch does not end the rank's calls (its peers would wait for it forever): every
/// call runs and the mismatches come back.
fn rank_calls<R: GpuRuntime>(
    b: &GpuBackend<R>,
    board: &Board,
    rank: usize,
    ranks: usize,
) -> Vec<String> {
    let mut errors = Vec::new();
    let flags = b.peer_flags().unwrap();
    // Room for the longest call below (20_011 elements of 8 bytes); staged calls alternate.
    let staging = [
        b.alloc::<u64>(20_011).unwrap(),
        b.alloc::<u64>(20_011).unwrap(),
    ];
    let mut epoch = 0;
    let mut next = |one_shot| {
        epoch += 1;
        PeerCall {
            rank,
            sends: vec![],
            recvs: vec![],
            flags: vec![],
            epoch,
            one_shot,
            timeout: Duration::from_secs(60),
        }
    };
    let bufs = |staged: bool, pc: &PeerCall| Bufs {
        flags: &flags,
        staging: staged.then_some(&staging[pc.epoch as usize % 2]),
    };
    for (i, n) in [1usize, 5, 4099, 20_011].into_iter().enumerate() {
        for one_shot in [false, true] {
            let seed = (i * 2 + usize::from(one_shot)) as u64;
            let pc = next(one_shot);
            let at = bufs(i % 2 == 1, &pc);
            errors.extend(check::<f32, R>(b, board, at, &pc, ranks, n, seed, ReduceOp::Sum).err());
            let pc = next(one_shot);
            let at = bufs(i % 2 == 0, &pc);
            errors.extend(check::<i64, R>(b, board, at, &pc, ranks, n, seed, ReduceOp::Max).err());
        }
    }
    let pc = next(false);
    let at = bufs(false, &pc);
    let product = check::<f64, R>(b, board, at, &pc, ranks, 777, 9, ReduceOp::Product);
    errors.extend(product.err());
    let pc = next(true);
    let xor = check::<u32, R>(
        b,
        board,
        bufs(true, &pc),
        &pc,
        ranks,
        300,
        10,
        ReduceOp::BitXor,
    );
    errors.extend(xor.err());
    // Every peer said it was done with this rank's buffers, the staged calls included.
    if !b.peer_quiet(&flags, Duration::from_secs(10)).unwrap() {
        errors.push(format!("rank {rank}: flags not quiet after the calls"));
    }
    errors
}

/// A rank's flag buffer, and its staging buffer when the call is staged.
#[derive(Clone, Copy)]
struct Bufs<'a, R: GpuRuntime> {
    flags: &'a GpuBuffer<u64, R>,
    staging: Option<&'a GpuBuffer<u64, R>>,
}

#[allow(clippy::too_many_arguments)]
fn check<T: Element, R: GpuRuntime>(
    b: &GpuBackend<R>,
    board: &Board,
    at: Bufs<'_, R>,
    pc: &PeerCall,
    ranks: usize,
    n: usize,
    seed: u64,
    op: ReduceOp,
) -> Result<(), String> {
    let all = sends::<T>(ranks, n, seed);
    let send = b.upload(&all[pc.rank]).unwrap();
    let mut recv = b.alloc::<T>(n).unwrap();
    let [s, r] = match at.staging {
        Some(st) => [st.device_ptr(); 2],
        None => [send.device_ptr(), recv.device_ptr()],
    };
    let addrs = board.exchange(pc.rank, [s, r, at.flags.device_ptr()]);
    let pc = PeerCall {
        sends: addrs.iter().map(|a| a[0]).collect(),
        recvs: addrs.iter().map(|a| a[1]).collect(),
        flags: addrs.iter().map(|a| a[2]).collect(),
        ..pc.clone()
    };
    // SAFETY: every rank's buffers live until the barrier below, after its launch completed.
    unsafe { b.peer_all_reduce(&send, &mut recv, op, &pc) }.unwrap();
    let got = b.download(&recv).unwrap();
    board.barrier.wait();
    let want = want(&all, op);
    let what = format!(
        "{} {op:?} ranks={ranks} rank={} n={n} one_shot={} staged={}",
        T::KIND.name(),
        pc.rank,
        pc.one_shot,
        at.staging.is_some()
    );
    if let Some((i, (g, w))) = got
        .iter()
        .zip(&want)
        .enumerate()
        .find(|(_, (g, w))| !g.same(**w))
    {
        return Err(format!("{what}: element {i}: got {g:?}, want {w:?}"));
    }
    if b.download(&send).unwrap() != all[pc.rank] {
        return Err(format!("{what}: send changed"));
    }
    Ok(())
}

/// `ranks` threads, rank k on `open(k)`, each running `rank_calls`; fails on any mismatch,
/// and after two minutes instead of hanging if the ranks never finish.
fn world<R: GpuRuntime>(ranks: usize, open: Arc<dyn Fn(usize) -> GpuBackend<R> + Send + Sync>) {
    let board = Arc::new(Board::new(ranks));
    let (tx, rx) = mpsc::channel();
    for rank in 0..ranks {
        let (board, open, tx) = (Arc::clone(&board), Arc::clone(&open), tx.clone());
        std::thread::spawn(move || {
            let errors = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                rank_calls(&open(rank), &board, rank, ranks)
            }))
            .unwrap_or_else(|_| vec![format!("rank {rank} panicked")]);
            let _ = tx.send(errors);
        });
    }
    let mut errors = Vec::new();
    for _ in 0..ranks {
        match rx.recv_timeout(Duration::from_secs(120)) {
            Ok(e) => errors.extend(e),
            Err(_) => panic!("{ranks} ranks did not finish within two minutes"),
        }
    }
    assert!(errors.is_empty(), "{ranks} ranks:\n{}", errors.join("\n"));
}

/// Refused before anything is queued, the output untouched.
fn bad_input<R: GpuRuntime>(b: &GpuBackend<R>) {
    let flags = b.peer_flags().unwrap();
    let send = b.upload(&[1.0f32, 2.0, 3.0]).unwrap();
    let mut recv = b.upload(&[7.0f32; 3]).unwrap();
    let good = PeerCall {
        rank: 0,
        sends: vec![send.device_ptr()],
        recvs: vec![recv.device_ptr()],
        flags: vec![flags.device_ptr()],
        epoch: 1,
        one_shot: false,
        timeout: Duration::from_secs(5),
    };
    // SAFETY: every address in the calls made with `run` is one of this rank's live buffers of the
    // right size (`send`, `recv`, `flags`, or a buffer the case passes), used by nothing else, and
    // every case is refused by the checks before anything is queued (what this test shows).
    let run = |pc: &PeerCall, recv: &mut GpuBuffer<f32, R>, op| unsafe {
        b.peer_all_reduce(&send, recv, op, pc)
    };
    let index = |pc: PeerCall, recv: &mut GpuBuffer<f32, R>| {
        let e = run(&pc, recv, ReduceOp::Sum).expect_err("refused");
        assert!(matches!(e, WavekitError::IndexOutOfRange { .. }), "{e}");
    };
    index(
        PeerCall {
            epoch: 0,
            ..good.clone()
        },
        &mut recv,
    );
    index(
        PeerCall {
            rank: 1,
            ..good.clone()
        },
        &mut recv,
    );
    let other = b.upload(&[0.0f32; 3]).unwrap();
    index(
        PeerCall {
            recvs: vec![other.device_ptr()],
            ..good.clone()
        },
        &mut recv,
    );
    // Staged: one buffer at both, apart from send and recv.
    for (s, r) in [
        (other.device_ptr(), recv.device_ptr()),
        (send.device_ptr(), send.device_ptr()),
        (recv.device_ptr(), recv.device_ptr()),
    ] {
        index(
            PeerCall {
                sends: vec![s],
                recvs: vec![r],
                ..good.clone()
            },
            &mut recv,
        );
    }
    let many = vec![send.device_ptr(); MAX_PEERS + 1];
    index(
        PeerCall {
            sends: many.clone(),
            recvs: vec![recv.device_ptr(); MAX_PEERS + 1],
            flags: vec![flags.device_ptr(); MAX_PEERS + 1],
            ..good.clone()
        },
        &mut recv,
    );
    let e = run(
        &PeerCall {
            flags: vec![],
            ..good.clone()
        },
        &mut recv,
        ReduceOp::Sum,
    )
    .expect_err("refused");
    assert!(matches!(e, WavekitError::LengthMismatch { .. }), "{e}");
    let e = run(&good, &mut recv, ReduceOp::BitAnd).expect_err("refused");
    assert!(matches!(e, WavekitError::UnsupportedOp { .. }), "{e}");
    let mut short = b.upload(&[0.0f32; 2]).unwrap();
    let e = run(
        &PeerCall {
            recvs: vec![short.device_ptr()],
            ..good.clone()
        },
        &mut short,
        ReduceOp::Sum,
    )
    .expect_err("refused");
    assert!(matches!(e, WavekitError::LengthMismatch { .. }), "{e}");
    let half = b.upload(&[wavekit::f16::from_f32(1.0); 3]).unwrap();
    let mut half_out = b.upload(&[wavekit::f16::from_f32(0.0); 3]).unwrap();
    let hc = PeerCall {
        sends: vec![half.device_ptr()],
        recvs: vec![half_out.device_ptr()],
        ..good.clone()
    };
    // SAFETY: `half` and `half_out` are live 3-element buffers of this backend; the call is refused
    // (16-bit floats) before anything is queued.
    let e = unsafe { b.peer_all_reduce(&half, &mut half_out, ReduceOp::Sum, &hc) }
        .expect_err("refused");
    assert!(matches!(e, WavekitError::UnsupportedType { .. }), "{e}");
    assert_eq!(
        b.download(&recv).unwrap(),
        [7.0; 3],
        "nothing written on error"
    );
    // A call left unfinished (a flag at a first rendezvous) is not quiet.
    let mut stuck = vec![0u64; wavekit::gpu::PEER_FLAG_WORDS];
    stuck[9] = 3 * 7 + 1;
    assert!(
        !b.peer_quiet(&b.upload(&stuck).unwrap(), Duration::ZERO)
            .unwrap()
    );
    // The good call itself works (one rank: recv = send), and staged.
    run(&good, &mut recv, ReduceOp::Sum).unwrap();
    assert_eq!(b.download(&recv).unwrap(), [1.0, 2.0, 3.0]);
    let staged = PeerCall {
        sends: vec![other.device_ptr()],
        recvs: vec![other.device_ptr()],
        epoch: 2,
        ..good.clone()
    };
    let mut recv = b.upload(&[7.0f32; 3]).unwrap();
    run(&staged, &mut recv, ReduceOp::Max).unwrap();
    assert_eq!(b.download(&recv).unwrap(), [1.0, 2.0, 3.0]);
}

/// Both arch layers (arch_simt.h, and arch_hip.h on the AMDGCN builtins) at both widths.
#[cfg(feature = "simt")]
#[test]
fn executor_ranks_match_the_reference_butterfly() {
    use wavekit::simt::{self, Arch};
    for arch in [Arch::Simt, Arch::Hip] {
        for width in WarpWidth::ALL {
            for ranks in [1, 2, 3, 4] {
                world(
                    ranks,
                    Arc::new(move |_| simt::open_arch(arch, width).unwrap()),
                );
            }
            bad_input(&simt::open_arch(arch, width).unwrap());
        }
    }
}

/// One rank on one GPU: its own rendezvous, and the refusals.
#[cfg(feature = "cuda")]
#[test]
#[ignore = "needs a CUDA device"]
fn cuda_one_rank_matches_the_reference_butterfly() {
    world(
        1,
        Arc::new(|_| wavekit::cuda::open(0).expect("CUDA device 0")),
    );
    bad_input(&wavekit::cuda::open(0).unwrap());
}

/// One rank a GPU, 2 ranks up to every GPU (ranks sharing a GPU would need their kernels
/// resident at once, which the driver's stream-to-queue mapping does not promise).
#[cfg(feature = "cuda")]
#[test]
#[ignore = "needs several CUDA devices"]
fn cuda_ranks_on_several_gpus_match_the_reference_butterfly() {
    let gpus = wavekit::cuda::device_count().min(MAX_PEERS);
    assert!(gpus >= 2, "{gpus} CUDA device(s): this test needs several");
    for ranks in 2..=gpus {
        let open = move |k: usize| {
            let b = wavekit::cuda::open(k).expect("CUDA device");
            for p in 0..ranks {
                assert!(
                    b.runtime().enable_peer_access(p).unwrap(),
                    "peer access {k} -> {p}"
                );
            }
            b
        };
        world(ranks, Arc::new(open));
    }
}
