//! Checks, without an AMD GPU, what the HIP build put into the kernel archive that is linked
//! into wavekit: every object carries a code object for each configured target (gfx90a, gfx940
//! and gfx1030 by default), and each code object was compiled for its target's wave size with
//! lane masks of that many bits.
//!
//! Evidence read per code object, each independent of the others:
//! - the offload bundle's target list (the `__CLANG_OFFLOAD_BUNDLE__` header in `.hip_fatbin`);
//! - the ELF machine flags (EF_AMDGPU_MACH) of the code object itself;
//! - `wavekit_hip_lanemask_bits`, exported by csrc/wavekit/arch_hip.h as
//!   `sizeof(wk_lanemask_t) * 8` (and static_asserted there against the target's wave size);
//! - every kernel descriptor's ENABLE_WAVEFRONT_SIZE32 bit, which is what the hardware
//!   launches waves with;
//! - the `.wavefront_size` entries of the code object metadata note.
#![cfg(feature = "hip")]

use std::collections::BTreeSet;

const KERNEL_LIB: &str = wavekit::hip::build_info::KERNEL_LIB;
const ARCHS: &str = wavekit::hip::build_info::ARCHS;
const ARCHS_SOURCE: &str = wavekit::hip::build_info::ARCHS_SOURCE;

// ---------------------------------------------------------------- byte readers

fn u16_at(b: &[u8], off: usize) -> u16 {
    u16::from_le_bytes(b[off..off + 2].try_into().unwrap())
}
fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(b[off..off + 4].try_into().unwrap())
}
fn u64_at(b: &[u8], off: usize) -> u64 {
    u64::from_le_bytes(b[off..off + 8].try_into().unwrap())
}
fn cstr_at(b: &[u8], off: usize) -> &str {
    let end = b[off..]
        .iter()
        .position(|&c| c == 0)
        .map_or(b.len(), |p| off + p);
    std::str::from_utf8(&b[off..end]).unwrap()
}

// ---------------------------------------------------------------- ar archive

/// (member name, contents) of a GNU/System V `ar` archive.
fn ar_members(data: &[u8]) -> Vec<(String, &[u8])> {
    assert_eq!(
        &data[..8],
        b"!<arch>\n",
        "{KERNEL_LIB} is not an ar archive"
    );
    let mut members = Vec::new();
    let mut long_names: &[u8] = &[];
    let mut off = 8;
    while off + 60 <= data.len() {
        let header = &data[off..off + 60];
        assert_eq!(&header[58..60], b"`\n", "bad ar member header at {off}");
        let name = std::str::from_utf8(&header[..16]).unwrap().trim_end();
        let size: usize = std::str::from_utf8(&header[48..58])
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let body = &data[off + 60..off + 60 + size];
        match name {
            "/" | "/SYM64/" => {}
            "//" => long_names = body,
            _ => {
                let name = if let Some(index) = name.strip_prefix('/') {
                    let start: usize = index.parse().unwrap();
                    let end = long_names[start..]
                        .iter()
                        .position(|&c| c == b'\n')
                        .unwrap()
                        + start;
                    String::from_utf8_lossy(&long_names[start..end])
                        .trim_end_matches('/')
                        .to_string()
                } else {
                    name.trim_end_matches('/').to_string()
                };
                members.push((name, body));
            }
        }
        off += 60 + size + (size & 1);
    }
    members
}

// ---------------------------------------------------------------- ELF64

struct Section<'a> {
    name: String,
    addr: u64,
    data: &'a [u8],
    link: usize,
    kind: u32,
}

struct Elf<'a> {
    machine: u16,
    flags: u32,
    sections: Vec<Section<'a>>,
}

const SHT_SYMTAB: u32 = 2;
const SHT_NOTE: u32 = 7;
const SHT_NOBITS: u32 = 8;
const EM_X86_64: u16 = 62;
const EM_AMDGPU: u16 = 224;

