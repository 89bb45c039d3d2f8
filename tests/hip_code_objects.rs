//! Checks, without an AMD GPU, what the HIP build put into the kernel archive that is linked
//! into wavekit: every object carries a code object for each configured target (gfx90a,
//! gfx942 and gfx1030 by default) in its one offload bundle, and each code object was compiled
//! for its target's wave size with lane masks of that many bits, by the compiler the build says
//! built it (hipcc, or clang for the targets the installed ROCm predates: gfx942 on ROCm 5.2).
//!
//! Evidence read per code object, each independent of the others:
//! - the offload bundle's target list (the `__CLANG_OFFLOAD_BUNDLE__` header in `.hip_fatbin`);
//! - the ELF machine flags (EF_AMDGPU_MACH) of the code object itself;
//! - `wavekit_hip_lanemask_bits`, exported by csrc/wavekit/arch_hip.h as
//!   `sizeof(wk_lanemask_t) * 8` (and static_asserted there against the target's wave size);
//! - every kernel descriptor's ENABLE_WAVEFRONT_SIZE32 bit, which is what the hardware
//!   launches waves with;
//! - the `.wavefront_size` entries of the code object metadata note;
//! - the `.comment` section, where the compiler and linker name themselves;
//! - the kernel and device-variable names, which the host side registers for every target.
#![cfg(feature = "hip")]

use std::collections::BTreeSet;
use wavekit_tests::code_object::{
    EM_AMDGPU, EM_X86_64, SHT_NOTE, ar_members, bundle_entries, parse_elf, u16_at, u32_at,
};

const KERNEL_LIB: &str = wavekit::hip::build_info::KERNEL_LIB;
const ARCHS: &str = wavekit::hip::build_info::ARCHS;
const ARCHS_SOURCE: &str = wavekit::hip::build_info::ARCHS_SOURCE;
const HIPCC: &str = wavekit::hip::build_info::HIPCC;
const CLANG: &str = wavekit::hip::build_info::CLANG;
const CLANG_ARCHS: &str = wavekit::hip::build_info::CLANG_ARCHS;

// ---------------------------------------------------------------- expectations

/// The wave size HIP compiles a target for by default: GCN/CDNA (gfx6..gfx9) run wave64,
/// RDNA (gfx10 and later) wave32.
fn expected_wave_size(arch: &str) -> u32 {
    let processor = arch.split(':').next().unwrap().strip_prefix("gfx").unwrap();
    let major: u32 = processor[..processor.len() - 2].parse().unwrap();
    if major >= 10 { 32 } else { 64 }
}

/// EF_AMDGPU_MACH values from LLVM's ELF.h (llvm/include/llvm/BinaryFormat/ELF.h).
fn expected_mach(arch: &str) -> u32 {
    match arch.split(':').next().unwrap() {
        "gfx900" => 0x2c,
        "gfx906" => 0x2f,
        "gfx908" => 0x30,
        "gfx90a" => 0x3f,
        "gfx940" => 0x40,
        "gfx941" => 0x4b,
        "gfx942" => 0x4c,
        "gfx1030" => 0x36,
        "gfx1100" => 0x41,
        other => panic!("add EF_AMDGPU_MACH of {other} (LLVM ELF.h) to this test"),
    }
}

const EF_AMDGPU_MACH: u32 = 0xff;
/// Kernel descriptor: kernel_code_properties is the u16 at byte 56; bit 10 is
/// ENABLE_WAVEFRONT_SIZE32 (LLVM AMDGPUUsage, "Kernel Descriptor").
const KD_CODE_PROPERTIES: usize = 56;
const KD_WAVEFRONT_SIZE32: u16 = 1 << 10;
const METADATA_WAVEFRONT_KEY: &[u8] = b"\xaf.wavefront_size"; // msgpack fixstr of 15 bytes
/// clang 17 and later define one `__hip_cuid_<hash>` per translation unit in device code, for
/// tools that match device and host code; nothing registers or reads it in a non-RDC build.
const CUID_MARKER: &str = "__hip_cuid_";
/// st_shndx of an undefined symbol.
const SHN_UNDEF: usize = 0;

fn configured_archs() -> Vec<&'static str> {
    ARCHS.split(',').collect()
}

fn clang_archs() -> Vec<&'static str> {
    CLANG_ARCHS.split(',').filter(|a| !a.is_empty()).collect()
}

