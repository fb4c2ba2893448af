//! The part of Envoy's dynamic-modules ABI this module uses, written by hand.
//!
//! The ABI is a C header in the Envoy repository, `source/extensions/dynamic_modules/abi/abi.h`. These declarations
//! follow it as of Envoy commit 0199da4a13cb (ABI v0.1.0), and each was checked against the Envoy 1.40.0 binary
//! (ABI v0.2.0), whose released functions keep their signatures (see README.md; [`crate::compat`] checks the Envoy
//! at load time). Only the types and callbacks used here are declared. Enumerations are C `int`s: they are kept as
//! `u32` with named constants, so that a value Envoy sends that this build does not know is a number, not undefined
//! behaviour.
//!
//! The callbacks (functions Envoy implements) are not linked by name: [`crate::host`] resolves each one in the
//! Envoy process when the module is loaded, and the module refuses to load if one is missing: a missing callback is
//! a clear refusal at start-up rather than a "symbol lookup error" that ends Envoy on the first request.

use std::ffi::{c_char, c_void};

/// A byte string owned by Envoy, valid for the hook that hands it over (`envoy_dynamic_module_type_envoy_buffer`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct EnvoyBuffer {
    pub ptr: *const c_char,
    pub length: usize,
}

impl EnvoyBuffer {
    pub const EMPTY: EnvoyBuffer = EnvoyBuffer { ptr: std::ptr::null(), length: 0 };

    /// The bytes, or nothing for a null buffer.
    ///
    /// # Safety
    /// `ptr` must point to `length` readable bytes that outlive `'a` (Envoy guarantees it for the current hook).
    pub unsafe fn bytes<'a>(self) -> &'a [u8] {
        if self.ptr.is_null() || self.length == 0 {
            return &[];
        }
        std::slice::from_raw_parts(self.ptr.cast::<u8>(), self.length)
    }
}

/// A byte string owned by the module, read by Envoy during the call (`envoy_dynamic_module_type_module_buffer`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ModuleBuffer {
    pub ptr: *const c_char,
    pub length: usize,
}

impl ModuleBuffer {
    pub fn of(bytes: &[u8]) -> ModuleBuffer {
        ModuleBuffer { ptr: bytes.as_ptr().cast::<c_char>(), length: bytes.len() }
    }
}

/// A header the module hands to Envoy (`envoy_dynamic_module_type_module_http_header`).
#[repr(C)]
pub struct ModuleHttpHeader {
    pub key_ptr: *const c_char,
    pub key_length: usize,
    pub value_ptr: *const c_char,
    pub value_length: usize,
}

impl ModuleHttpHeader {
    pub fn of(key: &[u8], value: &[u8]) -> ModuleHttpHeader {
        ModuleHttpHeader {
            key_ptr: key.as_ptr().cast::<c_char>(),
            key_length: key.len(),
            value_ptr: value.as_ptr().cast::<c_char>(),
            value_length: value.len(),
        }
    }
}

/// `envoy_dynamic_module_type_http_header_type`: which header map a header callback works on.
pub type HeaderType = u32;
pub const REQUEST_HEADER: HeaderType = 0;
pub const RESPONSE_HEADER: HeaderType = 2;

/// `envoy_dynamic_module_type_log_level`.
pub type LogLevel = u32;
pub const LOG_INFO: LogLevel = 2;
pub const LOG_WARN: LogLevel = 3;
pub const LOG_ERROR: LogLevel = 4;
pub const LOG_CRITICAL: LogLevel = 5;

/// The status every `on_http_filter_*` hook returns: `Continue` is 0 in each of the header, body, trailer and
/// local-reply status enumerations.
pub type FilterStatus = u32;
pub const CONTINUE: FilterStatus = 0;
/// `envoy_dynamic_module_type_on_http_filter_request_headers_status_StopIteration`.
pub const STOP_ITERATION: FilterStatus = 1;