fn parse_elf(b: &[u8]) -> Elf<'_> {
    assert_eq!(&b[..4], b"\x7fELF", "not an ELF file");
    assert_eq!(b[4], 2, "not ELF64");
    assert_eq!(b[5], 1, "not little-endian");
    let machine = u16_at(b, 18);
    let flags = u32_at(b, 48);
    let shoff = u64_at(b, 40) as usize;
    let shentsize = u16_at(b, 58) as usize;
    let shnum = u16_at(b, 60) as usize;
    let shstrndx = u16_at(b, 62) as usize;
    let raw: Vec<(u32, u32, u64, usize, usize, usize)> = (0..shnum)
        .map(|i| {
            let h = shoff + i * shentsize;
            let kind = u32_at(b, h + 4);
            let (off, size) = (u64_at(b, h + 24) as usize, u64_at(b, h + 32) as usize);
            let size = if kind == SHT_NOBITS { 0 } else { size };
            (
                u32_at(b, h),
                kind,
                u64_at(b, h + 16),
                off,
                size,
                u32_at(b, h + 40) as usize,
            )
        })
        .collect();
    let (_, _, _, stroff, strsize, _) = raw[shstrndx];
    let shstr = &b[stroff..stroff + strsize];
    let sections = raw
        .iter()
        .map(|&(name, kind, addr, off, size, link)| Section {
            name: cstr_at(shstr, name as usize).to_string(),
            addr,
            data: &b[off..off + size],
            link,
            kind,
        })
        .collect();
    Elf {
        machine,
        flags,
        sections,
    }
}

impl<'a> Elf<'a> {
    fn section(&self, name: &str) -> Option<&Section<'a>> {
        self.sections.iter().find(|s| s.name == name)
    }

    /// (name, value, size, section index) of every `.symtab` symbol.
    fn symbols(&self) -> Vec<(String, u64, u64, usize)> {
        let symtab = self
            .sections
            .iter()
            .find(|s| s.kind == SHT_SYMTAB)
            .expect("no .symtab");
        let strtab = self.sections[symtab.link].data;
        symtab
            .data
            .chunks_exact(24)
            .map(|e| {
                let name = cstr_at(strtab, u32_at(e, 0) as usize).to_string();
                (name, u64_at(e, 8), u64_at(e, 16), u16_at(e, 6) as usize)
            })
            .collect()
    }

    /// The bytes of a symbol, found through its section's address.
    fn symbol_bytes(&self, value: u64, size: u64, shndx: usize) -> &'a [u8] {
        let s = &self.sections[shndx];
        let start = (value - s.addr) as usize;
        &s.data[start..start + size as usize]
    }
}

// ---------------------------------------------------------------- clang offload bundle

const BUNDLE_MAGIC: &[u8] = b"__CLANG_OFFLOAD_BUNDLE__";

/// (triple, contents) of each entry of one uncompressed clang offload bundle.
fn bundle_entries(b: &[u8]) -> Vec<(String, &[u8])> {
    assert!(
        b.starts_with(BUNDLE_MAGIC),
        ".hip_fatbin does not start with an offload bundle"
    );
    let count = u64_at(b, 24) as usize;
    let mut off = 32;
    (0..count)
        .map(|_| {
            let (start, size, tlen) = (
                u64_at(b, off) as usize,
                u64_at(b, off + 8) as usize,
                u64_at(b, off + 16) as usize,
            );
            let triple = std::str::from_utf8(&b[off + 24..off + 24 + tlen])
                .unwrap()
                .to_string();
            off += 24 + tlen;
            (triple, &b[start..start + size])
        })
        .collect()
}

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

fn configured_archs() -> Vec<&'static str> {
    ARCHS.split(',').collect()
}

/// What one code object says about itself.
struct CodeObjectFacts {
    mach: u32,
    lanemask_bits: u32,
    kernels: usize,
    wave32_kernels: usize,
    metadata_wave_sizes: Vec<u8>,
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
        .filter(|s| s.0 == "wavekit_hip_lanemask_bits")
        .collect();
    assert_eq!(
        marker.len(),
        1,
        "wavekit_hip_lanemask_bits: expected one definition"
    );
    let (_, value, size, shndx) = marker[0];
    assert_eq!(*size, 4);
    let lanemask_bits = u32_at(elf.symbol_bytes(*value, *size, *shndx), 0);
    let descriptors: Vec<_> = symbols.iter().filter(|s| s.0.ends_with(".kd")).collect();
    let wave32_kernels = descriptors
        .iter()
        .filter(|(_, v, s, i)| {
            let kd = elf.symbol_bytes(*v, *s, *i);
            u16_at(kd, KD_CODE_PROPERTIES) & KD_WAVEFRONT_SIZE32 != 0
        })
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
    CodeObjectFacts {
        mach: elf.flags & EF_AMDGPU_MACH,
        lanemask_bits,
        kernels: descriptors.len(),
        wave32_kernels,
        metadata_wave_sizes,
    }
}

