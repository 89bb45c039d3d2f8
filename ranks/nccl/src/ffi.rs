//! NCCL's C types (nccl.h; RCCL uses the same), and wavekit's types mapped onto them.

use std::ffi::{c_int, c_void};
use wavekit_core::{ElemKind, ReduceOp, Result, WavekitError};

/// `ncclComm_t`.
pub(crate) type Comm = *mut c_void;
/// `ncclDataType_t`.
pub(crate) type DataType = c_int;
/// `ncclRedOp_t`.
pub(crate) type RedOp = c_int;

/// `NCCL_UNIQUE_ID_BYTES`.
pub const UNIQUE_ID_BYTES: usize = 128;

/// `ncclUniqueId`: made by one rank, handed to every other rank before they join.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UniqueId {
    /// The id's bytes, opaque.
    pub internal: [u8; UNIQUE_ID_BYTES],
}

/// `NCCL_SPLIT_NOCOLOR`: this rank joins no communicator in a split.
pub(crate) const SPLIT_NOCOLOR: c_int = -1;

pub(crate) fn data_type(kind: ElemKind) -> DataType {
    // ncclInt32 = 2, ncclUint32 = 3, ncclInt64 = 4, ncclUint64 = 5, ncclFloat16 = 6,
    // ncclFloat32 = 7, ncclFloat64 = 8, ncclBfloat16 = 9. (No distributed collective takes
    // the 16-bit floats yet, the handshake refuses them; moving their bytes is exact.)
    match kind {
        ElemKind::I32 => 2,
        ElemKind::U32 => 3,
        ElemKind::I64 => 4,
        ElemKind::U64 => 5,
        ElemKind::F16 => 6,
        ElemKind::F32 => 7,
        ElemKind::F64 => 8,
        ElemKind::BF16 => 9,
    }
}

/// NCCL has sum, product, min and max; the bitwise ops are refused with a typed error.
pub(crate) fn red_op(op: ReduceOp, kind: ElemKind) -> Result<RedOp> {
    match op {
        ReduceOp::Sum => Ok(0),
        ReduceOp::Product => Ok(1),
        ReduceOp::Max => Ok(2),
        ReduceOp::Min => Ok(3),
        ReduceOp::BitAnd | ReduceOp::BitOr | ReduceOp::BitXor => Err(WavekitError::UnsupportedOp {
            op: op.name(),
            elem: kind.name(),
        }),
    }
}

/// Just-in-time proof that a raw communicator may move between threads: NCCL allows a
/// communicator to be used from any thread, one call at a time, which `&mut`/ownership gives.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SendComm(pub Comm);

// SAFETY: see the type's doc: NCCL communicators are not tied to the creating thread.
unsafe impl Send for SendComm {}
// SAFETY: shared only to call ncclCommAbort, which NCCL allows from another thread.
unsafe impl Sync for SendComm {}
