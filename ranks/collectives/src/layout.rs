//! Where each rank's shard lies in the logical array, and how shards meet the canonical tiles.
//!
//! The single-device order (docs/SEMANTICS.md, device_reduce and device_scan) is defined on
//! tiles of the whole array, so a tile that straddles two or more shards must be computed as
//! one. Each rank sends the elements it holds of such *boundary tiles* (at most two tiles'
//! worth) to every rank; then every rank can rebuild any boundary tile it touches. A tile is
//! *owned* by the rank that holds its first element: that rank contributes its partial or
//! aggregate.

use std::ops::Range;

/// The shards of one logical array: rank r holds elements `offsets[r] .. offsets[r + 1]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    offsets: Vec<usize>,
}

impl Layout {
    /// The layout of shards of these lengths, rank 0 first.
    pub fn from_lens(lens: &[usize]) -> Layout {
        let mut offsets = Vec::with_capacity(lens.len() + 1);
        offsets.push(0);
        for &l in lens {
            offsets.push(offsets.last().copied().unwrap_or(0) + l);
        }
        Layout { offsets }
    }

    /// `n` elements split as evenly as possible over `world` ranks (the first ranks get one
    /// more): a convenient way to shard an array.
    pub fn even(n: usize, world: usize) -> Layout {
        let lens: Vec<usize> = (0..world)
            .map(|r| n / world + usize::from(r < n % world))
            .collect();
        Layout::from_lens(&lens)
    }

    /// Ranks the array is split over.
    pub fn world(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Elements in the logical array.
    pub fn total(&self) -> usize {
        *self.offsets.last().unwrap_or(&0)
    }

    /// The global indices rank `r` holds.
    pub fn range(&self, r: usize) -> Range<usize> {
        self.offsets[r]..self.offsets[r + 1]
    }

    /// Tiles of `tile` elements in the whole array.
    pub fn tiles(&self, tile: usize) -> usize {
        self.total().div_ceil(tile)
    }

    /// The global indices of tile `t` (the last may be short).
    pub fn tile_range(&self, t: usize, tile: usize) -> Range<usize> {
        t * tile..((t + 1) * tile).min(self.total())
    }

    /// Tiles holding at least one element of rank `r`'s shard.
    pub fn touching(&self, r: usize, tile: usize) -> Range<usize> {
        let s = self.range(r);
        if s.is_empty() {
            return 0..0;
        }
        s.start / tile..(s.end - 1) / tile + 1
    }

    /// Tiles whose first element rank `r` holds.
    pub fn owned(&self, r: usize, tile: usize) -> Range<usize> {
        let s = self.range(r);
        s.start.div_ceil(tile)..s.end.div_ceil(tile)
    }

    /// Whether tile `t` lies entirely within rank `r`'s shard.
    fn within(&self, r: usize, t: usize, tile: usize) -> bool {
        let (s, tr) = (self.range(r), self.tile_range(t, tile));
        s.start <= tr.start && tr.end <= s.end
    }

    /// The parts of rank `r`'s shard that lie in boundary tiles, in index order (at most two).
    pub fn edges(&self, r: usize, tile: usize) -> Vec<Range<usize>> {
        let s = self.range(r);
        let touching = self.touching(r, tile);
        let mut out: Vec<Range<usize>> = Vec::new();
        for t in [touching.start, touching.end.saturating_sub(1)] {
            if touching.is_empty() || self.within(r, t, tile) {
                continue;
            }
            let tr = self.tile_range(t, tile);
            let part = s.start.max(tr.start)..s.end.min(tr.end);
            if out.last() != Some(&part) {
                out.push(part);
            }
        }
        out
    }

    /// The largest chunk `tile^L` (L ≥ 0) that every shard boundary inside the array is a
    /// multiple of, stopping once one chunk covers the array. With L ≥ 1 no tile straddles
    /// shards, and each rank can reduce whole chunks of its own.
    pub fn aligned_chunk(&self, tile: usize) -> usize {
        let n = self.total();
        let interior: Vec<usize> = self.offsets[1..self.world()]
            .iter()
            .copied()
            .filter(|&o| o > 0 && o < n)
            .collect();
        let mut chunk = 1usize;
        while chunk < n {
            match chunk.checked_mul(tile) {
                Some(next) if interior.iter().all(|o| o % next == 0) => chunk = next,
                _ => break,
            }
        }
        chunk
    }

    /// Whether any tile straddles two shards (if not, no rank needs another's elements).
    pub fn has_boundary_tiles(&self, tile: usize) -> bool {
        (0..self.world()).any(|r| !self.edges(r, tile).is_empty())
    }
}

/// Every rank's boundary-tile elements, gathered: enough to rebuild any boundary tile.
pub(crate) struct Edges<'a, T> {
    pub layout: &'a Layout,
    pub tile: usize,
    /// Rank q's edge elements, in the order of `layout.edges(q, tile)`.
    pub per_rank: Vec<Vec<T>>,
}