/// What one code object says about itself.
struct CodeObjectFacts {
    mach: u32,
    /// EI_ABIVERSION: 2 for code object v4, 3 for v5.
    abi_version: u8,
    lanemask_bits: u32,
    kernels: usize,
    wave32_kernels: usize,
    metadata_wave_sizes: Vec<u8>,
    /// The `.comment` strings (compiler and linker versions).
    comments: Vec<String>,
    /// Names of the global symbols it defines (kernels, their descriptors, device variables).
    globals: BTreeSet<String>,
}

fn code_object_facts(co: &[u8]) -> CodeObjectFacts {
    let elf = parse_elf(co);
    assert_eq!(
        elf.machine, EM_AMDGPU,
        "bundle entry is not an AMDGPU code object"
    );
    let symbols = elf.symbols();
    let marker: Vec<_> = symbols
        .iter()
        .filter(|s| s.name == "wavekit_hip_lanemask_bits")
        .collect();
    assert_eq!(
        marker.len(),
        1,
        "wavekit_hip_lanemask_bits: expected one definition"
    );
    assert_eq!(marker[0].size, 4);
    let lanemask_bits = u32_at(elf.symbol_bytes(marker[0]), 0);
    let descriptors: Vec<_> = symbols.iter().filter(|s| s.name.ends_with(".kd")).collect();
    let wave32_kernels = descriptors
        .iter()
        .filter(|s| u16_at(elf.symbol_bytes(s), KD_CODE_PROPERTIES) & KD_WAVEFRONT_SIZE32 != 0)
        .count();
    let notes = elf.sections.iter().filter(|s| s.kind == SHT_NOTE);
    let mut metadata_wave_sizes = Vec::new();
    for note in notes {
        let d = note.data;
        let mut i = 0;
        while let Some(p) = d[i..]
            .windows(METADATA_WAVEFRONT_KEY.len())
            .position(|w| w == METADATA_WAVEFRONT_KEY)
        {
            let at = i + p + METADATA_WAVEFRONT_KEY.len();
            metadata_wave_sizes.push(d[at]);
            i = at;
        }
    }
    let comments = elf.section(".comment").map_or_else(Vec::new, |s| {
        s.data
            .split(|&c| c == 0)
            .filter(|c| !c.is_empty())
            .map(|c| String::from_utf8_lossy(c).into_owned())
            .collect()
    });
    let globals = symbols
        .iter()
        // Defined ones only: clang 15 leaves `extern __shared__` arrays (dynamic LDS, placed
        // at launch) as undefined globals, clang 19 lowers them away; neither is registered.
        .filter(|s| s.global && s.shndx != SHN_UNDEF && !s.name.starts_with(CUID_MARKER))
        .map(|s| s.name.clone())
        .collect();
    CodeObjectFacts {
        mach: elf.flags & EF_AMDGPU_MACH,
        abi_version: elf.abi_version,
        lanemask_bits,
        kernels: descriptors.len(),
        wave32_kernels,
        metadata_wave_sizes,
        comments,
        globals,
    }
}

/// One device code object: (archive member, target id, facts, bytes).
type CodeObject = (String, String, CodeObjectFacts, Vec<u8>);

/// Every device code object in the kernel archive, read and parsed once for all the tests of
/// this binary (a debug build parses the archive's objects slowly; every test reading it again
/// cost CI minutes).
fn all_code_objects() -> &'static [CodeObject] {
    static OBJECTS: std::sync::OnceLock<Vec<CodeObject>> = std::sync::OnceLock::new();
    OBJECTS.get_or_init(read_code_objects)
}

fn read_code_objects() -> Vec<CodeObject> {
    let data =
        std::fs::read(KERNEL_LIB).unwrap_or_else(|e| panic!("cannot read {KERNEL_LIB}: {e}"));
    let members = ar_members(&data);
    assert!(!members.is_empty(), "{KERNEL_LIB} has no members");
    let mut out = Vec::new();
    let mut host_only = 0;
    let total = members.len();
    for (name, body) in members {
        let host = parse_elf(body);
        assert_eq!(host.machine, EM_X86_64, "{name}: not an x86-64 object");
        let Some(fatbin) = host.section(".hip_fatbin") else {
            // A translation unit without device code (the launcher table) has no fat binary;
            // one that registers kernels must have it.
            let registers = host
                .symbols()
                .iter()
                .any(|s| s.name.starts_with("__hipRegister"));
            assert!(
                !registers,
                "{name}: registers HIP kernels but has no .hip_fatbin"
            );
            host_only += 1;
            continue;
        };
        let mut targets = Vec::new();
        for (triple, co) in bundle_entries(fatbin.data) {
            if triple.starts_with("host-") {
                continue;
            }
            let target = triple
                .strip_prefix("hipv4-amdgcn-amd-amdhsa--")
                .unwrap_or_else(|| panic!("{name}: unexpected bundle entry {triple}"))
                .to_string();
            targets.push(target.clone());
            out.push((name.clone(), target, code_object_facts(co), co.to_vec()));
        }
        let got: BTreeSet<&str> = targets.iter().map(String::as_str).collect();
        let want: BTreeSet<&str> = configured_archs().into_iter().collect();
        assert_eq!(
            got, want,
            "{name}: bundle targets differ from the configured {ARCHS}"
        );
        assert_eq!(targets.len(), want.len(), "{name}: a target appears twice");
    }
    assert!(
        host_only < total,
        "no object in {KERNEL_LIB} carries device code"
    );
    out
}

