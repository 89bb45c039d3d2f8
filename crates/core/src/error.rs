//! One error type for every fallible call; variants carry what a caller needs to act on.

use thiserror::Error;

pub type Result<T, E = WavekitError> = std::result::Result<T, E>;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum WavekitError {
    #[error("warp width {0} is not supported: use 32 or 64")]
    UnsupportedWarpWidth(u32),
    #[error(
        "sub-width {width} is invalid: it must be a power of two from 1 to the warp width {warp}"
    )]
    InvalidSubWidth { width: u32, warp: u32 },
    #[error(
        "tile size {tile} is invalid: it must be a power of two from 2 to the warp width {warp}"
    )]
    InvalidTileSize { tile: u32, warp: u32 },
    #[error("lane {lane} is outside a warp of {width} lanes")]
    LaneOutOfRange { lane: u32, width: u32 },
    #[error("mask {mask:#x} names lanes beyond the warp width {width}")]
    MaskBeyondWidth { mask: u64, width: u32 },
    #[error("mask was built for width {mask_width} but the backend's warp is {warp} lanes")]
    MaskWidthMismatch { mask_width: u32, warp: u32 },
    #[error("{what}: expected length {expected}, got {got}")]
    LengthMismatch {
        what: &'static str,
        expected: usize,
        got: usize,
    },
    #[error("{what} must not be empty")]
    EmptyInput { what: &'static str },
    #[error("shuffle argument {arg} is out of range: it must be below {limit}")]
    ShuffleArgOutOfRange { arg: u32, limit: u32 },
    #[error("block size {0} is invalid: it must be a multiple of 32 from 32 to 1024")]
    InvalidBlockSize(u32),
    #[error("segment size must be at least 1")]
    ZeroSegmentSize,
    #[error("vector size {0} is invalid: it must be a power of two from 1 to 32")]
    InvalidVectorSize(u32),
    #[error("offsets are invalid at index {index}: {reason}")]
    InvalidOffsets { index: usize, reason: String },
    #[error("column index {col} at nonzero {index} is out of range for {cols} columns")]
    ColumnOutOfRange { index: usize, col: u64, cols: usize },
    #[error("{what} index {value} is out of range (limit {limit})")]
    IndexOutOfRange {
        what: &'static str,
        value: u64,
        limit: u64,
    },
    #[error("tile {tile}'s status is invalid: {reason}")]
    InvalidStatus { tile: usize, reason: &'static str },
    #[error("operation {op} is not defined for element type {elem}")]
    UnsupportedOp {
        op: &'static str,
        elem: &'static str,
    },
    #[error("{what} of {value} exceeds the limit {limit} of this backend")]
    TooLarge {
        what: &'static str,
        value: u64,
        limit: u64,
    },
    #[error("histogram needs at least one bin")]
    ZeroBins,
    #[error("backend {0} is not compiled in: rebuild with `--features {0}`")]
    BackendNotCompiled(&'static str),
    #[error("no {backend} device is available: {reason}")]
    NoDevice {
        backend: &'static str,
        reason: String,
    },
    #[error("{backend} call {call} failed: {message}")]
    Device {
        backend: &'static str,
        call: String,
        message: String,
    },
    #[error("buffer belongs to another backend or device")]
    ForeignBuffer,
}
