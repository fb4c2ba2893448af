//! Dropping entries from a module's export section, with the Bytecode Alliance's wasmparser to read the module
//! and wasm-encoder to write it.
//!
//! Only the export section is rewritten, and the entries it keeps are copied byte for byte; every other section,
//! custom sections included, is copied as it is. Removing an export changes no index, so nothing else in the
//! module needs to follow.

use std::ops::Range;

use wasm_encoder::{Encode, Module, RawSection};
use wasmparser::{BinaryReaderError, ExternalKind, Parser, Payload};

const EXPORT_SECTION: u8 = 7;

/// One entry of the export section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Export {
    pub name: String,
    pub is_function: bool,
    /// Where the entry's bytes are in the module.
    bytes: Range<usize>,
}

/// wasmparser gives offsets as u64; the module is in memory, so they fit.
fn at(offset: u64) -> usize {
    offset as usize
}

fn read_exports(reader: wasmparser::ExportSectionReader<'_>) -> Result<Vec<Export>, BinaryReaderError> {
    let end = at(reader.range().end);
    let mut entries: Vec<(usize, wasmparser::Export<'_>)> = Vec::new();
    for entry in reader.into_iter_with_offsets() {
        let (offset, export) = entry?;
        entries.push((at(offset), export));
    }
    let starts: Vec<usize> = entries.iter().map(|(at, _)| *at).chain([end]).collect();
    Ok(entries
        .iter()
        .zip(starts.windows(2))
        .map(|((_, e), span)| Export {
            name: e.name.to_string(),
            is_function: matches!(e.kind, ExternalKind::Func | ExternalKind::FuncExact),
            bytes: span[0]..span[1],
        })
        .collect())
}

/// The module's exports, in order.
pub fn exports(module: &[u8]) -> Result<Vec<Export>, BinaryReaderError> {
    for payload in Parser::new(0).parse_all(module) {
        if let Payload::ExportSection(reader) = payload? {
            return read_exports(reader);
        }
    }
    Ok(Vec::new())
}

/// The module without the function exports named in `drop`, and the names it dropped. A name that is not a
/// function export of the module is left alone (the module may be trimmed already).
pub fn without_exports(module: &[u8], drop: &[&str]) -> Result<(Vec<u8>, Vec<String>), BinaryReaderError> {
    let mut out = Module::new();
    let mut dropped = Vec::new();
    for payload in Parser::new(0).parse_all(module) {
        match payload? {
            Payload::ExportSection(reader) => {
                let (gone, kept): (Vec<Export>, Vec<Export>) =
                    read_exports(reader)?.into_iter().partition(|e| e.is_function && drop.contains(&e.name.as_str()));
                dropped.extend(gone.into_iter().map(|e| e.name));
                let mut data = Vec::new();
                (kept.len() as u32).encode(&mut data);
                for e in &kept {
                    data.extend_from_slice(&module[e.bytes.clone()]);
                }
                out.section(&RawSection { id: EXPORT_SECTION, data: &data });
            }
            other => {
                if let Some((id, range)) = other.as_section() {
                    out.section(&RawSection { id, data: &module[at(range.start)..at(range.end)] });
                }
            }
        }
    }
    Ok((out.finish(), dropped))
}

#[cfg(test)]
mod tests {
    use super::*;

    use wasm_encoder::{
        CodeSection, CustomSection, ExportKind, ExportSection, Function, FunctionSection, MemorySection, MemoryType,
        TypeSection,
    };

    /// A module with a type, a function, a memory and a custom section, exporting the function under `names`
    /// and the memory as `memory`.
    fn module(names: &[&str]) -> Vec<u8> {
        let mut m = Module::new();
        let mut types = TypeSection::new();
        types.ty().function([], []);
        m.section(&types);
        let mut functions = FunctionSection::new();
        functions.function(0);
        m.section(&functions);
        let mut memories = MemorySection::new();
        memories.memory(MemoryType { minimum: 1, maximum: None, memory64: false, shared: false, page_size_log2: None });
        m.section(&memories);
        let mut exports = ExportSection::new();
        for name in names {
            exports.export(name, ExportKind::Func, 0);
        }
        exports.export("memory", ExportKind::Memory, 0);
        m.section(&exports);
        let mut code = CodeSection::new();
        let mut body = Function::new([]);
        body.instructions().end();
        code.function(&body);
        m.section(&code);
        m.section(&CustomSection { name: "note".into(), data: b"kept".as_slice().into() });
        m.finish()
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
        assert!(after.ends_with(b"notekept"), "the custom section is kept");
        // Each entry is its name's length byte, the name, the kind and the index.
        assert_eq!(before.len() - after.len(), "proxy_on_log".len() + "proxy_on_response_body".len() + 2 * 3);
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
        assert!(without_exports(b"\x7fELF....", &[]).is_err());
        let mut cut = module(&["a"]);
        cut.truncate(cut.len() - 3);
        assert!(without_exports(&cut, &[]).is_err());
    }
}
