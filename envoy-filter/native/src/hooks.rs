//! The event hooks Envoy calls (`envoy_dynamic_module_on_*`), as `abi.h` declares them (see [`crate::abi`]). Envoy
//! refuses a module that lacks one of the HTTP filter hooks it requires, so every one is here, including those for
//! features the module does not use (callouts, scheduling, watermarks), which do nothing.
//!
//! Envoy calls the configuration hooks on its main thread and the stream hooks on the worker thread that owns the
//! stream; a configuration outlives the streams created from it.

use std::ffi::{c_char, c_void};
use std::ptr;

use crate::abi::{
    EnvoyBuffer, FilterConfigEnvoyPtr, FilterEnvoyPtr, FilterStatus, ModuleBuffer, ModuleHttpHeader, CONTINUE,
    LOG_ERROR, LOG_INFO, METRICS_SUCCESS, REQUEST_HEADER, RESPONSE_HEADER, STOP_ITERATION,
};
use std::rc::Rc;

use pathfence_envoy_filter::runtime;

use crate::fence::{Fence, FenceConfig, FenceStream};
use crate::probe::{ProbeConfig, Verdict};
use crate::{build_id, compat, host, logger};

/// The filters this module provides (the `filter_name` of the Envoy configuration): the fence, and the probe that
/// measures what any native filter costs.
pub const PATHFENCE: &str = "pathfence";
pub const PROBE: &str = "probe";

enum FilterConfig {
    Fence(FenceConfig),
    Probe {
        probe: ProbeConfig,
        /// The id of the `requests` counter, when the probe counts.
        requests: Option<usize>,
    },
}

enum Stream {
    Fence(FenceStream),
    Probe {
        config: *const FilterConfig,
        /// The request's path, kept only when a response header is to carry it.
        path: Vec<u8>,
    },
}

#[no_mangle]
pub extern "C" fn envoy_dynamic_module_on_program_init() -> *const c_char {
    let missing = match host::resolve() {
        Ok(_) => Vec::new(),
        Err(missing) => missing,
    };
    let revision = build_id::main_program();
    match (compat::judge(compat::ABI_VERSION, revision.as_deref(), &missing), compat::abi_version_c()) {
        (Ok(build), Some(version)) => {
            logger::install();
            host::log(
                LOG_INFO,
                &format!(
                    "pathfence-native: built against the dynamic-modules ABI {}, running in Envoy {} (revision {})",
                    compat::ABI_VERSION,
                    build.version,
                    build.revision
                ),
            );
            version.as_ptr()
        }
        (Err(why), _) => {
            host::log(LOG_ERROR, &why);
            ptr::null()
        }
        (Ok(_), None) => {
            host::log(LOG_ERROR, "pathfence-native: not loading: its ABI version string holds a NUL byte");
            ptr::null()
        }
    }
}

/// # Safety
/// Envoy passes its configuration object and two buffers valid for the call.
#[no_mangle]
pub unsafe extern "C" fn envoy_dynamic_module_on_http_filter_config_new(
    config_envoy: FilterConfigEnvoyPtr,
    name: EnvoyBuffer,
    config: EnvoyBuffer,
) -> *const c_void {
    let Some(callbacks) = host::callbacks() else { return ptr::null() };
    let name = String::from_utf8_lossy(name.bytes());
    let made = match name.as_ref() {
        PATHFENCE => FenceConfig::new(callbacks, config_envoy, config.bytes()).map(FilterConfig::Fence),
        PROBE => probe_config(callbacks, config_envoy, config.bytes()),
        _ => {
            Err(format!("pathfence-native: unknown filter_name `{name}`: this module has `{PATHFENCE}` and `{PROBE}`"))
        }
    };
    match made {
        Ok(made) => Box::into_raw(Box::new(made)).cast_const().cast::<c_void>(),
        Err(why) => {
            host::log(LOG_ERROR, &why);
            ptr::null()
        }
    }
}

unsafe fn probe_config(
    callbacks: &host::Callbacks,
    config_envoy: FilterConfigEnvoyPtr,
    config: &[u8],
) -> Result<FilterConfig, String> {
    let probe = ProbeConfig::parse(config).map_err(|why| format!("pathfence-native: {why}"))?;
    let requests = if probe.count_requests {
        let mut id = 0usize;
        let result =
            (callbacks.define_counter)(config_envoy, ModuleBuffer::of(b"requests"), ptr::null_mut(), 0, &mut id);
        if result != METRICS_SUCCESS {
            return Err(format!("pathfence-native: cannot define the counter `requests` (result {result})"));
        }
        Some(id)
    } else {
        None
    };
    Ok(FilterConfig::Probe { probe, requests })
}

