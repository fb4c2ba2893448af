//! The benchmark's floor: a filter with the same per-stream callbacks as PathFence once trimmed (a stream is
//! created, its request headers seen, and it is deleted) that reads nothing and lets every request through. What
//! it costs Envoy is what any proxy-wasm filter costs on V8, before it does any work.
#![cfg(target_arch = "wasm32")]

use proxy_wasm::traits::{Context, HttpContext, RootContext};
use proxy_wasm::types::{Action, ContextType};

proxy_wasm::main! {{
    proxy_wasm::set_root_context(|_| -> Box<dyn RootContext> { Box::new(Root) });
}}

struct Root;

impl Context for Root {}

impl RootContext for Root {
    fn create_http_context(&self, _context_id: u32) -> Option<Box<dyn HttpContext>> {
        Some(Box::new(Stream))
    }

    fn get_type(&self) -> Option<ContextType> {
        Some(ContextType::HttpContext)
    }
}

struct Stream;

impl Context for Stream {}

impl HttpContext for Stream {
    fn on_http_request_headers(&mut self, _headers: usize, _end_of_stream: bool) -> Action {
        Action::Continue
    }
}