/// `envoy_dynamic_module_type_metrics_result`.
pub type MetricsResult = u32;
pub const METRICS_SUCCESS: MetricsResult = 0;

/// Opaque pointers to Envoy's objects, passed back to it in callbacks.
pub type FilterConfigEnvoyPtr = *mut c_void;
pub type FilterEnvoyPtr = *mut c_void;

/// `envoy_dynamic_module_callback_log`.
pub type LogFn = unsafe extern "C" fn(level: LogLevel, message: ModuleBuffer);

/// `envoy_dynamic_module_callback_http_get_header`: the `index`-th value of header `key`; false if absent.
pub type GetHeaderFn = unsafe extern "C" fn(
    filter: FilterEnvoyPtr,
    header_type: HeaderType,
    key: ModuleBuffer,
    result: *mut EnvoyBuffer,
    index: usize,
    optional_size: *mut usize,
) -> bool;

/// `envoy_dynamic_module_callback_http_set_header`: replaces every value of header `key`.
pub type SetHeaderFn = unsafe extern "C" fn(
    filter: FilterEnvoyPtr,
    header_type: HeaderType,
    key: ModuleBuffer,
    value: ModuleBuffer,
) -> bool;

/// `envoy_dynamic_module_callback_http_send_response`: a local reply.
pub type SendResponseFn = unsafe extern "C" fn(
    filter: FilterEnvoyPtr,
    status_code: u32,
    headers: *mut ModuleHttpHeader,
    headers_size: usize,
    body: ModuleBuffer,
    details: ModuleBuffer,
);

/// `envoy_dynamic_module_callback_http_filter_config_define_counter`, during `on_http_filter_config_new` only.
pub type DefineCounterFn = unsafe extern "C" fn(
    config: FilterConfigEnvoyPtr,
    name: ModuleBuffer,
    label_names: *mut ModuleBuffer,
    label_names_length: usize,
    counter_id: *mut usize,
) -> MetricsResult;

/// `envoy_dynamic_module_callback_http_filter_increment_counter`.
pub type IncrementCounterFn = unsafe extern "C" fn(
    filter: FilterEnvoyPtr,
    id: usize,
    label_values: *mut ModuleBuffer,
    label_values_length: usize,
    value: u64,
) -> MetricsResult;

/// `envoy_dynamic_module_callback_http_filter_config_define_gauge`, as `define_counter`.
pub type DefineGaugeFn = DefineCounterFn;

/// `envoy_dynamic_module_callback_http_filter_increment_gauge` and `..._decrement_gauge`, as `increment_counter`.
pub type ChangeGaugeFn = IncrementCounterFn;

/// `envoy_dynamic_module_callback_http_filter_continue_decoding`: resumes a request held by `StopIteration`.
pub type ContinueDecodingFn = unsafe extern "C" fn(filter: FilterEnvoyPtr);

/// A scheduler Envoy made for one stream (`envoy_dynamic_module_type_http_filter_scheduler_module_ptr`): owned by
/// the module, which deletes it.
pub type SchedulerPtr = *mut c_void;

/// `envoy_dynamic_module_callback_http_filter_scheduler_new`: a scheduler that posts events to the worker thread of
/// the stream `filter`.
pub type SchedulerNewFn = unsafe extern "C" fn(filter: FilterEnvoyPtr) -> SchedulerPtr;

/// `envoy_dynamic_module_callback_http_filter_scheduler_commit`: from any thread, posts `event_id` to the stream's
/// worker, which calls `envoy_dynamic_module_on_http_filter_scheduled` unless the stream has gone by then.
pub type SchedulerCommitFn = unsafe extern "C" fn(scheduler: SchedulerPtr, event_id: u64);

/// `envoy_dynamic_module_callback_http_filter_scheduler_delete`.
pub type SchedulerDeleteFn = unsafe extern "C" fn(scheduler: SchedulerPtr);
