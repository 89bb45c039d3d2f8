//! Borrowed memory through the public collectives: CPU views of the caller's slices, slices of
//! larger buffers, memory adopted by the SIMT executor, buffers shared by two backends of one
//! device. Results are checked against plain sequential sums and scans written here, and against
//! the same collective on an owned copy; bad ranges, misaligned or overflowing adoptions and
//! buffers moved out of their views must give typed errors.

use wavekit::cpu::{CpuBackend, CpuBuffer};
use wavekit::{
    Backend, Collectives, DeviceBuffer, Predicate, ReduceOp, ScanKind, WarpWidth, WavekitError,
};

fn ints(n: usize) -> Vec<i64> {
    (0..n as i64).map(|i| (i * 7919) % 1013 - 500).collect()
}

fn floats(n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| ((i * 37) % 101) as f32 * 0.37 - 11.0)
        .collect()
}

fn seq_scan(xs: &[i64], kind: ScanKind) -> Vec<i64> {
    let mut acc = 0i64;
    xs.iter()
        .map(|&x| {
            let before = acc;
            acc += x;
            if kind == ScanKind::Inclusive {
                acc
            } else {
                before
            }
        })
        .collect()
}

/// Slices of an owned buffer on any backend: a reduce sees only its range, a scan into a
/// mutable slice writes only its range, and each equals the collective on an owned copy.
fn slices_of_owned<B: Collectives>(b: &B) {
    let data = ints(5000);
    let buf = b.upload(&data).unwrap();
    for (lo, hi) in [(0, 5000), (1, 4999), (1234, 4321), (4999, 5000), (17, 18)] {
        let part = b.slice(&buf, lo..hi).unwrap();
        assert_eq!(part.len(), hi - lo);
        let want: i64 = data[lo..hi].iter().sum();
        assert_eq!(b.reduce(&part, ReduceOp::Sum).unwrap(), want, "{lo}..{hi}");
        let owned = b.upload(&data[lo..hi]).unwrap();
        assert_eq!(
            b.reduce(&part, ReduceOp::Max).unwrap(),
            b.reduce(&owned, ReduceOp::Max).unwrap()
        );
        assert_eq!(b.download(&part).unwrap(), &data[lo..hi]);
    }
    // Empty slices are fine; a reduce of one is the API's usual EmptyInput.
    let empty = b.slice(&buf, 5000..5000).unwrap();
    assert!(matches!(
        b.reduce(&empty, ReduceOp::Sum),
        Err(WavekitError::EmptyInput { .. })
    ));

    // Scan 1000 inputs into elements 2000..3000 of a zeroed 5000-element output.
    let input = b.slice(&buf, 100..1100).unwrap();
    let mut out = b.alloc::<i64>(5000).unwrap();
    {
        let mut window = b.slice_mut(&mut out, 2000..3000).unwrap();
        b.scan(&input, &mut window, ReduceOp::Sum, ScanKind::Exclusive)
            .unwrap();
    }
    let got = b.download(&out).unwrap();
    assert!(got[..2000].iter().all(|&x| x == 0), "before the window");
    assert!(got[3000..].iter().all(|&x| x == 0), "after the window");
    assert_eq!(
        &got[2000..3000],
        seq_scan(&data[100..1100], ScanKind::Exclusive)
    );

    // A slice of a slice.
    let outer = b.slice(&buf, 1000..3000).unwrap();
    let inner = b.slice(&outer, 500..600).unwrap();
    assert_eq!(
        b.reduce(&inner, ReduceOp::Sum).unwrap(),
        data[1500..1600].iter().sum::<i64>()
    );
    drop(inner);
    drop(outer);

    // Bad ranges: typed errors, nothing made.
    for (lo, hi) in [(0, 5001), (10, 9), (5001, 5001), (usize::MAX, 3)] {
        match b.slice(&buf, lo..hi) {
            Err(WavekitError::InvalidRange { start, end, len }) => {
                assert_eq!((start, end, len), (lo, hi, 5000));
            }
            Err(e) => panic!("slice {lo}..{hi}: {e:?}"),
            Ok(_) => panic!("slice {lo}..{hi} accepted"),
        }
        assert!(matches!(
            b.slice_mut(&mut out, lo..hi),
            Err(WavekitError::InvalidRange { .. })
        ));
    }
}