/// # Safety
/// `config` is a pointer returned by `envoy_dynamic_module_on_http_filter_config_new`, destroyed once.
#[no_mangle]
pub unsafe extern "C" fn envoy_dynamic_module_on_http_filter_config_destroy(config: *const c_void) {
    if !config.is_null() {
        let config = Box::from_raw(config.cast_mut().cast::<FilterConfig>());
        if let FilterConfig::Fence(fence) = config.as_ref() {
            fence.gone();
        }
    }
}

/// Per-route configuration is not supported: returning null makes Envoy refuse one.
#[no_mangle]
pub extern "C" fn envoy_dynamic_module_on_http_filter_per_route_config_new(
    _name: EnvoyBuffer,
    _config: EnvoyBuffer,
) -> *const c_void {
    host::log(LOG_ERROR, "pathfence-native: per-route configuration is not supported");
    ptr::null()
}

#[no_mangle]
pub extern "C" fn envoy_dynamic_module_on_http_filter_per_route_config_destroy(_config: *const c_void) {}

/// # Safety
/// `config` is a live pointer returned by `envoy_dynamic_module_on_http_filter_config_new`.
#[no_mangle]
pub unsafe extern "C" fn envoy_dynamic_module_on_http_filter_new(
    config: *const c_void,
    filter: FilterEnvoyPtr,
) -> *const c_void {
    let (Some(callbacks), Some(filter_config)) = (host::callbacks(), config.cast::<FilterConfig>().as_ref()) else {
        return ptr::null();
    };
    let stream = match filter_config {
        FilterConfig::Fence(fence_config) => match Fence::of(callbacks, fence_config, filter) {
            Some(fence) => Stream::Fence(fence.open(filter)),
            None => return ptr::null(),
        },
        FilterConfig::Probe { .. } => Stream::Probe { config: config.cast::<FilterConfig>(), path: Vec::new() },
    };
    Box::into_raw(Box::new(stream)).cast_const().cast::<c_void>()
}

/// # Safety
/// `stream` is a live pointer returned by `envoy_dynamic_module_on_http_filter_new` for `filter`, used by one
/// thread at a time.
#[no_mangle]
pub unsafe extern "C" fn envoy_dynamic_module_on_http_filter_request_headers(
    filter: FilterEnvoyPtr,
    stream: *const c_void,
    _end_of_stream: bool,
) -> FilterStatus {
    let (Some(callbacks), Some(stream)) = (host::callbacks(), stream.cast_mut().cast::<Stream>().as_mut()) else {
        return CONTINUE;
    };
    let (config, kept_path) = match stream {
        Stream::Fence(stream) => {
            // The fence and the id are held apart from the stream: the stream may be destroyed, and freed, while the
            // runtime acts.
            let (fence, id) = (Rc::clone(stream.fence()), stream.id());
            return match fence.on_request(id, filter) {
                runtime::Headers::Continue => CONTINUE,
                runtime::Headers::Stop => STOP_ITERATION,
            };
        }
        Stream::Probe { config, path } => (&**config, path),
    };
    let FilterConfig::Probe { probe, requests } = config else { return CONTINUE };
    let mut value = EnvoyBuffer::EMPTY;
    let found =
        (callbacks.get_header)(filter, REQUEST_HEADER, ModuleBuffer::of(b":path"), &mut value, 0, ptr::null_mut());
    let path = if found { value.bytes() } else { &[] };
    std::hint::black_box(path);
    if let Some(id) = requests {
        (callbacks.increment_counter)(filter, *id, ptr::null_mut(), 0, 1);
    }
    match probe.verdict(path) {
        Verdict::Refuse => {
            let mut headers = [ModuleHttpHeader::of(b"x-pathfence-path", b"probe")];
            (callbacks.send_response)(
                filter,
                503,
                headers.as_mut_ptr(),
                headers.len(),
                ModuleBuffer::of(b"refused by pathfence-native\n"),
                ModuleBuffer::of(b"pathfence_native_refused"),
            );
            STOP_ITERATION
        }
        Verdict::Pass => {
            if probe.path_header.is_some() {
                *kept_path = path.to_vec();
            }
            CONTINUE
        }
    }
}

/// # Safety
/// As for `envoy_dynamic_module_on_http_filter_request_headers`.
#[no_mangle]
pub unsafe extern "C" fn envoy_dynamic_module_on_http_filter_response_headers(
    filter: FilterEnvoyPtr,
    stream: *const c_void,
    _end_of_stream: bool,
) -> FilterStatus {
    let (Some(callbacks), Some(Stream::Probe { config, path })) = (host::callbacks(), stream.cast::<Stream>().as_ref())
    else {
        return CONTINUE;
    };
    if let Some(FilterConfig::Probe { probe: ProbeConfig { path_header: Some(name), .. }, .. }) = config.as_ref() {
        (callbacks.set_header)(filter, RESPONSE_HEADER, ModuleBuffer::of(name.as_bytes()), ModuleBuffer::of(path));
    }
    CONTINUE
}

