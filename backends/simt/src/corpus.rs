//! The hazard corpus (csrc/simt/corpus): small kernels with the bugs real wave64 ports make,
//! each beside its fixed twin, run on the executor at 32 or 64 lanes. tests/simt_corpus.rs
//! checks that every bug is reported at the widths it breaks at and that every twin runs
//! clean; docs/HAZARDS.md tabulates them.

use super::session::Session;
use std::ffi::{CStr, c_char, c_int, c_void};
use wavekit_core::error::{Result, WavekitError};
use wavekit_core::width::WarpWidth;

/// Values a corpus kernel reads: `run` takes exactly this many.
pub const INPUT_LEN: usize = 1024;
/// Values a corpus kernel may write: `run` returns this many.
pub const OUTPUT_LEN: usize = 1024;

type RunFn = unsafe extern "C" fn(*mut c_void, c_int, *const i32, *mut i32) -> c_int;

/// csrc/simt/corpus/table.cu's `wk_corpus_entry`.
#[repr(C)]
struct RawEntry {
    name: *const c_char,
    widths: u32,
    run: RunFn,
}

unsafe extern "C" {
    fn wk_simt32_corpus_count() -> usize;
    fn wk_simt32_corpus_entry(i: usize) -> *const RawEntry;
    fn wk_simt64_corpus_count() -> usize;
    fn wk_simt64_corpus_entry(i: usize) -> *const RawEntry;
}

/// One bug of the corpus, with both builds of its kernel.
#[derive(Clone, Copy)]
pub struct Bug {
    /// Its name, which is also its file: csrc/simt/corpus/NAME.cu.
    pub name: &'static str,
    widths: u32,
    run32: RunFn,
    run64: RunFn,
}

impl std::fmt::Debug for Bug {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bug")
            .field("name", &self.name)
            .field("breaks_at", &self.breaks_at())
            .finish()
    }
}

fn entry(table: unsafe extern "C" fn(usize) -> *const RawEntry, i: usize) -> &'static RawEntry {
    // SAFETY: the table returns a pointer into a static array for every i below its count.
    unsafe { table(i).as_ref() }.expect("index below the corpus count")
}

/// Every bug of the corpus, in csrc/simt/corpus/corpus.def's order.
pub fn bugs() -> Vec<Bug> {
    // SAFETY: plain reads of the static tables' lengths.
    let (n32, n64) = unsafe { (wk_simt32_corpus_count(), wk_simt64_corpus_count()) };
    assert_eq!(n32, n64, "both widths are built from one corpus.def");
    (0..n32)
        .map(|i| {
            let (a, b) = (
                entry(wk_simt32_corpus_entry, i),
                entry(wk_simt64_corpus_entry, i),
            );
            // SAFETY: entry names are static NUL-terminated strings from corpus.def.
            let name = unsafe { CStr::from_ptr(a.name) }
                .to_str()
                .expect("corpus names are ASCII");
            Bug {
                name,
                widths: a.widths,
                run32: a.run,
                run64: b.run,
            }
        })
        .collect()
}

impl Bug {
    /// The widths at which the bug is wrong (corpus.def).
    pub fn breaks_at(&self) -> Vec<WarpWidth> {
        WarpWidth::ALL
            .into_iter()
            .filter(|w| self.widths & (w.lanes() / 32) != 0)
            .collect()
    }

    /// Its source file, relative to the repository root.
    pub fn source(&self) -> String {
        format!("csrc/simt/corpus/{}.cu", self.name)
    }

    /// Runs the bug (or, with `fixed`, its twin) at `width` under the session's schedule;
    /// hazards go to the session. `input` holds INPUT_LEN values; the result, OUTPUT_LEN, is
    /// what the kernel wrote over the executor's poison (0x5A bytes) where it wrote.
    pub fn run(
        &self,
        s: &Session,
        width: WarpWidth,
        fixed: bool,
        input: &[i32],
    ) -> Result<Vec<i32>> {
        if input.len() != INPUT_LEN {
            return Err(WavekitError::LengthMismatch {
                what: "corpus input",
                expected: INPUT_LEN,
                got: input.len(),
            });
        }
        let mut out = vec![0i32; OUTPUT_LEN];
        let f = match width {
            WarpWidth::W32 => self.run32,
            WarpWidth::W64 => self.run64,
        };
        // SAFETY: every corpus kernel reads at most INPUT_LEN values and writes at most
        // OUTPUT_LEN (csrc/simt/corpus/corpus.h).
        let code = unsafe { f(s.stream(), fixed as c_int, input.as_ptr(), out.as_mut_ptr()) };
        Session::check(code, self.name)?;
        Ok(out)
    }
}
