//! Elementwise allreduce, reduce-scatter and allgather of equal-length buffers
//! (docs/SEMANTICS.md, "dist_all_reduce").
//!
//! Reproducible order: element i of the result is `bfly(x_0[i], …, x_{R-1}[i])`, the canonical
//! butterfly over the R ranks padded with the identity to a power of two. It is computed as
//! recursive halving: with P the largest power of two ≤ R, ranks P.. first fold into ranks
//! 0.. (the butterfly's first step over the padded ranks), then ranks below P exchange halves
//! with rank `r ^ d` for d = P/2, …, 1, so that rank r ends with chunk r of the result, which
//! one allgather spreads. Every step combines exactly two values per element, which any
//! transport computes the same way, so the bits depend only on R. When the length splits
//! evenly over 3..=32 ranks, the same butterfly runs as one all-to-all of the chunks and a
//! fold of them on each rank's own device (`SliceDevice::reduce_rows_in_place`).

use crate::handshake::{Call, Header, Lengths};
use crate::{Buf, Comm, Mode, SliceDevice, Transport, check_len};
use std::ops::Range;
use wavekit_core::{Backend, DeviceBuffer, Element, RawSliceDevice, ReduceOp, Result};

impl<X: Transport> Comm<X> {
    /// `recv[i]` = the op over every rank's `send[i]`, on every rank.
    ///
    /// ```
    /// use wavekit_core::{Backend, ReduceOp};
    /// use wavekit_dist::{Comm, Mode, ThreadWorld, Transport};
    /// use wavekit_cpu::CpuBackend;
    /// let got = ThreadWorld::<CpuBackend>::run(3, |r| {
    ///     let comm = Comm::new(r);
    ///     let b = comm.backend();
    ///     let mine: Vec<f32> = (0..5).map(|i| (comm.rank() * 10 + i) as f32).collect();
    ///     let mut out = b.alloc::<f32>(5).unwrap();
    ///     comm.all_reduce(&b.upload(&mine).unwrap(), &mut out, ReduceOp::Sum, Mode::Reproducible)
    ///         .unwrap();
    ///     b.download(&out).unwrap()
    /// });
    /// // bfly over 3 ranks padded to 4: (x0 + x2) + x1.
    /// let want: Vec<f32> = (0..5).map(|i| (i as f32 + (20 + i) as f32) + (10 + i) as f32).collect();
    /// assert!(got.into_iter().all(|g| g.unwrap() == want));
    /// ```
    pub fn all_reduce<T: Element>(
        &self,
        send: &Buf<X, T>,
        recv: &mut Buf<X, T>,
        op: ReduceOp,
        mode: Mode,
    ) -> Result<()> {
        let n = send.len();
        let local = op
            .check::<T>()
            .and_then(|()| check_len("allreduce output", n, recv.len()));
        let [w0, w1] = self.x.fused_words(send, recv);
        let (_, args) = self.handshake_words(
            Header {
                call: Call::AllReduce,
                kind: T::KIND,
                args: [op as u64, mode as u64, w0, w1],
                len: n,
            },
            Lengths::Equal,
            local,
        )?;
        if n == 0 {
            return Ok(());
        }
        // The peer kernel combines in the element type: not for the 16-bit floats, whose
        // butterfly runs in f32 and rounds once (the fold below).
        if mode == Mode::Reproducible && !T::KIND.is_half() {
            let words: Vec<[u64; 2]> = args.iter().map(|a| [a[2], a[3]]).collect();
            if let Some(done) = self.x.all_reduce_fused(send, recv, op, &words) {
                return done;
            }
        }
        match mode {
            Mode::Fast => self.x.all_reduce_native(send, recv, op),
            // Both in-place forms touch only `send` and `recv` (no allocation, no host read),
            // so their steps are queued back to back and waited for once. Two ranks take one
            // pair allreduce; three or more one all-to-all, a fold and an allgather.
            Mode::Reproducible if n % self.world() == 0 && self.folds_rows::<T>() => {
                self.x.batch(|| {
                    self.fold_rows(send, recv, op)?;
                    self.x.all_gather_in_place(recv, n / self.world())
                })
            }
            // The 16-bit floats never take the halving, whose pair calls would round at every
            // level: a length that does not split evenly is padded to equal rows.
            Mode::Reproducible if T::KIND.is_half() && self.folds_rows::<T>() => {
                let (b, world) = (self.backend(), self.world());
                let m = n.div_ceil(world);
                let padded = self.padded(send, m * world, op)?;
                let mut rows = b.alloc::<T>(m * world)?;
                self.x.batch(|| {
                    self.fold_rows(&padded, &mut rows, op)?;
                    self.x.all_gather_in_place(&mut rows, m)
                })?;
                b.copy_from(recv, &rows, 0)
            }
            Mode::Reproducible if self.world().is_power_of_two() && n % self.world() == 0 => {
                self.x.batch(|| self.halve_in_place(send, recv, op))
            }
            Mode::Reproducible => {
                let chunk = self.halve(send, op)?;
                if chunk.len() * self.world() == n {
                    // No padding and no idle ranks: the chunks fill `recv` exactly.
                    return self.x.all_gather(&chunk, recv);
                }
                let all = self.gather_chunks(chunk)?;
                self.backend().copy_from(recv, &all, 0)
            }
        }
    }