/// (member, target id, facts, bytes) for every device code object in the kernel archive.
fn all_code_objects() -> Vec<(String, String, CodeObjectFacts, Vec<u8>)> {
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
                .any(|s| s.0.starts_with("__hipRegister"));
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

// ---------------------------------------------------------------- tests

#[test]
fn default_targets_are_two_wave64_and_one_wave32() {
    if ARCHS_SOURCE == "default" {
        assert_eq!(ARCHS, "gfx90a,gfx940,gfx1030");
    } else {
        assert_eq!(
            ARCHS_SOURCE, "WAVEKIT_HIP_ARCHS",
            "unknown source of the target list"
        );
    }
    // The rule the other test derives expectations from.
    assert_eq!(expected_wave_size("gfx90a"), 64);
    assert_eq!(expected_wave_size("gfx940"), 64);
    assert_eq!(expected_wave_size("gfx1030"), 32);
    assert_eq!(expected_wave_size("gfx90a:xnack-"), 64);
}

#[test]
fn every_object_holds_each_target_at_its_wave_size() {
    let objects = all_code_objects();
    for (member, target, f, _) in &objects {
        let wave = expected_wave_size(target);
        let what = format!("{member} [{target}]");
        eprintln!(
            "{what}: mach {:#x}, {} kernels ({} wave32), lane masks of {} bits, metadata {:?}",
            f.mach,
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
    if ARCHS_SOURCE == "default" {
        let wave64 = objects.iter().filter(|o| o.2.lanemask_bits == 64).count();
        let wave32 = objects.iter().filter(|o| o.2.lanemask_bits == 32).count();
        assert!(
            wave64 > 0 && wave32 > 0,
            "default build needs wave64 and wave32 code objects"
        );
        assert_eq!(
            wave64,
            2 * wave32,
            "gfx90a and gfx940 are wave64, gfx1030 wave32"
        );
    }
}

// ---------------------------------------------------------------- contraction

/// llvm-objdump of the LLVM that hipcc's clang belongs to, found through its resource
/// directory (`<llvm>/lib/clang/<version>`): the `llvm-objdump` on PATH may be an older LLVM
/// that cannot disassemble gfx940 (Debian 12's default is LLVM 14).
fn llvm_objdump() -> std::path::PathBuf {
    let out = std::process::Command::new(wavekit::hip::build_info::HIPCC)
        .env("HIP_PLATFORM", "amd")
        .args(["--offload-arch=gfx90a", "-print-resource-dir"])
        .output()
        .expect("run hipcc -print-resource-dir");
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
        "{} is missing (Debian: llvm-15, a dependency of hipcc)",
        objdump.display()
    );
    objdump
}

/// The instruction lines of every function whose symbol contains `needle`.
fn disassembly_of(
    objdump: &std::path::Path,
    co: &[u8],
    target: &str,
    needle: &str,
) -> Vec<Vec<String>> {
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
    let mut functions = Vec::new();
    let mut current: Option<Vec<String>> = None;
    for line in text.lines() {
        if line.ends_with(">:") {
            if let Some(f) = current.take() {
                functions.push(f);
            }
            if line.contains(needle) {
                current = Some(Vec::new());
            }
        } else if let Some(f) = current.as_mut() {
            let insn = line.split("//").next().unwrap().trim();
            if !insn.is_empty() {
                f.push(insn.to_string());
            }
        }
    }
    functions.extend(current);
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
    let objdump = llvm_objdump();
    let objects = all_code_objects();
    let mut checked = 0;
    for (member, target, _, co) in &objects {
        for (elem, width) in [("IfE", "f32"), ("IdE", "f64")] {
            for f in disassembly_of(&objdump, co, target, &format!("spmv_kernel{elem}")) {
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
