//! The Envoy callbacks this module calls, resolved once in the Envoy process when the module is loaded.

use std::ffi::{c_void, CStr};
use std::sync::OnceLock;

use crate::abi::{
    ChangeGaugeFn, ContinueDecodingFn, DefineCounterFn, DefineGaugeFn, GetHeaderFn, IncrementCounterFn, LogFn,
    LogLevel, ModuleBuffer, SchedulerCommitFn, SchedulerDeleteFn, SchedulerNewFn, SendResponseFn, SetHeaderFn,
};

/// Every callback the module uses. Built only when all of them are exported by the process, so that a call
/// through it can never hit a missing symbol.
pub struct Callbacks {
    pub log: LogFn,
    pub get_header: GetHeaderFn,
    pub set_header: SetHeaderFn,
    pub send_response: SendResponseFn,
    pub define_counter: DefineCounterFn,
    pub increment_counter: IncrementCounterFn,
    pub define_gauge: DefineGaugeFn,
    pub increment_gauge: ChangeGaugeFn,
    pub decrement_gauge: ChangeGaugeFn,
    pub continue_decoding: ContinueDecodingFn,
    pub scheduler_new: SchedulerNewFn,
    pub scheduler_commit: SchedulerCommitFn,
    pub scheduler_delete: SchedulerDeleteFn,
}

/// The callbacks' symbol names, as the ABI header spells them.
pub const NAMES: [&CStr; 13] = [
    c"envoy_dynamic_module_callback_log",
    c"envoy_dynamic_module_callback_http_get_header",
    c"envoy_dynamic_module_callback_http_set_header",
    c"envoy_dynamic_module_callback_http_send_response",
    c"envoy_dynamic_module_callback_http_filter_config_define_counter",
    c"envoy_dynamic_module_callback_http_filter_increment_counter",
    c"envoy_dynamic_module_callback_http_filter_config_define_gauge",
    c"envoy_dynamic_module_callback_http_filter_increment_gauge",
    c"envoy_dynamic_module_callback_http_filter_decrement_gauge",
    c"envoy_dynamic_module_callback_http_filter_continue_decoding",
    c"envoy_dynamic_module_callback_http_filter_scheduler_new",
    c"envoy_dynamic_module_callback_http_filter_scheduler_commit",
    c"envoy_dynamic_module_callback_http_filter_scheduler_delete",
];

static CALLBACKS: OnceLock<Callbacks> = OnceLock::new();

/// The resolved callbacks; `None` before the module was initialised, or if the host lacked one (then Envoy was told
/// the module failed to initialise, and never calls its hooks).
pub fn callbacks() -> Option<&'static Callbacks> {
    CALLBACKS.get()
}

/// Looks every callback up among the process's exported symbols (where Envoy exports them). `Err` names those
/// that are missing.
pub fn resolve() -> Result<&'static Callbacks, Vec<&'static str>> {
    if let Some(callbacks) = CALLBACKS.get() {
        return Ok(callbacks);
    }
    let found: Vec<*mut c_void> = NAMES.iter().map(|name| lookup(name)).collect();
    let missing: Vec<&'static str> =
        NAMES.iter().zip(&found).filter(|(_, p)| p.is_null()).filter_map(|(name, _)| name.to_str().ok()).collect();
    if !missing.is_empty() {
        return Err(missing);
    }
    // SAFETY: each pointer is the named Envoy function, whose C signature the type declares (see abi.rs).
    let callbacks = unsafe {
        Callbacks {
            log: std::mem::transmute::<*mut c_void, LogFn>(found[0]),
            get_header: std::mem::transmute::<*mut c_void, GetHeaderFn>(found[1]),
            set_header: std::mem::transmute::<*mut c_void, SetHeaderFn>(found[2]),
            send_response: std::mem::transmute::<*mut c_void, SendResponseFn>(found[3]),
            define_counter: std::mem::transmute::<*mut c_void, DefineCounterFn>(found[4]),
            increment_counter: std::mem::transmute::<*mut c_void, IncrementCounterFn>(found[5]),
            define_gauge: std::mem::transmute::<*mut c_void, DefineGaugeFn>(found[6]),
            increment_gauge: std::mem::transmute::<*mut c_void, ChangeGaugeFn>(found[7]),
            decrement_gauge: std::mem::transmute::<*mut c_void, ChangeGaugeFn>(found[8]),
            continue_decoding: std::mem::transmute::<*mut c_void, ContinueDecodingFn>(found[9]),
            scheduler_new: std::mem::transmute::<*mut c_void, SchedulerNewFn>(found[10]),
            scheduler_commit: std::mem::transmute::<*mut c_void, SchedulerCommitFn>(found[11]),
            scheduler_delete: std::mem::transmute::<*mut c_void, SchedulerDeleteFn>(found[12]),
        }
    };
    Ok(CALLBACKS.get_or_init(|| callbacks))
}

fn lookup(name: &CStr) -> *mut c_void {
    // SAFETY: dlsym with RTLD_DEFAULT only reads the global symbol scope.
    unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) }
}

/// Logs through Envoy (its `dynamic_modules` logger) when the log callback is there, else to standard error: a
/// refusal must be seen even when the host is not the Envoy the module was built for.
pub fn log(level: LogLevel, message: &str) {
    let envoy_log = callbacks().map(|c| c.log).or_else(|| {
        let p = lookup(NAMES[0]);
        // SAFETY: the symbol, if present, is the log callback of the ABI.
        (!p.is_null()).then(|| unsafe { std::mem::transmute::<*mut c_void, LogFn>(p) })
    });
    match envoy_log {
        // SAFETY: the buffer outlives the call, which copies it.
        Some(f) => unsafe { f(level, ModuleBuffer::of(message.as_bytes())) },
        None => eprintln!("{message}"),
    }
}