/// A buffer moved out of its `ViewMut` is refused, so it cannot outlive the memory it borrows.
fn moved_out_is_refused<B: Collectives>(b: &B) {
    let mut out = b.alloc::<i64>(8).unwrap();
    let input = b.upload(&[1i64; 8]).unwrap();
    let mut stolen = b.alloc::<i64>(4).unwrap();
    {
        let mut window = b.slice_mut(&mut out, 2..6).unwrap();
        std::mem::swap(&mut stolen, &mut *window);
        // The view now holds an owned 4-element buffer; `stolen` is the borrowed one.
        assert!(matches!(
            b.reduce(&stolen, ReduceOp::Sum),
            Err(WavekitError::ForeignBuffer)
        ));
        let part = b.slice(&input, 0..4).unwrap();
        assert!(matches!(
            b.scan(&part, &mut stolen, ReduceOp::Sum, ScanKind::Inclusive),
            Err(WavekitError::ForeignBuffer)
        ));
        // Swapped back home, it works again.
        std::mem::swap(&mut stolen, &mut *window);
        b.scan(&part, &mut window, ReduceOp::Sum, ScanKind::Inclusive)
            .unwrap();
        std::mem::swap(&mut stolen, &mut *window);
    }
    // The view is gone (its box leaked, so its address is never reused): still refused.
    assert!(matches!(
        b.download(&stolen),
        Err(WavekitError::ForeignBuffer)
    ));
    assert_eq!(b.download(&out).unwrap(), [0, 0, 1, 2, 3, 4, 0, 0]);
}

#[test]
fn cpu_slices_of_owned_buffers() {
    for w in WarpWidth::ALL {
        slices_of_owned(&CpuBackend::new(w));
    }
}

#[test]
fn cpu_moved_out_view_is_refused() {
    moved_out_is_refused(&CpuBackend::new(WarpWidth::W32));
}

#[test]
fn cpu_moved_out_view_panics_in_as_slice() {
    let cpu = CpuBackend::new(WarpWidth::W32);
    let mut data = [1u32, 2, 3];
    let mut stolen = CpuBuffer::from_vec(vec![9u32; 3]);
    {
        let mut view = cpu.view_mut(&mut data);
        std::mem::swap(&mut stolen, &mut *view);
        assert_eq!(view.as_slice(), [9, 9, 9]);
    }
    assert!(std::panic::catch_unwind(|| stolen.as_slice().len()).is_err());
    assert!(std::panic::catch_unwind(|| stolen.clone()).is_err());
    assert_eq!(data, [1, 2, 3]);
}

#[test]
fn cpu_views_of_user_slices() {
    let cpu = CpuBackend::new(WarpWidth::W32);
    let data = ints(100_000);
    let view = cpu.view(&data);
    assert!(view.is_borrowed());
    assert_eq!(
        cpu.reduce(&view, ReduceOp::Sum).unwrap(),
        data.iter().sum::<i64>()
    );
    assert_eq!(
        cpu.reduce(&view, ReduceOp::Min).unwrap(),
        *data.iter().min().unwrap()
    );
    let fs = floats(70_001);
    let owned = cpu.upload(&fs).unwrap();
    for op in [ReduceOp::Sum, ReduceOp::Min, ReduceOp::Max] {
        let a = cpu.reduce(&cpu.view(&fs), op).unwrap();
        let b = cpu.reduce(&owned, op).unwrap();
        assert_eq!(a.to_bits(), b.to_bits(), "{op:?}");
    }

    // Scans straight into the caller's slice, both kinds.
    for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
        let mut out = vec![0i64; data.len()];
        cpu.scan(&view, &mut cpu.view_mut(&mut out), ReduceOp::Sum, kind)
            .unwrap();
        assert_eq!(out, seq_scan(&data, kind));
    }
    // A short output slice: LengthMismatch, the slice untouched.
    let mut short = vec![7i64; 10];
    assert!(matches!(
        cpu.scan(
            &view,
            &mut cpu.view_mut(&mut short),
            ReduceOp::Sum,
            ScanKind::Inclusive
        ),
        Err(WavekitError::LengthMismatch { .. })
    ));
    assert!(short.iter().all(|&x| x == 7));

    // count_if, compact and histogram on views.
    let pred = Predicate::Gt(100i64);
    let want: Vec<i64> = data.iter().copied().filter(|&x| x > 100).collect();
    assert_eq!(cpu.count_if(&view, pred).unwrap(), want.len() as u64);
    let c = cpu.compact(&view, pred, true).unwrap();
    assert_eq!(&c.data.as_slice()[..c.len], want);
    let keys: Vec<u32> = (0..10_000u32).map(|i| (i * 31) % 70).collect();
    let h = cpu.histogram(&cpu.view(&keys), 64).unwrap();
    let mut counts = vec![0u64; 64];
    keys.iter()
        .filter(|&&k| k < 64)
        .for_each(|&k| counts[k as usize] += 1);
    assert_eq!(h.counts, counts);
    assert_eq!(h.outside, keys.iter().filter(|&&k| k >= 64).count() as u64);

    // Writing through a view writes the caller's memory; a mutable view of a view-range.
    let mut target = vec![0u32; 6];
    {
        let mut v = cpu.view_mut(&mut target);
        let mut mid = cpu.slice_mut(&mut v, 1..4).unwrap();
        cpu.write(&mut mid, &[4, 5, 6]).unwrap();
    }
    assert_eq!(target, [0, 4, 5, 6, 0, 0]);
}

#[cfg(feature = "simt")]
mod simt {
    use super::*;
    use wavekit::simt::{self, Arch};

    #[test]
    fn simt_slices_of_owned_buffers() {
        for w in WarpWidth::ALL {
            slices_of_owned(&simt::open(w).unwrap());
        }
    }