impl<T: Copy> Edges<'_, T> {
    /// The elements of tile `t`: from `local` (this rank's shard) if the tile lies within it,
    /// else rebuilt from the pieces of every rank that holds part of it.
    pub fn tile_data(&self, t: usize, rank: usize, local: &[T]) -> Vec<T> {
        let tr = self.layout.tile_range(t, self.tile);
        let mine = self.layout.range(rank);
        if mine.start <= tr.start && tr.end <= mine.end {
            return local[tr.start - mine.start..tr.end - mine.start].to_vec();
        }
        self.rebuild(t)
    }

    /// Boundary tile `t`, rebuilt from the pieces of every rank that holds part of it.
    pub fn rebuild(&self, t: usize) -> Vec<T> {
        let tr = self.layout.tile_range(t, self.tile);
        let mut out = Vec::with_capacity(tr.len());
        for q in 0..self.layout.world() {
            let mut at = 0;
            for e in self.layout.edges(q, self.tile) {
                let lo = e.start.max(tr.start);
                let hi = e.end.min(tr.end);
                if lo < hi {
                    out.extend_from_slice(&self.per_rank[q][at + lo - e.start..at + hi - e.start]);
                }
                at += e.len();
            }
        }
        debug_assert_eq!(
            out.len(),
            tr.len(),
            "every boundary tile is covered by edges"
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_cover_exactly_the_straddling_tiles() {
        // Tiles of 4: [0,4) [4,8) [8,12) [12,14). Shards: 0..5, 5..6, 6..12, 12..14.
        let l = Layout::from_lens(&[5, 1, 6, 2]);
        assert_eq!(l.edges(0, 4), vec![4..5]);
        assert_eq!(l.edges(1, 4), vec![5..6]);
        assert_eq!(l.edges(2, 4), vec![6..8]);
        assert!(l.edges(3, 4).is_empty());
        assert_eq!(l.owned(0, 4), 0..2);
        assert_eq!(l.owned(1, 4), 2..2);
        assert_eq!(l.owned(2, 4), 2..3);
        assert_eq!(l.owned(3, 4), 3..4);
        assert!(l.has_boundary_tiles(4));
        assert!(!Layout::from_lens(&[4, 8, 2]).has_boundary_tiles(4));
        assert_eq!(Layout::from_lens(&[4, 8, 2]).aligned_chunk(4), 4);
        assert_eq!(Layout::from_lens(&[16, 0, 3]).aligned_chunk(4), 16);
        assert_eq!(Layout::from_lens(&[0, 19, 0]).aligned_chunk(4), 64);
        assert_eq!(l.aligned_chunk(4), 1);
    }

    #[test]
    fn a_rebuilt_tile_is_the_tile() {
        let l = Layout::from_lens(&[3, 0, 2, 7]);
        let all: Vec<u32> = (0..12).collect();
        let per_rank = (0..4)
            .map(|q| {
                l.edges(q, 4)
                    .into_iter()
                    .flat_map(|e| all[e].to_vec())
                    .collect()
            })
            .collect();
        let edges = Edges {
            layout: &l,
            tile: 4,
            per_rank,
        };
        for t in 0..3 {
            for r in 0..4 {
                if l.touching(r, 4).contains(&t) {
                    let local = &all[l.range(r)];
                    assert_eq!(edges.tile_data(t, r, local), all[t * 4..t * 4 + 4]);
                }
            }
        }
    }
}
