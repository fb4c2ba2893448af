//! Just enough of the WebAssembly binary format to drop entries from a module's export section.
//!
//! Only the export section is rewritten; every other section, custom sections included, is copied byte for byte.
//! Removing an export changes no index, so nothing else in the module needs to follow.

use std::fmt;

const HEADER: [u8; 8] = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
const EXPORT_SECTION: u8 = 7;
const FUNCTION_EXPORT: u8 = 0;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Malformed(pub String);

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not a WebAssembly 1.0 module: {}", self.0)
    }
}

/// One entry of the export section, with its bytes as they stand in the module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Export {
    pub name: String,
    pub kind: u8,
    bytes: Vec<u8>,
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn byte(&mut self) -> Result<u8, Malformed> {
        let b = *self.bytes.get(self.at).ok_or_else(|| Malformed(format!("ends early at byte {}", self.at)))?;
        self.at += 1;
        Ok(b)
    }

    fn u32(&mut self) -> Result<u32, Malformed> {
        let mut value: u64 = 0;
        for shift in (0..35).step_by(7) {
            let b = self.byte()?;
            value |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return u32::try_from(value).map_err(|_| Malformed(format!("integer too large at byte {}", self.at)));
            }
        }
        Err(Malformed(format!("integer longer than 5 bytes at byte {}", self.at)))
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], Malformed> {
        let end = self.at.checked_add(n).filter(|e| *e <= self.bytes.len());
        let end = end.ok_or_else(|| Malformed(format!("a length at byte {} runs past the end", self.at)))?;
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }

    fn done(&self) -> bool {
        self.at >= self.bytes.len()
    }
}