/// `clang version X.Y.Z` as `compiler --version` prints it (hipcc prints its clang's line
/// after the HIP version).
fn clang_version_of(compiler: &str) -> String {
    let out = std::process::Command::new(compiler)
        .env("HIP_PLATFORM", "amd")
        .env("HCC_AMDGPU_TARGET", "")
        .arg("--version")
        .output()
        .unwrap_or_else(|e| panic!("run {compiler} --version: {e}"));
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.contains("clang version "))
        .unwrap_or_else(|| panic!("{compiler} --version names no clang version:\n{text}"));
    let at = line.find("clang version ").unwrap();
    line[at..]
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

// ---------------------------------------------------------------- tests

#[test]
fn default_targets_are_two_wave64_and_one_wave32() {
    if ARCHS_SOURCE == "default" {
        assert_eq!(ARCHS, "gfx90a,gfx942,gfx1030");
    } else {
        assert_eq!(
            ARCHS_SOURCE, "WAVEKIT_HIP_ARCHS",
            "unknown source of the target list"
        );
    }
    // The rule the other test derives expectations from.
    assert_eq!(expected_wave_size("gfx90a"), 64);
    assert_eq!(expected_wave_size("gfx940"), 64);
    assert_eq!(expected_wave_size("gfx942"), 64);
    assert_eq!(expected_wave_size("gfx1030"), 32);
    assert_eq!(expected_wave_size("gfx90a:xnack-"), 64);
}

/// The list the kernels were built for is the one the environment asked for: CI exports
/// `WAVEKIT_HIP_ARCHS` for the whole run (gfx942,gfx1030), so there this checks that the test
/// reads the objects CI built, and that they hold both wave sizes, which every assertion below
/// then checks target by target.
#[test]
fn the_built_targets_are_the_requested_ones_with_both_wave_sizes() {
    match std::env::var("WAVEKIT_HIP_ARCHS") {
        Ok(requested) if !requested.trim().is_empty() => {
            assert_eq!(ARCHS_SOURCE, "WAVEKIT_HIP_ARCHS");
            let want: BTreeSet<&str> = requested.split(',').map(str::trim).collect();
            let got: BTreeSet<&str> = configured_archs().into_iter().collect();
            assert_eq!(got, want, "built for {ARCHS}, asked for {requested}");
        }
        _ => assert_eq!(ARCHS_SOURCE, "default", "built for {ARCHS} with no request"),
    }
    let waves: BTreeSet<u32> = configured_archs()
        .into_iter()
        .map(expected_wave_size)
        .collect();
    assert_eq!(
        waves,
        BTreeSet::from([32, 64]),
        "{ARCHS}: the HIP build checked here needs a wave64 and a wave32 target"
    );
}

#[test]
fn every_object_holds_each_target_at_its_wave_size() {
    let objects = all_code_objects();
    for (member, target, f, _) in objects {
        let wave = expected_wave_size(target);
        let what = format!("{member} [{target}]");
        eprintln!(
            "{what}: mach {:#x}, ABI version {}, {} kernels ({} wave32), lane masks of {} bits, \
             metadata {:?}",
            f.mach,
            f.abi_version,
            f.kernels,
            f.wave32_kernels,
            f.lanemask_bits,
            f.metadata_wave_sizes.first()
        );
        assert_eq!(f.mach, expected_mach(target), "{what}: EF_AMDGPU_MACH");
        assert_eq!(
            f.lanemask_bits, wave,
            "{what}: lane mask bits of the device layer"
        );
        assert!(f.kernels > 0, "{what}: no kernels");
        let want_wave32 = if wave == 32 { f.kernels } else { 0 };
        assert_eq!(
            f.wave32_kernels, want_wave32,
            "{what}: kernel descriptors' wave32 bit"
        );
        assert_eq!(
            f.metadata_wave_sizes.len(),
            f.kernels,
            "{what}: .wavefront_size entries"
        );
        assert!(
            f.metadata_wave_sizes.iter().all(|&w| w as u32 == wave),
            "{what}: metadata wave sizes {:?}",
            f.metadata_wave_sizes
        );
    }
    // Whatever the list (the default's three, CI's two): every object carries one code object
    // per configured target, so the wave sizes come in the list's proportion.
    let members: BTreeSet<&str> = objects.iter().map(|o| o.0.as_str()).collect();
    let per_wave = |w: u32| {
        configured_archs()
            .into_iter()
            .filter(|a| expected_wave_size(a) == w)
            .count()
    };
    for w in [32, 64] {
        let got = objects.iter().filter(|o| o.2.lanemask_bits == w).count();
        assert_eq!(
            got,
            members.len() * per_wave(w),
            "{ARCHS}: wave{w} code objects over {} objects",
            members.len()
        );
    }
}

