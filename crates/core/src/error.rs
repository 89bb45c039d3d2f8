//! One error type for every fallible call; variants carry what a caller needs to act on.

use thiserror::Error;

/// The result of every fallible wavekit call.
pub type Result<T, E = WavekitError> = std::result::Result<T, E>;

/// Why a wavekit call failed. A call that returns one of these changed nothing its caller can
/// see (no output written, no counter moved): every argument is checked before any work.
/// New variants may be added, so a `match` needs a wildcard arm.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum WavekitError {
    /// A warp width other than 32 or 64 lanes, from `WarpWidth::new` or a device.
    #[error("warp width {0} is not supported: use 32 or 64")]
    UnsupportedWarpWidth(u32),
    /// A shuffle or warp-collective sub-width that is not a power of two from 1 to the warp.
    #[error(
        "sub-width {width} is invalid: it must be a power of two from 1 to the warp width {warp}"
    )]
    InvalidSubWidth {
        /// The sub-width asked for.
        width: u32,
        /// Lanes in the backend's warp.
        warp: u32,
    },
    /// A cooperative-group tile size that is not a power of two from 2 to the warp.
    #[error(
        "tile size {tile} is invalid: it must be a power of two from 2 to the warp width {warp}"
    )]
    InvalidTileSize {
        /// The tile size asked for.
        tile: u32,
        /// Lanes in the backend's warp.
        warp: u32,
    },
    /// A lane number at or past the warp width (building a `LaneMask`).
    #[error("lane {lane} is outside a warp of {width} lanes")]
    LaneOutOfRange {
        /// The lane asked for.
        lane: u32,
        /// Lanes in the warp.
        width: u32,
    },
    /// Mask bits set for lanes that a warp of this width does not have.
    #[error("mask {mask:#x} names lanes beyond the warp width {width}")]
    MaskBeyondWidth {
        /// The bits given.
        mask: u64,
        /// Lanes in the warp.
        width: u32,
    },
    /// A mask built for one warp width passed to a backend of the other.
    #[error("mask was built for width {mask_width} but the backend's warp is {warp} lanes")]
    MaskWidthMismatch {
        /// The width the mask was built for.
        mask_width: u32,
        /// Lanes in the backend's warp.
        warp: u32,
    },
    /// A buffer or slice whose length does not match what the call needs (`what` names it).
    #[error("{what}: expected length {expected}, got {got}")]
    LengthMismatch {
        /// The argument whose length is wrong.
        what: &'static str,
        /// The length the call needs.
        expected: usize,
        /// The length given.
        got: usize,
    },
    /// An input that must hold at least one element was empty.
    #[error("{what} must not be empty")]
    EmptyInput {
        /// The argument that was empty.
        what: &'static str,
    },
    /// A block size that is not a multiple of 32 from 32 to 1024.
    #[error("block size {0} is invalid: it must be a multiple of 32 from 32 to 1024")]
    InvalidBlockSize(u32),
    /// Fixed segments of zero elements.
    #[error("segment size must be at least 1")]
    ZeroSegmentSize,
    /// Lanes per segment or row that are not a power of two from 1 to 32.
    #[error("vector size {0} is invalid: it must be a power of two from 1 to 32")]
    InvalidVectorSize(u32),
    /// Segment or CSR row offsets that do not start at 0, decrease, or do not end at the
    /// length; `index` is the first offending offset.
    #[error("offsets are invalid at index {index}: {reason}")]
    InvalidOffsets {
        /// The position of the first offending offset.
        index: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// A CSR column index at or past the matrix's column count.
    #[error("column index {col} at nonzero {index} is out of range for {cols} columns")]
    ColumnOutOfRange {
        /// The position of the nonzero among the column indices.
        index: usize,
        /// Its column index.
        col: u64,
        /// Columns of the matrix.
        cols: usize,
    },
    /// An index read from the input (an `atomic_agg_inc` slot, a CSR column met by a kernel)
    /// at or past `limit`.
    #[error("{what} index {value} is out of range (limit {limit})")]
    IndexOutOfRange {
        /// What the index addresses.
        what: &'static str,
        /// The index read.
        value: u64,
        /// The first index not accepted.
        limit: u64,
    },
    /// A look-back test status that the scan's protocol cannot produce.
    #[error("tile {tile}'s status is invalid: {reason}")]
    InvalidStatus {
        /// The tile whose status is wrong.
        tile: usize,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A reduction op the element type does not have (bitwise ops on floats).
    #[error("operation {op} is not defined for element type {elem}")]
    UnsupportedOp {
        /// The op's name.
        op: &'static str,
        /// The element type's name.
        elem: &'static str,
    },
    /// An element type a collective does not take (yet): the 16-bit floats outside the
    /// collectives docs/COLLECTIVES.md lists for them.
    #[error(
        "{collective} does not take element type {elem} (docs/COLLECTIVES.md lists the collectives that do)"
    )]
    UnsupportedType {
        /// The collective's name.
        collective: &'static str,
        /// The element type's name.
        elem: &'static str,
    },
    /// A count past what the kernels' index types can address (`what` names it).
    #[error("{what} of {value} exceeds the limit {limit} of this backend")]
    TooLarge {
        /// What was counted.
        what: &'static str,
        /// The count asked for.
        value: u64,
        /// The largest count accepted.
        limit: u64,
    },
    /// A histogram of zero bins.
    #[error("histogram needs at least one bin")]
    ZeroBins,

    /// A sort's bit range is empty or reaches past the key.
    #[error(
        "bit range {begin}..{end} is invalid for {bits}-bit keys: it needs begin < end <= {bits}"
    )]
    InvalidBitRange {
        /// The first key bit compared.
        begin: u32,
        /// One past the last key bit compared.
        end: u32,
        /// Bits in the key type.
        bits: u32,
    },

    /// A top-k asked for no elements or for more than the input holds.
    #[error("top-k of {k} elements is invalid for an input of {n}: it needs 1 <= k <= n")]
    InvalidK {
        /// Elements asked for.
        k: usize,
        /// Elements in the input.
        n: usize,
    },
    /// A backend named at run time that this build does not include.
    #[error("backend {0} is not compiled in: rebuild with `--features {0}`")]
    BackendNotCompiled(&'static str),
    /// The vendor runtime loaded but found no usable device.
    #[error("no {backend} device is available: {reason}")]
    NoDevice {
        /// The backend's name (`cuda`, `hip`, ...).
        backend: &'static str,
        /// Why no device could be used, as the runtime tells it.
        reason: String,
    },
    /// A vendor runtime or kernel call failed for a reason other than the ones above
    /// (`message` is the runtime's own).
    #[error("{backend} call {call} failed: {message}")]
    Device {
        /// The backend's name.
        backend: &'static str,
        /// The runtime call or kernel that failed.
        call: String,
        /// The runtime's message.
        message: String,
    },
    /// A buffer made by another backend instance or device.
    #[error("buffer belongs to another backend or device")]
    ForeignBuffer,
    /// Memory for `bytes` bytes could not be had, on the host or a device: the allocator
    /// refused it, or (host memory) it is past `host::HOST_ALLOC_LIMIT`. `bytes` is
    /// `u64::MAX` when the size itself overflows.
    #[error("out of memory: {bytes} bytes could not be allocated")]
    OutOfMemory {
        /// The size asked for.
        bytes: u64,
    },
    /// A distributed collective whose ranks disagree on its arguments (element type, op,
    /// buffer length, bin count): every rank gets this error and nothing is computed.
    #[error("ranks disagree on {what}: {detail}")]
    RankMismatch {
        /// The argument the ranks disagree on.
        what: &'static str,
        /// What each side holds.
        detail: String,
    },
    /// A rank that never joined a distributed collective, or left it: the other ranks stop
    /// waiting (after the communicator's timeout) and get this error instead of hanging.
    /// `peer` is the rank waited for, when the transport can tell (NCCL cannot).
    #[error("a rank did not take part in the collective (waited for: {peer:?}): {reason}")]
    RankLost {
        /// The rank waited for, when known.
        peer: Option<usize>,
        /// What the transport reported.
        reason: String,
    },
    /// A range `start..end` that does not lie inside a buffer of `len` elements (a slice or
    /// view of it).
    #[error("range {start}..{end} is not inside a buffer of {len} elements")]
    InvalidRange {
        /// The range's first element.
        start: usize,
        /// One past the range's last element.
        end: usize,
        /// The buffer's length.
        len: usize,
    },
    /// A device address handed to wavekit that is not aligned for the element type.
    #[error("address {addr:#x} is not aligned to the element's {align} bytes")]
    Misaligned {
        /// The address given.
        addr: u64,
        /// The alignment the element type needs, in bytes.
        align: usize,
    },
    /// A caller's stream or context that wavekit's kernels cannot run on (`reason` says why,
    /// e.g. a CUDA context that is not the device's primary one).
    #[error("the caller's stream cannot be used: {reason}")]
    UnsupportedStream {
        /// Why the stream cannot be used.
        reason: String,
    },
    /// A user's CUDA or HIP source the SIMT executor cannot take (`wavekit check`): a construct
    /// it cannot model, a kernel it does not define, or code that does not build; `line` is 0
    /// where the problem has no one line.
    #[error("{file}{}: {message}", line_suffix(*line))]
    UserSource {
        /// The source file, as the caller named it.
        file: String,
        /// The line (1-based), or 0.
        line: u32,
        /// What is wrong, naming the construct.
        message: String,
    },
    /// A kernel source compiled at run time (NVRTC, hipRTC, or the host compiler building it
    /// for the SIMT executor) that did not compile: `log` is the compiler's own output.
    #[error("{compiler} could not compile {source_name}:\n{log}")]
    Compile {
        /// The compiler: `nvrtc`, `hiprtc`, or the host compiler's command.
        compiler: String,
        /// The source's name, as the caller gave it.
        source_name: String,
        /// What the compiler printed.
        log: String,
    },
    /// A kernel asked for by name that the compiled module does not hold.
    #[error("no kernel `{kernel}` in {source_name} (it has: {})", available.join(", "))]
    UnknownKernel {
        /// The name asked for.
        kernel: String,
        /// The source's name.
        source_name: String,
        /// The kernels the module holds by name (its `WK_EXPORT_KERNEL` lines).
        available: Vec<String>,
    },
    /// A launch shape the kernel cannot run with on this device: `what` names the part (the
    /// block's threads, more than the compiled kernel allows; a block or grid dimension; the
    /// dynamic shared memory), `got` is outside `min..=limit`; nothing was launched.
    #[error("{what} is {got}, outside {min}..={limit} for kernel {kernel}")]
    LaunchBounds {
        /// The kernel's name.
        kernel: String,
        /// Which part of the launch.
        what: &'static str,
        /// What was asked for.
        got: u64,
        /// The least allowed (1 for a dimension, 0 for shared memory).
        min: u64,
        /// The most the kernel or device allows.
        limit: u64,
    },
}

fn line_suffix(line: u32) -> String {
    if line == 0 {
        String::new()
    } else {
        format!(":{line}")
    }
}
