//! `pathfence-wasm-trim <built.wasm> <trimmed.wasm>`: writes the module without the exports of the per-stream
//! callbacks the filter leaves to the proxy-wasm SDK's defaults.
//!
//! The trimmed module is written outside cargo's output folders: cargo links its own build over its output on every
//! `cargo build`, fresh or not, so a module trimmed in place would not stay trimmed.
//!
//! Why: the SDK exports every callback of the ABI, and Envoy enters the Wasm VM for each one a module exports,
//! even when it only returns `Continue`. Each entry costs a few microseconds of Envoy's CPU per request, which at
//! a saturating load was most of the filter's overhead. A callback that is not exported is skipped by the host
//! (proxy-wasm-cpp-host checks for the export before calling), so the trimmed module behaves the same with three
//! calls per request (context create, request headers, delete) instead of eight for a response with a body.

mod module;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The per-stream callbacks `src/wasm.rs` does not implement. A callback implemented there must come off this
/// list, or Envoy will never call it.
const UNUSED_CALLBACKS: [&str; 7] = [
    "proxy_on_request_body",
    "proxy_on_request_trailers",
    "proxy_on_response_headers",
    "proxy_on_response_body",
    "proxy_on_response_trailers",
    "proxy_on_log",
    // Envoy calls it right before proxy_on_delete, on which the filter's stream is dropped and releases its slot.
    "proxy_on_done",
];

/// What the filter does rely on; if one is missing, the module is not the filter (or the SDK changed its ABI).
const NEEDED_CALLBACKS: [&str; 5] =
    ["proxy_on_context_create", "proxy_on_configure", "proxy_on_tick", "proxy_on_request_headers", "proxy_on_delete"];

fn trim(input: &Path, output: &Path) -> Result<Vec<String>, String> {
    let before = std::fs::read(input).map_err(|e| format!("cannot read {}: {e}", input.display()))?;
    let (after, dropped) =
        module::without_exports(&before, &UNUSED_CALLBACKS).map_err(|e| format!("{}: {e}", input.display()))?;
    let kept: Vec<String> =
        module::exports(&after).map_err(|e| format!("the trimmed module: {e}"))?.into_iter().map(|e| e.name).collect();
    if let Some(missing) = NEEDED_CALLBACKS.iter().find(|n| !kept.iter().any(|k| k == *n)) {
        return Err(format!(
            "{} does not export {missing}: not the PathFence filter, or a proxy-wasm ABI this tool does not know",
            input.display()
        ));
    }
    // Written beside and renamed over, so that an Envoy reading the module never sees half of it.
    let tmp = output.with_extension("wasm.partial");
    std::fs::write(&tmp, &after).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, output).map_err(|e| format!("cannot replace {}: {e}", output.display()))?;
    Ok(dropped)
}

fn main() -> ExitCode {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [input, output] = args.as_slice() else {
        eprintln!("usage: pathfence-wasm-trim <built.wasm> <trimmed.wasm>");
        return ExitCode::from(2);
    };
    match trim(input, output) {
        Ok(dropped) if dropped.is_empty() => println!("{}: nothing to remove", output.display()),
        Ok(dropped) => println!("{}: without the exports of {}", output.display(), dropped.join(", ")),
        Err(e) => {
            eprintln!("pathfence-wasm-trim: {e}");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
