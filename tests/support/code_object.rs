//! Readers for what the HIP build produces, written from the formats' specifications and
//! independent of the build's own code (csrc/src/hip/bundle.rs): `ar` archives,
//! little-endian ELF64 (host objects and AMDGPU code objects) and clang offload bundles.
//! tests/hip_code_objects.rs checks the kernel archive with them. Malformed input panics:
//! these read test fixtures the build just wrote.

// ---------------------------------------------------------------- byte readers

/// The little-endian u16 at `off`.
pub fn u16_at(b: &[u8], off: usize) -> u16 {
    u16::from_le_bytes(b[off..off + 2].try_into().unwrap())
}
/// The little-endian u32 at `off`.
pub fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(b[off..off + 4].try_into().unwrap())
}
/// The little-endian u64 at `off`.
pub fn u64_at(b: &[u8], off: usize) -> u64 {
    u64::from_le_bytes(b[off..off + 8].try_into().unwrap())
}
/// The NUL-terminated UTF-8 string at `off`.
pub fn cstr_at(b: &[u8], off: usize) -> &str {
    let end = b[off..]
        .iter()
        .position(|&c| c == 0)
        .map_or(b.len(), |p| off + p);
    std::str::from_utf8(&b[off..end]).unwrap()
}

// ---------------------------------------------------------------- ar archive

/// (member name, contents) of a GNU/System V `ar` archive.
pub fn ar_members(data: &[u8]) -> Vec<(String, &[u8])> {
    assert_eq!(&data[..8], b"!<arch>\n", "not an ar archive");
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

/// One section of an ELF file.
pub struct Section<'a> {
    /// Its name, from the section-name string table.
    pub name: String,
    /// sh_addr.
    pub addr: u64,
    /// Its bytes (empty for SHT_NOBITS).
    pub data: &'a [u8],
    /// sh_link (the string table of a symbol table).
    pub link: usize,
    /// sh_type.
    pub kind: u32,
}

/// The parts of an ELF64 file the tests read.
pub struct Elf<'a> {
    /// e_machine.
    pub machine: u16,
    /// e_flags.
    pub flags: u32,
    /// e_ident[EI_ABIVERSION]: for AMDGPU code objects, 2 is code object v4, 3 is v5.
    pub abi_version: u8,
    /// Every section, in header order.
    pub sections: Vec<Section<'a>>,
}

/// One `.symtab` entry.
pub struct Symbol {
    /// Its name.
    pub name: String,
    /// st_value.
    pub value: u64,
    /// st_size.
    pub size: u64,
    /// st_shndx.
    pub shndx: usize,
    /// Whether its binding is STB_GLOBAL (1).
    pub global: bool,
}

/// sh_type of a symbol table.
pub const SHT_SYMTAB: u32 = 2;
/// sh_type of a note section.
pub const SHT_NOTE: u32 = 7;
/// sh_type of a section without file contents (.bss).
pub const SHT_NOBITS: u32 = 8;
/// e_machine of x86-64.
pub const EM_X86_64: u16 = 62;
/// e_machine of AMDGPU.
pub const EM_AMDGPU: u16 = 224;

/// Parses the header and section table of a little-endian ELF64 file.
pub fn parse_elf(b: &[u8]) -> Elf<'_> {
    assert_eq!(&b[..4], b"\x7fELF", "not an ELF file");
    assert_eq!(b[4], 2, "not ELF64");
    assert_eq!(b[5], 1, "not little-endian");
    let abi_version = b[8];
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
        abi_version,
        sections,
    }
}

impl<'a> Elf<'a> {
    /// The section called `name`.
    pub fn section(&self, name: &str) -> Option<&Section<'a>> {
        self.sections.iter().find(|s| s.name == name)
    }

    /// Every `.symtab` symbol.
    pub fn symbols(&self) -> Vec<Symbol> {
        let symtab = self
            .sections
            .iter()
            .find(|s| s.kind == SHT_SYMTAB)
            .expect("no .symtab");
        let strtab = self.sections[symtab.link].data;
        symtab
            .data
            .chunks_exact(24)
            .map(|e| Symbol {
                name: cstr_at(strtab, u32_at(e, 0) as usize).to_string(),
                value: u64_at(e, 8),
                size: u64_at(e, 16),
                shndx: u16_at(e, 6) as usize,
                global: e[4] >> 4 == 1,
            })
            .collect()
    }

    /// The bytes of a symbol, found through its section's address.
    pub fn symbol_bytes(&self, s: &Symbol) -> &'a [u8] {
        let section = &self.sections[s.shndx];
        let start = (s.value - section.addr) as usize;
        &section.data[start..start + s.size as usize]
    }
}

// ---------------------------------------------------------------- clang offload bundle

/// The magic of an uncompressed clang offload bundle.
pub const BUNDLE_MAGIC: &[u8] = b"__CLANG_OFFLOAD_BUNDLE__";

/// (id, contents) of each entry of one uncompressed clang offload bundle: the magic, the
/// entry count, then per entry its offset, size and id length (u64 each) and the id.
pub fn bundle_entries(b: &[u8]) -> Vec<(String, &[u8])> {
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
