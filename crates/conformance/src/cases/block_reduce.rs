//! block_reduce: one group reduce per block, at every block size from 32 to 1024, bit for bit;
//! block sizes refused.

use crate::Scale;
use crate::check::{expect_err, ok, same_elems};
use crate::inputs::{pick, value_sets};
use crate::reference;
use wavekit_core::RawBackend;
use wavekit_core::api::Collectives;
use wavekit_core::element::Element;
use wavekit_core::error::WavekitError as E;
use wavekit_core::op::ReduceOp;

fn block_reduce_typed<T: Element, B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    let blocks = pick(
        scale,
        &[32u32, 64, 96, 224, 512, 544, 992, 1024],
        &[32, 96, 1024],
    );
    for op in ReduceOp::ops_for(T::KIND) {
        for &block in &blocks {
            let bl = block as usize;
            for n in [1, bl - 1, bl, 2 * bl + 37] {
                for (vname, vals) in value_sets::<T>(n, (block as u64) << 32 | n as u64, n <= bl) {
                    let ctx = format!("{op:?} {} block={block} n={n} {vname}", T::KIND.name());
                    let buf = ok(&ctx, b.upload(&vals))?;
                    let got = ok(&ctx, b.block_reduce(&buf, block, op))?;
                    same_elems(
                        &ctx,
                        "block",
                        &reference::block_reduce(&vals, block, op),
                        &got,
                    )?;
                }
            }
        }
    }
    Ok(())
}

pub fn block_reduce<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(block_reduce_typed(b, scale));
    each_half!(block_reduce_typed(b, scale));
    Ok(())
}

pub fn err_block_size<B: RawBackend>(b: &B, _scale: Scale) -> Result<(), String> {
    let buf = ok("upload", b.upload(&vec![1u32; 3000]))?;
    for block in [0, 1, 16, 48, 100, 1056, 2048, u32::MAX] {
        let ctx = format!("block={block}");
        expect_err!(ctx, b.block_reduce(&buf, block, ReduceOp::Sum), E::InvalidBlockSize(x) if *x == block)?;
    }
    Ok(())
}