    #[test]
    fn simt_moved_out_view_is_refused() {
        moved_out_is_refused(&simt::open(WarpWidth::W32).unwrap());
    }

    #[test]
    fn simt_adopted_memory_through_the_collectives() {
        let b = simt::open(WarpWidth::W64).unwrap();
        let data = ints(3000);
        // SAFETY: the executor's device memory is host memory: `data` is 3000 initialised i64s,
        // alive and unwritten until the view drops at the end of the test.
        let view = unsafe { b.adopt::<i64>(data.as_ptr() as u64, data.len()) }.unwrap();
        assert!(view.is_borrowed());
        assert_eq!(
            b.reduce(&view, ReduceOp::Sum).unwrap(),
            data.iter().sum::<i64>()
        );
        let mut out = vec![0i64; 3000];
        {
            // SAFETY: `out` is 3000 i64s of host (= executor device) memory, used by nothing else
            // until `o` drops at the end of this block.
            let mut o = unsafe { b.adopt_mut::<i64>(out.as_mut_ptr() as u64, out.len()) }.unwrap();
            b.scan(&view, &mut o, ReduceOp::Sum, ScanKind::Inclusive)
                .unwrap();
        }
        assert_eq!(out, seq_scan(&data, ScanKind::Inclusive));
        // A slice of adopted memory.
        let part = b.slice(&view, 10..20).unwrap();
        assert_eq!(
            b.reduce(&part, ReduceOp::Sum).unwrap(),
            data[10..20].iter().sum::<i64>()
        );
        let pred = Predicate::Lt(0i64);
        assert_eq!(
            b.count_if(&view, pred).unwrap(),
            data.iter().filter(|&&x| x < 0).count() as u64
        );
    }

    #[test]
    fn simt_bad_adoptions_are_typed_errors() {
        let b = simt::open(WarpWidth::W32).unwrap();
        let data = [0u64; 4];
        let base = data.as_ptr() as u64;
        for off in [1, 2, 4] {
            // SAFETY: `base + off .. + 8` lies inside `data` (32 bytes, off <= 4), so the memory is
            // valid; the misaligned address is refused before any view exists.
            match unsafe { b.adopt::<u64>(base + off, 1) } {
                Err(WavekitError::Misaligned { addr, align }) => {
                    assert_eq!((addr, align), (base + off, 8));
                }
                other => panic!("offset {off}: {other:?}"),
            }
            assert!(matches!(
                // SAFETY: as above: refused before any view exists, so nothing is written through
                // `data`'s shared borrow.
                unsafe { b.adopt_mut::<u64>(base + off, 1) },
                Err(WavekitError::Misaligned { .. })
            ));
        }
        // Sizes whose bytes or end address overflow.
        assert!(matches!(
            // SAFETY: refused before any view exists (the byte size overflows), so no memory is
            // used.
            unsafe { b.adopt::<u64>(base, usize::MAX / 4) },
            Err(WavekitError::TooLarge { .. })
        ));
        assert!(matches!(
            // SAFETY: refused before any view exists (the end address overflows), so no memory is
            // used.
            unsafe { b.adopt::<u32>(u64::MAX - 7, 4) },
            Err(WavekitError::TooLarge { .. })
        ));
        // Length 0 is a valid empty buffer.
        // SAFETY: zero elements: no byte is read.
        let empty = unsafe { b.adopt::<u64>(base, 0) }.unwrap();
        assert_eq!(empty.len(), 0);
    }

    /// One backend per stream: a buffer of one executor is used by another of the same arch
    /// and width, and refused by one of another width or arch.
    #[test]
    fn simt_buffers_cross_backends_of_one_device() {
        let a = simt::open(WarpWidth::W32).unwrap();
        let b = simt::open(WarpWidth::W32).unwrap();
        let data = ints(4096);
        let buf = a.upload(&data).unwrap();
        let mut out = a.alloc::<i64>(4096).unwrap();
        assert_eq!(
            b.reduce(&buf, ReduceOp::Sum).unwrap(),
            data.iter().sum::<i64>()
        );
        b.scan(&buf, &mut out, ReduceOp::Sum, ScanKind::Exclusive)
            .unwrap();
        assert_eq!(
            a.download(&out).unwrap(),
            seq_scan(&data, ScanKind::Exclusive)
        );
        let part = b.slice(&buf, 5..50).unwrap();
        assert_eq!(
            a.reduce(&part, ReduceOp::Sum).unwrap(),
            data[5..50].iter().sum::<i64>()
        );
        drop(part);
        drop(a);
        // The allocating backend is gone; the buffer keeps its runtime alive.
        assert_eq!(b.download(&buf).unwrap(), data);

        let wide = simt::open(WarpWidth::W64).unwrap();
        assert!(matches!(
            wide.reduce(&buf, ReduceOp::Sum),
            Err(WavekitError::ForeignBuffer)
        ));
        let other_arch = simt::open_arch(Arch::Hip, WarpWidth::W32).unwrap();
        assert!(matches!(
            other_arch.download(&buf),
            Err(WavekitError::ForeignBuffer)
        ));
    }
}
