//! Which element an arg reduce selects, [`ArgOp`]: vocabulary ([`vocab`](crate::vocab)),
//! re-exported here where it was (`wavekit_core::arg_op::ArgOp`).

pub use crate::vocab::ArgOp;
