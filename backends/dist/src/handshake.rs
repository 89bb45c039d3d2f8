//! The handshake that opens every collective: one allgather of a small header, so that ranks
//! called with different collectives, element types, ops or lengths, or one rank whose own
//! arguments were invalid, all fail together before any data moves (nothing half-applied, no
//! rank left waiting for a message that will never come).

use crate::layout::Layout;
use crate::{Comm, Transport};
use wavekit_core::{ElemKind, Result, WavekitError};

/// Which collective a rank is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub(crate) enum Call {
    Reduce = 1,
    Scan,
    AllReduce,
    ReduceScatter,
    AllGather,
    CountIf,
    Compact,
    Histogram,
}

/// Whether every rank's length must be the same (equal-length buffers) or may differ (shards).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lengths {
    Equal,
    Sharded,
}

/// What a rank was called with.
pub(crate) struct Header {
    pub call: Call,
    pub kind: ElemKind,
    /// Collective-specific arguments that must agree (op, predicate, bin count, mode).
    pub args: [u64; 4],
    pub len: usize,
}

const WORDS: usize = 8;

impl Header {
    fn words(&self, ok: bool) -> [u64; WORDS] {
        let [a, b, c, d] = self.args;
        [
            self.call as u64,
            self.kind as u64,
            a,
            b,
            c,
            d,
            self.len as u64,
            u64::from(ok),
        ]
    }
}

impl<X: Transport> Comm<X> {
    /// Exchanges headers. `local` is this rank's own check of its arguments: if it failed, this
    /// rank returns that error after the exchange and every other rank a `RankMismatch`.
    /// Returns the layout of the ranks' lengths.
    pub(crate) fn handshake(
        &self,
        h: Header,
        lengths: Lengths,
        local: Result<()>,
    ) -> Result<Layout> {
        let all = self.exchange_words(&h.words(local.is_ok()))?;
        local?;
        let ranks: Vec<&[u64]> = all.chunks(WORDS).collect();
        let mine = &ranks[self.rank()];
        let differ = |what: &'static str, word: usize| -> Result<()> {
            match ranks.iter().position(|w| w[word] != mine[word]) {
                Some(q) => Err(WavekitError::RankMismatch {
                    what,
                    detail: format!(
                        "rank {} has {}, rank {q} has {}",
                        self.rank(),
                        mine[word],
                        ranks[q][word]
                    ),
                }),
                None => Ok(()),
            }
        };
        if let Some(q) = ranks.iter().position(|w| w[7] == 0) {
            return Err(WavekitError::RankMismatch {
                what: "arguments",
                detail: format!("rank {q} rejected its own arguments"),
            });
        }
        differ("collective", 0)?;
        if let Some(q) = ranks.iter().position(|w| w[1] != mine[1]) {
            return Err(WavekitError::RankMismatch {
                what: "element type",
                detail: format!(
                    "rank {} has {}, rank {q} has {}",
                    self.rank(),
                    h.kind.name(),
                    kind_name(ranks[q][1])
                ),
            });
        }
        for word in 2..6 {
            differ("collective arguments (op, predicate, bins or mode)", word)?;
        }
        if lengths == Lengths::Equal {
            differ("buffer length", 6)?;
        }
        let lens: Vec<usize> = ranks.iter().map(|w| w[6] as usize).collect();
        Ok(Layout::from_lens(&lens))
    }
}

fn kind_name(code: u64) -> &'static str {
    ElemKind::ALL
        .iter()
        .find(|k| **k as u64 == code)
        .map_or("an unknown type", |k| k.name())
}
