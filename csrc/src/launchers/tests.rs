//! The generator against launchers.def and against small definitions written here.

use super::checked::methods_for;
use super::reach::{LAUNCHERS, Launcher, Scratch};
use super::{check_host, constants, parse, table};

fn def() -> String {
    let p = crate::csrc_dir().join("wavekit/launchers.def");
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

const TINY: &str = "\
// Bytes of scratch.
WK_QUERY(uint64_t, scratch_bytes, (uint32_t algo, uint64_t n))
// Doubles `in` into `out`.
WK_LAUNCHER(twice, (void* stream, wk_status* st, uint32_t dtype, const void* in, uint64_t n,
                    void* out, uint32_t* lanes))
";

const TINY_REACH: &[Launcher] = &[Launcher {
    name: "twice",
    reach: &[
        ("in", "n * size(dtype)"),
        ("out", "n * size(dtype)"),
        ("lanes?", "n * 4"),
    ],
    scratch: Scratch::Any,
    unchecked: None,
}];

#[test]
fn every_launcher_of_the_def_has_its_extents() {
    let def = def();
    let launchers = parse(&def)
        .expect("launchers.def parses")
        .into_iter()
        .filter(|e| !e.query)
        .count();
    assert_eq!(launchers, LAUNCHERS.len(), "one row of reach.rs a launcher");
    check_host(&def).expect("the host arrays are launchers.def's");
    assert!(check_host(TINY).is_err(), "TINY has no merge_runs");
    let code = methods_for(&def, LAUNCHERS).expect("every launcher has its extents");
    assert!(code.contains("pub(crate) fn block_reduce(&self, dtype: u32, op: u32, r#in: In<'_>"));
    // The ones whose device data the host cannot check stay unsafe.
    for name in ["segmented_sort", "look_back_probe", "peer_all_reduce"] {
        assert!(
            code.contains(&format!("pub(crate) unsafe fn {name}(")),
            "{name}"
        );
    }
    // A tagged launcher takes its tag from its scratch handle.
    assert!(code.contains("scratch: TaggedScratch<'_>"));
    assert!(code.contains("scratch.check(\"device_scan_tagged\", dtype)?;"));
}

#[test]
fn the_table_gets_a_typed_wrapper_per_launcher_with_the_casts_inside() {
    let code = table(TINY).expect("tiny def");
    assert!(code.contains(
        "pub twice: unsafe extern \"C\" fn(stream: *mut c_void, st: *mut Status, dtype: u32, \
         r#in: *const c_void, n: u64, out: *mut c_void, lanes: *mut u32) -> i32,"
    ));
    assert!(code.contains(
        "pub unsafe fn twice(&self, stream: *mut c_void, st: DevPtr, dtype: u32, r#in: DevPtr, \
         n: u64, out: DevPtr, lanes: DevPtr) -> i32"
    ));
    assert!(code.contains(
        "(self.twice)(stream, dptr::<Status>(st), dtype, cptr::<c_void>(r#in), n, \
         dptr::<c_void>(out), dptr::<u32>(lanes))"
    ));
    assert!(code.contains("# Safety"));
    // Queries keep their field only.
    assert!(!code.contains("pub unsafe fn scratch_bytes"));
    assert!(code.contains("/// Doubles `in` into `out`."));
}

#[test]
fn a_checked_method_checks_every_memory_argument_before_the_call() {
    let code = methods_for(TINY, TINY_REACH).expect("tiny def");
    let checks = [
        "reach(\"twice: in (bytes the launcher reaches)\", r#in.mem(), n * size(dtype), false)?;",
        "reach(\"twice: out (bytes the launcher reaches)\", out.mem(), n * size(dtype), false)?;",
        "reach(\"twice: lanes (bytes the launcher reaches)\", lanes.mem(), n * 4, true)?;",
    ];
    let call = code.find("self.table.twice(").expect("the call");
    for c in checks {
        let at = code
            .find(c)
            .unwrap_or_else(|| panic!("missing {c}\n{code}"));
        assert!(at < call, "{c} comes before the call");
    }
    assert!(code.contains("let n = wide(n);") && code.contains("let dtype = wide(dtype);"));
    assert!(code.contains(
        "self.table.twice(self.stream, self.status, dtype, r#in.mem().ptr, n, out.mem().ptr, \
         lanes.mem().ptr)"
    ));
}

#[test]
fn a_launcher_without_its_extents_stops_the_build() {
    let missing: &[Launcher] = &[Launcher {
        reach: &[("in", "n * size(dtype)"), ("out", "n * size(dtype)")],
        ..TINY_REACH[0]
    }];
    let err = methods_for(TINY, missing).expect_err("`lanes` has no extent");
    assert!(
        err.contains("`twice`'s `lanes` needs exactly one extent"),
        "{err}"
    );
    let err = methods_for(TINY, &[]).expect_err("no row");
    assert!(err.contains("no entry for the launcher `twice`"), "{err}");
    let unknown: &[Launcher] = &[Launcher {
        reach: &[
            ("in", "n * size(dtype)"),
            ("out", "len * 4"),
            ("lanes?", "n * 4"),
        ],
        ..TINY_REACH[0]
    }];
    let err = methods_for(TINY, unknown).expect_err("`len` is no parameter");
    assert!(err.contains("names `len`, not a parameter"), "{err}");
    let stray: &[Launcher] = &[
        TINY_REACH[0],
        Launcher {
            name: "thrice",
            ..TINY_REACH[0]
        },
    ];
    let err = methods_for(TINY, stray).expect_err("`thrice` is not in the def");
    assert!(err.contains("`thrice` is no launcher"), "{err}");
}

#[test]
fn unknown_types_and_constants_are_refused() {
    let err = table("WK_LAUNCHER(f, (void* stream, float x))").expect_err("float");
    assert!(err.contains("`float`"), "{err}");
    let err = constants("#define WK_X 1.5f").expect_err("a float constant");
    assert!(err.contains("WK_X"), "{err}");
    assert_eq!(
        constants("#define WK_ERR_ARG (-3)\n#define WK_ALGO_SORT 5u\n").expect("constants"),
        "/// `WK_ERR_ARG` of csrc/wavekit/launch.h.\npub const ERR_ARG: i32 = -3;\n\
         /// `WK_ALGO_SORT` of csrc/wavekit/launch.h.\npub const ALGO_SORT: u32 = 5;\n"
    );
}
