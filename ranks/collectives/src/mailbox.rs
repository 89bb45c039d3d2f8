//! Small exchanges between ranks (collective headers, tile partials, counts) through one pair
//! of device buffers that the communicator keeps: on a GPU, allocating and freeing two buffers
//! on every call cost more than the exchange itself.

use crate::{Buf, Comm, Transport};
use std::sync::PoisonError;
use wavekit_core::element::{as_bytes, as_bytes_mut};
use wavekit_core::{Backend, DeviceBuffer, Element, Result, WavekitError};

/// The kept buffers: `send` holds up to `cap` words, `recv` `cap × world`.
pub(crate) struct Mailbox<X: Transport> {
    send: Option<Buf<X, u64>>,
    recv: Option<Buf<X, u64>>,
}

impl<X: Transport> Default for Mailbox<X> {
    fn default() -> Self {
        Mailbox {
            send: None,
            recv: None,
        }
    }
}

impl<X: Transport> Comm<X> {
    /// Every rank's `mine` in rank order (one allgather); `mine` has the same length on every
    /// rank.
    pub(crate) fn exchange_words(&self, mine: &[u64]) -> Result<Vec<u64>> {
        if let Some(all) = self.x.exchange_host(mine) {
            return all;
        }
        let (b, world, len) = (self.backend(), self.world(), mine.len());
        let mut mailbox = self.mailbox.lock().unwrap_or_else(PoisonError::into_inner);
        let Mailbox { send, recv } = &mut *mailbox;
        if send.as_ref().is_none_or(|s| s.len() < len) {
            let cap = len.next_power_of_two().max(64);
            *send = Some(b.alloc::<u64>(cap)?);
            *recv = Some(b.alloc::<u64>(cap * world)?);
        }
        let (Some(send), Some(recv)) = (send.as_mut(), recv.as_mut()) else {
            unreachable!("both are allocated above");
        };
        let mut part = b.slice_mut(send, 0..len)?;
        b.write(&mut part, mine)?;
        drop(part);
        let part = b.slice(send, 0..len)?;
        let mut out = b.slice_mut(recv, 0..len * world)?;
        self.x.all_gather(&part, &mut out)?;
        b.download(&out)
    }

    /// Every rank's `mine`, in rank order, where rank q contributes `counts[q]` elements
    /// (known to every rank): one exchange of `max(counts)` elements' worth of words a rank.
    pub(crate) fn gather_counted<T: Element>(
        &self,
        mine: &[T],
        counts: &[usize],
    ) -> Result<Vec<Vec<T>>> {
        if mine.len() != counts[self.rank()] {
            return Err(WavekitError::LengthMismatch {
                what: "this rank's part of a gather",
                expected: counts[self.rank()],
                got: mine.len(),
            });
        }
        let cap = counts.iter().copied().max().unwrap_or(0);
        if cap == 0 {
            return Ok(vec![vec![]; counts.len()]);
        }
        let size = size_of::<T>();
        let words = (cap * size).div_ceil(size_of::<u64>());
        let mut packed = vec![0u64; words];
        let bytes = as_bytes(mine);
        as_bytes_mut(&mut packed)[..bytes.len()].copy_from_slice(bytes);
        let all = self.exchange_words(&packed)?;
        Ok(all
            .chunks(words)
            .zip(counts)
            .map(|(c, &n)| {
                let mut v = vec![T::default(); n];
                as_bytes_mut(&mut v).copy_from_slice(&as_bytes(c)[..n * size]);
                v
            })
            .collect())
    }
}
