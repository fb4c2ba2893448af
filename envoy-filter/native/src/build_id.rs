//! The GNU build id of the program this module is loaded into, read from its ELF notes in memory.
//!
//! Envoy's release builds carry their source revision (the git commit) as the build id: `envoy --version` prints
//! it first, and `file` shows the same value as `BuildID`. The revision decides which ABI header Envoy was built
//! with, so it is what [`crate::compat`] checks the module against.

use std::ffi::{c_int, c_void};

const NT_GNU_BUILD_ID: u32 = 3;

/// The main program's build id as lowercase hex, or `None` if it has none (or it cannot be read).
pub fn main_program() -> Option<String> {
    let mut found: Option<Vec<u8>> = None;
    // SAFETY: the callback only reads the program headers glibc hands it, for the duration of the call.
    unsafe { libc::dl_iterate_phdr(Some(first_object), (&mut found as *mut Option<Vec<u8>>).cast::<c_void>()) };
    found.map(|id| id.iter().map(|b| format!("{b:02x}")).collect())
}

/// Called for each loaded object, the main program first: reads its build id and stops the iteration.
unsafe extern "C" fn first_object(info: *mut libc::dl_phdr_info, _size: usize, data: *mut c_void) -> c_int {
    let found = &mut *data.cast::<Option<Vec<u8>>>();
    let info = &*info;
    if info.dlpi_phdr.is_null() {
        return 1;
    }
    let headers = std::slice::from_raw_parts(info.dlpi_phdr, usize::from(info.dlpi_phnum));
    for header in headers.iter().filter(|h| h.p_type == libc::PT_NOTE) {
        let start = (info.dlpi_addr as usize).wrapping_add(header.p_vaddr as usize) as *const u8;
        let notes = std::slice::from_raw_parts(start, header.p_memsz as usize);
        if let Some(id) = build_id_in(notes) {
            *found = Some(id.to_vec());
            break;
        }
    }
    // Non-zero: the main program is the only object of interest.
    1
}

/// The descriptor of the `GNU` note of type `NT_GNU_BUILD_ID` among ELF notes (each a 12-byte header, then the
/// name and the descriptor, both padded to 4 bytes).
fn build_id_in(mut notes: &[u8]) -> Option<&[u8]> {
    let word = |b: &[u8], at: usize| b.get(at..at + 4).map(|w| u32::from_ne_bytes([w[0], w[1], w[2], w[3]]));
    let padded = |n: usize| n.checked_add(3).map(|n| n & !3);
    while notes.len() >= 12 {
        let (name_size, desc_size, kind) = (word(notes, 0)? as usize, word(notes, 4)? as usize, word(notes, 8)?);
        let desc_at = 12usize.checked_add(padded(name_size)?)?;
        let end = desc_at.checked_add(padded(desc_size)?)?;
        let name = notes.get(12..12 + name_size)?;
        let desc = notes.get(desc_at..desc_at + desc_size)?;
        if kind == NT_GNU_BUILD_ID && name == b"GNU\0" {
            return Some(desc);
        }
        notes = notes.get(end..)?;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(name: &[u8], kind: u32, desc: &[u8]) -> Vec<u8> {
        let mut n = Vec::new();
        n.extend((name.len() as u32).to_ne_bytes());
        n.extend((desc.len() as u32).to_ne_bytes());
        n.extend(kind.to_ne_bytes());
        n.extend(name);
        n.resize(n.len().next_multiple_of(4), 0);
        n.extend(desc);
        n.resize(n.len().next_multiple_of(4), 0);
        n
    }

    #[test]
    fn finds_the_gnu_build_id_among_other_notes() {
        let mut notes = note(b"GNU\0", 1, &[0; 16]);
        notes.extend(note(b"Xen\0", NT_GNU_BUILD_ID, &[7; 20]));
        notes.extend(note(b"GNU\0", NT_GNU_BUILD_ID, &[0x9e, 0x55, 0x80]));
        assert_eq!(build_id_in(&notes), Some(&[0x9e, 0x55, 0x80][..]));
    }

    #[test]
    fn truncated_or_missing_notes_give_none() {
        let notes = note(b"GNU\0", NT_GNU_BUILD_ID, &[1; 20]);
        assert_eq!(build_id_in(&notes[..notes.len() - 4]), None);
        assert_eq!(build_id_in(&note(b"GNU\0", 1, &[1; 20])), None);
        assert_eq!(build_id_in(&[]), None);
    }

    /// The test program itself is linked with a build id by default on Linux: the reader finds the same one that
    /// the file's notes hold.
    #[test]
    fn reads_this_programs_build_id() {
        let id = main_program().expect("the test binary has a build id");
        assert!(id.len() >= 16 && id.chars().all(|c| c.is_ascii_hexdigit()), "{id}");
        let exe = std::fs::read("/proc/self/exe").unwrap();
        let hex: Vec<u8> = (0..id.len()).step_by(2).map(|i| u8::from_str_radix(&id[i..i + 2], 16).unwrap()).collect();
        assert!(exe.windows(hex.len()).any(|w| w == hex.as_slice()), "build id {id} not in the executable's bytes");
    }
}
