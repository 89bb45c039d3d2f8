//! nccl_bench's sort rows: the distributed stable sort of 2^k u32 keys and of 2^k pairs, timed
//! and checked against rank 0's single-device sort of the whole array.

use super::{Rank, median};
use std::time::Instant;
use wavekit::dist::Layout;
use wavekit::element::splitmix;
use wavekit::{Backend, Sort, SortOrder};

/// Key i of the logical array: random over the whole u32 range.
fn key(i: usize) -> u32 {
    (splitmix(i as u64 ^ 0x50a7) >> 32) as u32
}

fn keys(range: std::ops::Range<usize>) -> Vec<u32> {
    super::fill_with(range, key)
}

/// An order-sensitive hash of a run of u32 (FNV-1a over the words).
fn hash(words: &[u32]) -> u64 {
    words.iter().fold(0xcbf2_9ce4_8422_2325, |h, &w| {
        (h ^ u64::from(w)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Times the keys sort and the pairs sort of 2^k elements (`reps` calls after one warm-up, the
/// host time from the call to every rank holding its part), then checks both.
pub fn run(comm: &Rank, k: u32, reps: usize, say: &impl Fn(String)) -> wavekit::Result<()> {
    let (rank, world) = (comm.rank(), comm.world());
    let n = 1usize << k;
    let layout = Layout::even(n, world);
    let b = comm.backend();
    let mine = keys(layout.range(rank));
    let shard = b.upload(&mine)?;
    let index: Vec<u32> = layout.range(rank).map(|i| i as u32).collect();
    let values = b.upload(&index)?;
    drop((mine, index));
    let order = SortOrder::ASCENDING;
    let mut t_keys = Vec::new();
    for i in 0..=reps {
        let t = Instant::now();
        let s = comm.sort_keys(&shard, order)?;
        if i > 0 {
            t_keys.push(t.elapsed());
        }
        drop(s);
    }
    let mut t_pairs = Vec::new();
    for i in 0..=reps {
        let t = Instant::now();
        let s = comm.sort_pairs(&shard, &values, order)?;
        if i > 0 {
            t_pairs.push(t.elapsed());
        }
        drop(s);
    }
    // One more of each, kept and checked: [offset, len, keys hash, values hash] per rank.
    let s = comm.sort_keys(&shard, order)?;
    let (p, v) = comm.sort_pairs(&shard, &values, order)?;
    let (got_k, got_pk, got_pv) = (b.download(&s.keys)?, b.download(&p.keys)?, b.download(&v)?);
    let same_split = (s.offset, s.len) == (p.offset, p.len);
    let mut pk = got_pk.clone();
    pk.extend(&got_pv);
    let part = [
        s.offset,
        s.len as u64,
        hash(&got_k),
        hash(&pk) ^ u64::from(!same_split),
    ];
    drop((s, p, v, shard, values));
    let send = b.upload(&part)?;
    let mut all = b.alloc::<u64>(4 * world)?;
    comm.all_gather(&send, &mut all)?;
    let all = b.download(&all)?;
    let (kms, pms) = (median(t_keys) * 1e3, median(t_pairs) * 1e3);
    let lens: Vec<u64> = all.chunks(4).map(|w| w[1]).collect();
    say(format!(
        "sort_log2={k} world={world} keys_median_ms={kms:.3} keys_per_s={:.3e} \
         pairs_median_ms={pms:.3} pairs_per_s={:.3e} part_lens={lens:?}",
        n as f64 / kms * 1e3,
        n as f64 / pms * 1e3
    ));
    if rank == 0 {
        // The single-device stable sorts of the whole array, on this rank's GPU.
        let whole = b.upload(&keys(0..n))?;
        let idx: Vec<u32> = (0..n as u32).collect();
        let whole_v = b.upload(&idx)?;
        drop(idx);
        let single = b.download(&b.sort_keys(&whole, order)?)?;
        let (sk, sv) = b.sort_pairs(&whole, &whole_v, order)?;
        let (sk, sv) = (b.download(&sk)?, b.download(&sv)?);
        let ranges: Vec<_> = all
            .chunks(4)
            .map(|w| w[0] as usize..(w[0] + w[1]) as usize)
            .collect();
        let keys_equal = all
            .chunks(4)
            .zip(&ranges)
            .all(|(w, r)| w[2] == hash(&single[r.clone()]));
        let pairs_equal = all.chunks(4).zip(&ranges).all(|(w, r)| {
            let mut pairs = sk[r.clone()].to_vec();
            pairs.extend(&sv[r.clone()]);
            w[3] == hash(&pairs)
        });
        let covered = lens.iter().sum::<u64>() == n as u64;
        // The single-device results themselves: sorted, and the pairs' keys the keys' sort.
        let single_sorted = single.windows(2).all(|p| p[0] <= p[1]);
        let pairs_keys_agree = sk == single;
        say(format!(
            "sort_log2={k} world={world} sort_equal_single_device={} keys_equal={keys_equal} \
             pairs_equal={pairs_equal} covered={covered} single_sorted={single_sorted} \
             single_pairs_keys_agree={pairs_keys_agree}",
            keys_equal && pairs_equal && covered
        ));
    }
    Ok(())
}