/// # Safety
/// `stream` is a pointer returned by `envoy_dynamic_module_on_http_filter_new`, destroyed once.
#[no_mangle]
pub unsafe extern "C" fn envoy_dynamic_module_on_http_filter_destroy(stream: *const c_void) {
    if stream.is_null() {
        return;
    }
    let stream = Box::from_raw(stream.cast_mut().cast::<Stream>());
    if let Stream::Fence(stream) = stream.as_ref() {
        stream.fence().close(stream);
    }
}

#[no_mangle]
pub extern "C" fn envoy_dynamic_module_on_http_filter_request_body(
    _filter: FilterEnvoyPtr,
    _stream: *const c_void,
    _end_of_stream: bool,
) -> FilterStatus {
    CONTINUE
}

#[no_mangle]
pub extern "C" fn envoy_dynamic_module_on_http_filter_request_trailers(
    _filter: FilterEnvoyPtr,
    _stream: *const c_void,
) -> FilterStatus {
    CONTINUE
}

#[no_mangle]
pub extern "C" fn envoy_dynamic_module_on_http_filter_response_body(
    _filter: FilterEnvoyPtr,
    _stream: *const c_void,
    _end_of_stream: bool,
) -> FilterStatus {
    CONTINUE
}

#[no_mangle]
pub extern "C" fn envoy_dynamic_module_on_http_filter_response_trailers(
    _filter: FilterEnvoyPtr,
    _stream: *const c_void,
) -> FilterStatus {
    CONTINUE
}

#[no_mangle]
pub extern "C" fn envoy_dynamic_module_on_http_filter_stream_complete(_filter: FilterEnvoyPtr, _stream: *const c_void) {
}

#[no_mangle]
pub extern "C" fn envoy_dynamic_module_on_http_filter_local_reply(
    _filter: FilterEnvoyPtr,
    _stream: *const c_void,
    _response_code: u32,
    _details: EnvoyBuffer,
    _reset_imminent: bool,
) -> FilterStatus {
    CONTINUE
}

/// # Safety
/// `stream` is a live pointer returned by `envoy_dynamic_module_on_http_filter_new` for `filter` (Envoy calls this
/// only while the stream is there).
#[no_mangle]
pub unsafe extern "C" fn envoy_dynamic_module_on_http_filter_scheduled(
    filter: FilterEnvoyPtr,
    stream: *const c_void,
    _event_id: u64,
) {
    if let Some(Stream::Fence(stream)) = stream.cast::<Stream>().as_ref() {
        // Held apart from the stream, which the tick may end.
        let fence = Rc::clone(stream.fence());
        fence.on_tick(filter);
    }
}

#[no_mangle]
pub extern "C" fn envoy_dynamic_module_on_http_filter_downstream_above_write_buffer_high_watermark(
    _filter: FilterEnvoyPtr,
    _stream: *const c_void,
) {
}

#[no_mangle]
pub extern "C" fn envoy_dynamic_module_on_http_filter_downstream_below_write_buffer_low_watermark(
    _filter: FilterEnvoyPtr,
    _stream: *const c_void,
) {
}

#[no_mangle]
pub extern "C" fn envoy_dynamic_module_on_http_filter_http_callout_done(
    _filter: FilterEnvoyPtr,
    _stream: *const c_void,
    _callout_id: u64,
    _result: u32,
    _headers: *mut c_void,
    _headers_size: usize,
    _body_chunks: *mut EnvoyBuffer,
    _body_chunks_size: usize,
) {
}

#[no_mangle]
pub extern "C" fn envoy_dynamic_module_on_http_filter_http_stream_headers(
    _filter: FilterEnvoyPtr,
    _stream: *const c_void,
    _stream_id: u64,
    _headers: *mut c_void,
    _headers_size: usize,
    _end_stream: bool,
) {
}

#[no_mangle]
pub extern "C" fn envoy_dynamic_module_on_http_filter_http_stream_data(
    _filter: FilterEnvoyPtr,
    _stream: *const c_void,
    _stream_id: u64,
    _data: *const EnvoyBuffer,
    _data_count: usize,
    _end_stream: bool,
) {
}

#[no_mangle]
pub extern "C" fn envoy_dynamic_module_on_http_filter_http_stream_trailers(
    _filter: FilterEnvoyPtr,
    _stream: *const c_void,
    _stream_id: u64,
    _trailers: *mut c_void,
    _trailers_size: usize,
) {
}

#[no_mangle]
pub extern "C" fn envoy_dynamic_module_on_http_filter_http_stream_complete(
    _filter: FilterEnvoyPtr,
    _stream: *const c_void,
    _stream_id: u64,
) {
}

#[no_mangle]
pub extern "C" fn envoy_dynamic_module_on_http_filter_http_stream_reset(
    _filter: FilterEnvoyPtr,
    _stream: *const c_void,
    _stream_id: u64,
    _reason: u32,
) {
}