    /// Chunk `rank` (of `world` equal chunks) of the elementwise allreduce of `send`, whose
    /// length must be `world * recv.len()` on every rank.
    ///
    /// ```
    /// use wavekit_core::{Backend, ReduceOp};
    /// use wavekit_dist::{Comm, Mode, ThreadWorld, Transport};
    /// use wavekit_cpu::CpuBackend;
    /// let got = ThreadWorld::<CpuBackend>::run(2, |r| {
    ///     let comm = Comm::new(r);
    ///     let b = comm.backend();
    ///     let mine = b.upload(&[1u32, 2, 3, 4]).unwrap();
    ///     let mut out = b.alloc::<u32>(2).unwrap();
    ///     comm.reduce_scatter(&mine, &mut out, ReduceOp::Sum, Mode::Reproducible).unwrap();
    ///     b.download(&out).unwrap()
    /// });
    /// assert_eq!(got[0].as_ref().unwrap(), &[2, 4]);
    /// assert_eq!(got[1].as_ref().unwrap(), &[6, 8]);
    /// ```
    pub fn reduce_scatter<T: Element>(
        &self,
        send: &Buf<X, T>,
        recv: &mut Buf<X, T>,
        op: ReduceOp,
        mode: Mode,
    ) -> Result<()> {
        let (m, world) = (recv.len(), self.world());
        let local = op.check::<T>().and_then(|()| {
            check_len(
                "reduce-scatter input (world × output)",
                world * m,
                send.len(),
            )
        });
        self.handshake(
            Header {
                call: Call::ReduceScatter,
                kind: T::KIND,
                args: [op as u64, mode as u64, 0, 0],
                len: send.len(),
            },
            Lengths::Equal,
            local,
        )?;
        if m == 0 {
            return Ok(());
        }
        let b = self.backend();
        let mine = self.rank() * m;
        match mode {
            Mode::Fast => {
                let mut all = b.alloc::<T>(send.len())?;
                self.x.all_reduce_native(send, &mut all, op)?;
                b.copy_from(recv, &all, mine)
            }
            // Three or more ranks: the allreduce's all-to-all and fold, without its allgather.
            Mode::Reproducible if self.folds_rows::<T>() => {
                let mut rows = b.alloc::<T>(send.len())?;
                self.x.batch(|| {
                    self.fold_rows(send, &mut rows, op)?;
                    b.copy_from(recv, &rows, mine)
                })
            }
            // With a power-of-two world the halving already leaves chunk r on rank r.
            Mode::Reproducible if world.is_power_of_two() => {
                b.copy_from(recv, &self.halve(send, op)?, 0)
            }
            Mode::Reproducible => {
                let all = self.gather_chunks(self.halve(send, op)?)?;
                b.copy_from(recv, &all, mine)
            }
        }
    }

    /// Every rank's `send` concatenated in rank order (no arithmetic: always reproducible).
    ///
    /// ```
    /// use wavekit_core::Backend;
    /// use wavekit_dist::{Comm, ThreadWorld, Transport};
    /// use wavekit_cpu::CpuBackend;
    /// let got = ThreadWorld::<CpuBackend>::run(3, |r| {
    ///     let comm = Comm::new(r);
    ///     let b = comm.backend();
    ///     let mut out = b.alloc::<i64>(3).unwrap();
    ///     comm.all_gather(&b.upload(&[comm.rank() as i64]).unwrap(), &mut out).unwrap();
    ///     b.download(&out).unwrap()
    /// });
    /// assert!(got.into_iter().all(|g| g.unwrap() == [0, 1, 2]));
    /// ```
    pub fn all_gather<T: Element>(&self, send: &Buf<X, T>, recv: &mut Buf<X, T>) -> Result<()> {
        let n = send.len();
        let local = check_len(
            "allgather output (world × input)",
            n * self.world(),
            recv.len(),
        );
        self.handshake(
            Header {
                call: Call::AllGather,
                kind: T::KIND,
                args: [0; 4],
                len: n,
            },
            Lengths::Equal,
            local,
        )?;
        if n == 0 {
            return Ok(());
        }
        self.x.all_gather(send, recv)
    }