/// The host side, compiled once by hipcc, registers each kernel and device variable by name
/// for whichever code object the runtime picks: every target of an object must define the
/// same names, in the same code object ABI, whichever compiler built it.
#[test]
fn every_target_of_an_object_defines_the_same_kernels_in_one_abi() {
    let objects = all_code_objects();
    let mut checked = 0;
    for (member, target, f, _) in objects {
        let (_, first_target, first, _) = objects.iter().find(|o| &o.0 == member).unwrap();
        assert_eq!(
            f.globals, first.globals,
            "{member}: {target} and {first_target} define different global symbols"
        );
        assert_eq!(
            f.abi_version, first.abi_version,
            "{member}: {target} and {first_target} are different code object versions"
        );
        checked += 1;
    }
    assert_eq!(checked, objects.len());
    assert!(
        objects.iter().all(|o| o.2.abi_version == 2),
        "code object v4 (EI_ABIVERSION 2) everywhere, as ROCm 5.2's hipcc builds"
    );
}

/// Each code object's `.comment` names the compiler the build reports for its target: clang
/// for `CLANG_ARCHS`, hipcc's clang for the rest.
#[test]
fn each_target_was_built_by_the_compiler_the_build_names() {
    for arch in clang_archs() {
        assert!(
            configured_archs().contains(&arch),
            "clang built {arch}, which is not configured ({ARCHS})"
        );
    }
    let hipcc_version = clang_version_of(HIPCC);
    // Debian's ROCm 5.2 (hipcc on clang 15) has device libraries for every target but the
    // released MI300s (gfx941, gfx942; it knows the pre-production gfx940), so clang builds
    // exactly those of the list; a newer ROCm's hipcc may build them all.
    let mi300: Vec<&str> = configured_archs()
        .into_iter()
        .filter(|a| ["gfx941", "gfx942"].contains(a))
        .collect();
    if hipcc_version.contains("clang version 15.") {
        assert_eq!(
            clang_archs(),
            mi300,
            "clang built {CLANG_ARCHS} for {ARCHS}"
        );
    } else {
        assert!(
            clang_archs().iter().all(|a| mi300.contains(a)),
            "clang built {CLANG_ARCHS} for {ARCHS}"
        );
    }
    let clang_version = (!CLANG.is_empty()).then(|| clang_version_of(CLANG));
    for (member, target, f, _) in all_code_objects() {
        let by_clang = clang_archs().contains(&target.as_str());
        let want = if by_clang {
            clang_version
                .as_deref()
                .expect("CLANG is set when CLANG_ARCHS is not empty")
        } else {
            &hipcc_version
        };
        assert!(
            f.comments.iter().any(|c| c.contains(want)),
            "{member} [{target}]: .comment {:?} does not name {want}",
            f.comments
        );
    }
}

// ---------------------------------------------------------------- contraction

/// llvm-objdump of the LLVM that built `target` (hipcc's clang, or clang for `CLANG_ARCHS`),
/// found through that clang's resource directory (`<llvm>/lib/clang/<version>`): the
/// `llvm-objdump` on PATH may be an older LLVM that cannot disassemble gfx940 (Debian 12's
/// default is LLVM 14), and hipcc's LLVM 15 does not know gfx942.
fn llvm_objdump(target: &str) -> std::path::PathBuf {
    let compiler = if clang_archs().contains(&target) {
        CLANG
    } else {
        HIPCC
    };
    let mut cmd = std::process::Command::new(compiler);
    cmd.env("HIP_PLATFORM", "amd").env("HCC_AMDGPU_TARGET", "");
    let out = cmd
        .arg("-print-resource-dir")
        .output()
        .unwrap_or_else(|e| panic!("run {compiler} -print-resource-dir: {e}"));
    let text = String::from_utf8_lossy(&out.stdout);
    let resource = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .expect("a resource dir");
    let llvm = std::path::Path::new(resource.trim())
        .ancestors()
        .nth(3)
        .expect("<llvm>/lib/clang/<v>");
    let objdump = llvm.join("bin/llvm-objdump");
    assert!(
        objdump.is_file(),
        "{} is missing (Debian: llvm-15, a dependency of hipcc, and llvm-19 for clang's \
         targets; scripts/setup-hip.sh installs both)",
        objdump.display()
    );
    objdump
}

