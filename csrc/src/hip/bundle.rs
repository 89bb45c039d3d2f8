//! Clang offload bundles, the container a HIP host object embeds in `.hip_fatbin` and the HIP
//! runtime searches for its device's code object: the magic `__CLANG_OFFLOAD_BUNDLE__`, the
//! entry count (u64), one header per entry (offset, size, id length, all u64 little-endian,
//! then the id, e.g. `hipv4-amdgcn-amd-amdhsa--gfx942`), then the contents.
//!
//! wavekit reads the bundle hipcc writes for the targets it knows and writes one that also
//! holds the code objects clang built (csrc/src/hip/clang.rs), so that every target
//! lives in the one bundle each kernel object registers.

/// The magic every uncompressed bundle starts with.
pub const MAGIC: &[u8] = b"__CLANG_OFFLOAD_BUNDLE__";

/// Where each entry's contents start: a multiple of this from the bundle's start, as
/// `clang-offload-bundler -bundle-align=4096` places them for HIP (the host object aligns the
/// section to a page, so each code object starts on a page).
pub const ALIGN: usize = 4096;

/// One entry: its id (offload kind, triple and target) and contents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// e.g. `host-x86_64-unknown-linux` or `hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-`.
    pub id: String,
    /// The code object (empty for the host entry).
    pub contents: Vec<u8>,
}

/// The id of an AMDGPU code object entry for `target` (`gfx942`, `gfx90a:xnack-`).
pub fn device_id(target: &str) -> String {
    format!("hipv4-amdgcn-amd-amdhsa--{target}")
}

/// The id of the empty host entry hipcc's bundles start with.
pub const HOST_ID: &str = "host-x86_64-unknown-linux";

fn u64_at(b: &[u8], off: usize) -> Result<u64, String> {
    b.get(off..off + 8)
        .map(|s| u64::from_le_bytes(s.try_into().expect("8 bytes")))
        .ok_or_else(|| format!("offload bundle truncated at byte {off}"))
}

/// The entries of an uncompressed bundle, in their order.
pub fn read(b: &[u8]) -> Result<Vec<Entry>, String> {
    if !b.starts_with(MAGIC) {
        return Err(
            "not a clang offload bundle (no __CLANG_OFFLOAD_BUNDLE__ magic; a \
                    compressed bundle `CCOB` is not supported)"
                .into(),
        );
    }
    let count = u64_at(b, MAGIC.len())? as usize;
    let mut off = MAGIC.len() + 8;
    let mut entries = Vec::new();
    for _ in 0..count {
        let start = u64_at(b, off)? as usize;
        let size = u64_at(b, off + 8)? as usize;
        let id_len = u64_at(b, off + 16)? as usize;
        let id = b
            .get(off + 24..off + 24 + id_len)
            .ok_or_else(|| format!("offload bundle truncated in the id at byte {off}"))?;
        let id = String::from_utf8(id.to_vec())
            .map_err(|_| format!("offload bundle entry id at byte {off} is not UTF-8"))?;
        let contents = b
            .get(start..start + size)
            .ok_or_else(|| format!("entry {id}: {size} bytes at {start} lie past the end"))?;
        entries.push(Entry {
            id,
            contents: contents.to_vec(),
        });
        off += 24 + id_len;
    }
    Ok(entries)
}

/// A bundle of `entries` in their order, each one's contents at a multiple of [`ALIGN`]
/// (an empty entry takes no space, as in clang-offload-bundler's output).
pub fn write(entries: &[Entry]) -> Vec<u8> {
    let header_len = MAGIC.len() + 8 + entries.iter().map(|e| 24 + e.id.len()).sum::<usize>();
    let align = |n: usize| n.div_ceil(ALIGN) * ALIGN;
    let mut offsets = Vec::with_capacity(entries.len());
    let mut end = align(header_len);
    for e in entries {
        offsets.push(end);
        end = align(end + e.contents.len());
    }
    let mut out = Vec::with_capacity(end);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    for (e, &start) in entries.iter().zip(&offsets) {
        out.extend_from_slice(&(start as u64).to_le_bytes());
        out.extend_from_slice(&(e.contents.len() as u64).to_le_bytes());
        out.extend_from_slice(&(e.id.len() as u64).to_le_bytes());
        out.extend_from_slice(e.id.as_bytes());
    }
    for (e, &start) in entries.iter().zip(&offsets) {
        out.resize(start, 0);
        out.extend_from_slice(&e.contents);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bundle clang-offload-bundler 15 wrote for a host entry and one 5-byte code object
    /// (`-type=o -bundle-align=4096`), laid out by hand from its format.
    fn bundler_layout() -> Vec<u8> {
        let mut b = b"__CLANG_OFFLOAD_BUNDLE__".to_vec();
        b.extend_from_slice(&2u64.to_le_bytes());
        b.extend_from_slice(&4096u64.to_le_bytes());
        b.extend_from_slice(&0u64.to_le_bytes());
        b.extend_from_slice(&25u64.to_le_bytes());
        b.extend_from_slice(b"host-x86_64-unknown-linux");
        b.extend_from_slice(&4096u64.to_le_bytes());
        b.extend_from_slice(&5u64.to_le_bytes());
        b.extend_from_slice(&31u64.to_le_bytes());
        b.extend_from_slice(b"hipv4-amdgcn-amd-amdhsa--gfx90a");
        b.resize(4096, 0);
        b.extend_from_slice(b"\x7fELF!");
        b
    }

    #[test]
    fn reads_the_bundlers_layout() {
        let entries = read(&bundler_layout()).unwrap();
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].id, "host-x86_64-unknown-linux");
        assert!(entries[0].contents.is_empty());
        assert_eq!(entries[1].id, "hipv4-amdgcn-amd-amdhsa--gfx90a");
        assert_eq!(entries[1].contents, b"\x7fELF!");
    }

    #[test]
    fn writes_the_bundlers_layout() {
        let entries = vec![
            Entry {
                id: HOST_ID.into(),
                contents: vec![],
            },
            Entry {
                id: device_id("gfx90a"),
                contents: b"\x7fELF!".to_vec(),
            },
        ];
        assert_eq!(write(&entries), bundler_layout());
    }

    #[test]
    fn an_appended_entry_starts_on_the_next_page() {
        let mut entries = read(&bundler_layout()).unwrap();
        entries.push(Entry {
            id: device_id("gfx942"),
            contents: vec![7; 4097],
        });
        let b = write(&entries);
        // Third header: after the magic, the count and two headers of 24 + 25 and 24 + 31.
        let third = 24 + 8 + (24 + 25) + (24 + 31);
        assert_eq!(
            u64_at(&b, third).unwrap(),
            8192,
            "offset of the third entry"
        );
        assert_eq!(u64_at(&b, third + 8).unwrap(), 4097);
        assert_eq!(
            &b[third + 24..third + 24 + 31],
            b"hipv4-amdgcn-amd-amdhsa--gfx942"
        );
        assert_eq!(b.len(), 8192 + 4097);
        assert_eq!(read(&b).unwrap(), entries);
    }

    #[test]
    fn bad_bundles_are_errors() {
        assert!(read(b"CCOB").unwrap_err().contains("compressed"));
        let mut b = bundler_layout();
        b.truncate(4098);
        assert!(read(&b).unwrap_err().contains("past the end"));
        assert!(read(&b[..40]).unwrap_err().contains("truncated"));
    }
}