fn write_u32(out: &mut Vec<u8>, mut n: u32) {
    loop {
        let b = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

fn parse_exports(section: &[u8]) -> Result<Vec<Export>, Malformed> {
    let mut r = Reader { bytes: section, at: 0 };
    let count = r.u32()?;
    let mut exports = Vec::new();
    for _ in 0..count {
        let start = r.at;
        let len = r.u32()? as usize;
        let name = String::from_utf8(r.take(len)?.to_vec()).map_err(|_| Malformed("an export name is not UTF-8".into()))?;
        let kind = r.byte()?;
        r.u32()?;
        exports.push(Export { name, kind, bytes: section[start..r.at].to_vec() });
    }
    if !r.done() {
        return Err(Malformed("bytes left over after the export section's entries".into()));
    }
    Ok(exports)
}

/// The module's exports, in order.
pub fn exports(module: &[u8]) -> Result<Vec<Export>, Malformed> {
    let mut found = Vec::new();
    for_each_section(module, |id, body| {
        if id == EXPORT_SECTION {
            found = parse_exports(body)?;
        }
        Ok(())
    })?;
    Ok(found)
}

/// The module without the function exports named in `drop`, and the names it dropped. A name that is not a
/// function export of the module is left alone (the module may be trimmed already).
pub fn without_exports(module: &[u8], drop: &[&str]) -> Result<(Vec<u8>, Vec<String>), Malformed> {
    let mut out = HEADER.to_vec();
    let mut dropped = Vec::new();
    for_each_section(module, |id, body| {
        let rewritten;
        let body = if id == EXPORT_SECTION {
            let (kept, gone): (Vec<Export>, Vec<Export>) = parse_exports(body)?
                .into_iter()
                .partition(|e| e.kind != FUNCTION_EXPORT || !drop.contains(&e.name.as_str()));
            dropped.extend(gone.into_iter().map(|e| e.name));
            let mut section = Vec::new();
            write_u32(&mut section, kept.len() as u32);
            for e in &kept {
                section.extend_from_slice(&e.bytes);
            }
            rewritten = section;
            &rewritten[..]
        } else {
            body
        };
        out.push(id);
        write_u32(&mut out, u32::try_from(body.len()).map_err(|_| Malformed("a section over 4 GiB".into()))?);
        out.extend_from_slice(body);
        Ok(())
    })?;
    Ok((out, dropped))
}

fn for_each_section(
    module: &[u8],
    mut visit: impl FnMut(u8, &[u8]) -> Result<(), Malformed>,
) -> Result<(), Malformed> {
    let mut r = Reader { bytes: module, at: 0 };
    if r.take(HEADER.len()).ok() != Some(&HEADER[..]) {
        return Err(Malformed("no wasm magic number and version 1".into()));
    }
    while !r.done() {
        let id = r.byte()?;
        let len = r.u32()? as usize;
        visit(id, r.take(len)?)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A module with a type, a function, a memory and a custom section, exporting the function under `names`
    /// and the memory as `memory`.
    fn module(names: &[&str]) -> Vec<u8> {
        let mut m = HEADER.to_vec();
        m.extend_from_slice(&[1, 4, 1, 0x60, 0, 0]); // type section: () -> ()
        m.extend_from_slice(&[3, 2, 1, 0]); // function section: one function of type 0
        m.extend_from_slice(&[5, 3, 1, 0, 1]); // memory section: one memory, min 1 page
        let mut exports = Vec::new();
        write_u32(&mut exports, names.len() as u32 + 1);
        for name in names {
            write_u32(&mut exports, name.len() as u32);
            exports.extend_from_slice(name.as_bytes());
            exports.extend_from_slice(&[FUNCTION_EXPORT, 0]);
        }
        exports.extend_from_slice(&[6]);
        exports.extend_from_slice(b"memory");
        exports.extend_from_slice(&[2, 0]);
        m.push(EXPORT_SECTION);
        write_u32(&mut m, exports.len() as u32);
        m.extend_from_slice(&exports);
        m.extend_from_slice(&[10, 4, 1, 2, 0, 0x0b]); // code section: an empty body
        m.extend_from_slice(&[0, 5, 4, b'n', b'o', b't', b'e']); // custom section "note", empty
        m
    }

    fn names(module: &[u8]) -> Vec<String> {
        exports(module).unwrap().into_iter().map(|e| e.name).collect()
    }

    #[test]
    fn drops_only_the_named_function_exports_and_keeps_every_other_section() {
        let before = module(&["proxy_on_log", "proxy_on_done", "proxy_on_response_body"]);
        let (after, dropped) = without_exports(&before, &["proxy_on_log", "proxy_on_response_body", "memory"]).unwrap();
        assert_eq!(dropped, vec!["proxy_on_log", "proxy_on_response_body"]);
        assert_eq!(names(&after), vec!["proxy_on_done", "memory"]);
        assert!(after.ends_with(&[0, 5, 4, b'n', b'o', b't', b'e']), "the custom section is kept");
        assert_eq!(after.len(), before.len() - 2 * 2 - "proxy_on_log".len() - "proxy_on_response_body".len() - 2);
    }

    #[test]
    fn trimming_twice_changes_nothing_more() {
        let (once, _) = without_exports(&module(&["a", "b"]), &["a"]).unwrap();
        let (twice, dropped) = without_exports(&once, &["a"]).unwrap();
        assert_eq!(twice, once);
        assert!(dropped.is_empty());
    }

    #[test]
    fn long_section_lengths_round_trip() {
        let many: Vec<String> = (0..40).map(|i| format!("proxy_on_callback_number_{i}")).collect();
        let refs: Vec<&str> = many.iter().map(String::as_str).collect();
        let (after, dropped) = without_exports(&module(&refs), &refs[..30]).unwrap();
        assert_eq!(dropped.len(), 30);
        assert_eq!(names(&after)[..10], many[30..]);
    }

    #[test]
    fn refuses_what_is_not_a_module() {
        assert!(without_exports(b"\x7fELF....", &[]).unwrap_err().0.contains("magic"));
        let mut cut = module(&["a"]);
        cut.truncate(cut.len() - 3);
        assert!(without_exports(&cut, &[]).unwrap_err().0.contains("past the end"));
    }
}
