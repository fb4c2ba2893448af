//! The benchmark's floors: a filter with the same per-stream callbacks as PathFence once trimmed (a stream is
//! created, its request headers seen, and it is deleted) that lets every request through. Configured with nothing,
//! it reads nothing: what it costs Envoy is what any proxy-wasm filter costs on V8, before it does any work.
//! Configured with `read-path`, it also reads the `:path` header, as any filter that tells requests apart by their
//! path must: the floor of a classifying filter.
#![cfg(target_arch = "wasm32")]

use proxy_wasm::hostcalls;
use proxy_wasm::traits::{Context, HttpContext, RootContext};
use proxy_wasm::types::{Action, BufferType, ContextType};

proxy_wasm::main! {{
    proxy_wasm::set_root_context(|_| -> Box<dyn RootContext> { Box::new(Root { read_path: false }) });
}}

struct Root {
    read_path: bool,
}

impl Context for Root {}

impl RootContext for Root {
    fn on_configure(&mut self, _size: usize) -> bool {
        let config = hostcalls::get_buffer(BufferType::PluginConfiguration, 0, usize::MAX).ok().flatten();
        self.read_path = config.as_deref().is_some_and(|c| c.trim_ascii() == b"read-path");
        true
    }

    fn create_http_context(&self, _context_id: u32) -> Option<Box<dyn HttpContext>> {
        Some(Box::new(Stream { read_path: self.read_path }))
    }

    fn get_type(&self) -> Option<ContextType> {
        Some(ContextType::HttpContext)
    }
}

struct Stream {
    read_path: bool,
}

impl Context for Stream {}

impl HttpContext for Stream {
    fn on_http_request_headers(&mut self, _headers: usize, _end_of_stream: bool) -> Action {
        if self.read_path {
            // A hostcall, and Envoy calling back into the module to allocate the value: it cannot be left out.
            std::hint::black_box(self.get_http_request_header(":path"));
        }
        Action::Continue
    }
}
