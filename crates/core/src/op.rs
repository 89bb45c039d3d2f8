//! The reduction operators, [`ReduceOp`]: vocabulary ([`vocab`](crate::vocab)), re-exported
//! here where it was (`wavekit_core::op::ReduceOp`).

pub use crate::vocab::ReduceOp;
