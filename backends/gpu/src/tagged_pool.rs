//! The look-back collectives' own scratch (the device scan, the stable compaction, the runs,
//! by_key), kept between calls so that their tile statuses need no zeroing launch
//! (csrc/wavekit/launchers.def, `device_scan_tagged`, `compact_tagged`, `runs_tagged`,
//! `by_key_tagged`): each
//! call's statuses carry a tag one above the last, and what earlier calls left reads as "not
//! published yet". The general pool cannot serve for this, since other collectives write their
//! scratch there; each collective has its own, so that calls alternating between them keep
//! theirs.

use super::buffer::DeviceMem;
use super::ffi;
use super::runtime::GpuRuntime;

/// The tag each call takes. Tag 1 makes the launcher zero the statuses first; the contract of a
/// larger tag (launchers.def): every call since that tag-1 call had the same element type, no
/// larger scratch, and a lower tag.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Tags {
    /// The element type (`ElemKind` as u32) and the scratch bytes of the last tag-1 call.
    zeroed_for: Option<(u32, u64)>,
    last: u32,
}

impl Tags {
    /// The tag of a call on `kind` needing `bytes` of scratch.
    pub(crate) fn next(&mut self, kind: u32, bytes: u64) -> u32 {
        let fits = matches!(self.zeroed_for, Some((k, b)) if k == kind && bytes <= b);
        if fits && self.last < ffi::MAX_STATUS_TAG {
            self.last += 1;
        } else {
            self.zeroed_for = Some((kind, bytes));
            self.last = 1;
        }
        self.last
    }

    /// Forgets what the scratch holds (a new allocation, a failed launch): the next call zeroes.
    pub(crate) fn forget(&mut self) {
        *self = Self::default();
    }
}

/// The collectives with a scratch of their own, and their scratch sizes' `ALGO_*`.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Tagged {
    Scan,
    Compact,
    Runs,
    ByKey,
}

impl Tagged {
    pub(crate) const ALL: [Tagged; 4] =
        [Tagged::Scan, Tagged::Compact, Tagged::Runs, Tagged::ByKey];

    /// The launcher whose scratch it is (launchers.def).
    pub(crate) fn launcher(self) -> &'static str {
        match self {
            Tagged::Scan => "device_scan_tagged",
            Tagged::Compact => "compact_tagged",
            Tagged::Runs => "runs_tagged",
            Tagged::ByKey => "by_key_tagged",
        }
    }

    pub(crate) fn algo(self) -> u32 {
        match self {
            Tagged::Scan => ffi::ALGO_DEVICE_SCAN,
            Tagged::Compact => ffi::ALGO_COMPACT,
            Tagged::Runs => ffi::ALGO_RUNS,
            Tagged::ByKey => ffi::ALGO_BY_KEY,
        }
    }
}

/// One collective's scratch and the tags of the calls on it.
pub(crate) struct TaggedPool<R: GpuRuntime> {
    pub(crate) mem: DeviceMem<R>,
    pub(crate) tags: Tags,
}

impl<R: GpuRuntime> TaggedPool<R> {
    pub(crate) fn new(mem: DeviceMem<R>) -> Self {
        TaggedPool {
            mem,
            tags: Tags::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_rise_while_the_calls_fit_what_was_zeroed() {
        let mut t = Tags::default();
        assert_eq!(t.next(4, 1000), 1);
        assert_eq!(t.next(4, 1000), 2);
        assert_eq!(t.next(4, 512), 3);
        // More scratch than the tag-1 call zeroed: zero again.
        assert_eq!(t.next(4, 1001), 1);
        assert_eq!(t.next(4, 1001), 2);
        // Another element type lays out other statuses: zero again.
        assert_eq!(t.next(5, 256), 1);
        assert_eq!(t.next(4, 256), 1);
        t.forget();
        assert_eq!(t.next(4, 256), 1);
    }

    #[test]
    fn tags_start_again_when_used_up() {
        let mut t = Tags::default();
        assert_eq!(t.next(0, 8), 1);
        t.last = ffi::MAX_STATUS_TAG - 1;
        assert_eq!(t.next(0, 8), ffi::MAX_STATUS_TAG);
        assert_eq!(t.next(0, 8), 1);
        assert_eq!(t.next(0, 8), 2);
    }
}