/// The instruction lines of every function whose symbol contains one of `needles`, grouped by
/// the needle it matched (one disassembly of the code object for all of them).
fn disassembly_of(
    objdump: &std::path::Path,
    co: &[u8],
    target: &str,
    needles: &[&str],
) -> Vec<Vec<Vec<String>>> {
    let dir = std::env::temp_dir().join(format!("wavekit-hip-co-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{}.co", target.replace(':', "_")));
    std::fs::write(&path, co).unwrap();
    let processor = target.split(':').next().unwrap();
    let out = std::process::Command::new(objdump)
        .args(["-d", &format!("--mcpu={processor}")])
        .arg(&path)
        .output()
        .expect("run llvm-objdump");
    assert!(
        out.status.success(),
        "llvm-objdump: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::remove_file(&path).ok();
    let text = String::from_utf8(out.stdout).unwrap();
    let mut functions = vec![Vec::new(); needles.len()];
    let mut current: Option<(usize, Vec<String>)> = None;
    for line in text.lines() {
        if line.ends_with(">:") {
            if let Some((k, f)) = current.take() {
                functions[k].push(f);
            }
            current = needles
                .iter()
                .position(|n| line.contains(n))
                .map(|k| (k, Vec::new()));
        } else if let Some((_, f)) = current.as_mut() {
            let insn = line.split("//").next().unwrap().trim();
            if !insn.is_empty() {
                f.push(insn.to_string());
            }
        }
    }
    if let Some((k, f)) = current {
        functions[k].push(f);
    }
    functions
}

/// Whether every operand names a register (v5, v[2:3], s4, vcc): no literal or inline
/// constant. The integer-division expansions use multiply-adds with constants; a contracted
/// `a * b + c` of data has registers only.
fn registers_only(insn: &str) -> bool {
    let operands = insn
        .split_once(char::is_whitespace)
        .map_or("", |(_, ops)| ops);
    operands
        .split(',')
        .map(str::trim)
        .all(|op| op.starts_with('v') || op.starts_with('s') || op.starts_with("exec"))
}

fn is_fused(mnemonic: &str) -> bool {
    [
        "v_fma",
        "v_fmac",
        "v_mac_f",
        "v_mad_f",
        "v_pk_fma",
        "v_mad_legacy",
        "v_fma_legacy",
    ]
    .iter()
    .any(|p| mnemonic.starts_with(p))
}

/// SpMV's `vals[k] * x[cols[k]]` then `+` is where contraction would fuse; built with
/// -ffp-contract=off it stays a multiply and an add (docs/SEMANTICS.md "Reduction ops").
#[test]
fn spmv_multiplies_then_adds_on_every_target() {
    let mut checked = 0;
    // Only SpMV's objects: disassembling the whole archive took minutes of CI. Its object is
    // the one whose member name says spmv (cc names objects after their source files).
    let spmv: Vec<_> = all_code_objects()
        .iter()
        .filter(|(member, ..)| member.contains("spmv"))
        .collect();
    assert!(!spmv.is_empty(), "no spmv object in {KERNEL_LIB}");
    for (member, target, _, co) in spmv {
        let objdump = llvm_objdump(target);
        let kernels = disassembly_of(&objdump, co, target, &["spmv_kernelIfE", "spmv_kernelIdE"]);
        for (functions, width) in kernels.iter().zip(["f32", "f64"]) {
            for f in functions {
                let fused: Vec<&String> = f
                    .iter()
                    .filter(|i| is_fused(i.split_whitespace().next().unwrap()) && registers_only(i))
                    .collect();
                assert!(
                    fused.is_empty(),
                    "{member} [{target}] spmv {width}: fused {fused:?}"
                );
                let has = |op: &str| {
                    f.iter()
                        .any(|i| i.starts_with(&format!("v_{op}_{width}")) && registers_only(i))
                };
                assert!(
                    has("mul") && has("add"),
                    "{member} [{target}] spmv {width}: no mul+add"
                );
                checked += 1;
            }
        }
    }
    assert_eq!(
        checked,
        2 * configured_archs().len(),
        "spmv kernels found per target"
    );
}