    /// The butterfly over ranks by recursive halving: rank r < P gets chunk r (of P chunks of
    /// `m = ceil(n / P)`, the input padded with the identity); ranks ≥ P get `m` elements of
    /// filler, which the allgather places past the result.
    fn halve<T: Element>(&self, send: &Buf<X, T>, op: ReduceOp) -> Result<Buf<X, T>> {
        let b = self.backend();
        let (r, world) = (self.rank(), self.world());
        let p = 1 << world.ilog2();
        let m = send.len().div_ceil(p);
        let padded = if p * m == send.len() {
            None
        } else {
            Some(self.padded(send, p * m, op)?)
        };
        let base = padded.as_ref().unwrap_or(send);
        if r >= p {
            let mut folded = b.alloc::<T>(base.len())?;
            self.x.pair_all_reduce(r - p, base, &mut folded, op)?;
            return b.alloc::<T>(m);
        }
        let mut cur: Option<Buf<X, T>> = None;
        if r + p < world {
            let mut folded = b.alloc::<T>(base.len())?;
            self.x.pair_all_reduce(r + p, base, &mut folded, op)?;
            cur = Some(folded);
        }
        let mut d = p / 2;
        while d >= 1 {
            let src = cur.as_ref().unwrap_or(base);
            let mut half = b.alloc::<T>(src.len() / 2)?;
            self.x.pair_reduce_scatter(r ^ d, src, &mut half, op)?;
            cur = Some(half);
            d /= 2;
        }
        match cur {
            Some(c) => Ok(c),
            None => b.copy_range(base, 0..m),
        }
    }

    /// The halving and the allgather for a power-of-two world whose equal chunks fill `recv`,
    /// with `recv` as the only scratch (no allocation, no copy). Step k's result (the level-k
    /// block of the array around this rank's chunk) is stored in the sibling of that block's
    /// place in `recv`, which the next step's result (inside the block's own place) does not
    /// overlap; the last step writes this rank's chunk where it belongs, and one in-place
    /// allgather fills in the others. The combines are `halve`'s, so are the bits.
    fn halve_in_place<T: Element>(
        &self,
        send: &Buf<X, T>,
        recv: &mut Buf<X, T>,
        op: ReduceOp,
    ) -> Result<()> {
        let (r, p, n) = (self.rank(), self.world(), send.len());
        let b = self.backend();
        match p {
            1 => return b.copy_from(recv, send, 0),
            // The butterfly over two ranks is op(x0, x1) per element, which a two-rank
            // allreduce computes whatever its algorithm: one call instead of two.
            2 => return self.x.pair_all_reduce(r ^ 1, send, recv, op),
            _ => {}
        }
        let levels = p.ilog2();
        let m = n / p;
        let mine = r * m..(r + 1) * m;
        let mut src: Option<Range<usize>> = None;
        for k in 1..=levels {
            let peer = r ^ (p >> k);
            let dst = if k == levels {
                mine.clone()
            } else {
                let size = n >> k;
                let sibling = (mine.start / size) ^ 1;
                sibling * size..(sibling + 1) * size
            };
            match src {
                None => {
                    let mut out = b.slice_mut(recv, dst.clone())?;
                    self.x.pair_reduce_scatter(peer, send, &mut out, op)?;
                }
                Some(s) => self
                    .x
                    .pair_reduce_scatter_within(peer, recv, s, dst.clone(), op)?,
            }
            src = Some(dst);
        }
        self.x.all_gather_in_place(recv, m)
    }

    /// A copy of `send` padded with the identity to `len` elements.
    fn padded<T: Element>(&self, send: &Buf<X, T>, len: usize, op: ReduceOp) -> Result<Buf<X, T>> {
        let b = self.backend();
        let tail = b.upload(&vec![T::identity(op); len - send.len()])?;
        b.concat(&[send, &tail])
    }

    /// Whether this world takes the all-to-all and the fold (3 ..= the backend's most rows);
    /// two ranks take one pair call instead, but for the 16-bit floats, whose butterfly runs in
    /// f32 and rounds once only in the fold. One rank has nothing to combine.
    fn folds_rows<T: Element>(&self) -> bool {
        let least = if T::KIND.is_half() { 2 } else { 3 };
        (least..=<X::Backend as RawSliceDevice>::MAX_REDUCE_ROWS).contains(&self.world())
    }

    /// The reduce-scatter half of the butterfly over ranks, for a length that splits evenly:
    /// one all-to-all brings chunk r of every rank to rank r, as the rows of `rows` (the send
    /// buffer's length) in rank order, and the fold writes their butterfly over row r (the
    /// bits of `halve`: the same pairs, combined in the same levels). The allreduce then
    /// spreads the chunks with one in-place allgather: two NCCL calls for any world instead
    /// of log2(R) + 1.
    fn fold_rows<T: Element>(
        &self,
        send: &Buf<X, T>,
        rows: &mut Buf<X, T>,
        op: ReduceOp,
    ) -> Result<()> {
        let world = self.world();
        let counts = vec![send.len() / world; world];
        self.x.all_to_all_v(send, &counts, rows, &counts)?;
        self.backend()
            .reduce_rows_in_place(rows, world, self.rank(), op)
    }

    /// Every rank's chunk of the halving, in rank order.
    fn gather_chunks<T: Element>(&self, chunk: Buf<X, T>) -> Result<Buf<X, T>> {
        let b = self.backend();
        let mut all = b.alloc::<T>(chunk.len() * self.world())?;
        self.x.all_gather(&chunk, &mut all)?;
        Ok(all)
    }
}
