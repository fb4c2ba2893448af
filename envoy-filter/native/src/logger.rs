//! The filter's logic logs through the `log` crate; this hands its records to Envoy's `dynamic_modules` logger.

use log::{Level, LevelFilter, Log, Metadata, Record};

use crate::abi::{LogLevel, LOG_ERROR, LOG_INFO, LOG_WARN};
use crate::host;

struct EnvoyLog;

/// `envoy_dynamic_module_type_log_level` of Debug and Trace, which the module logs only through here.
const LOG_DEBUG: LogLevel = 1;
const LOG_TRACE: LogLevel = 0;

impl Log for EnvoyLog {
    fn enabled(&self, metadata: &Metadata) -> bool {
        metadata.level() <= Level::Info
    }

    fn log(&self, record: &Record) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let level = match record.level() {
            Level::Error => LOG_ERROR,
            Level::Warn => LOG_WARN,
            Level::Info => LOG_INFO,
            Level::Debug => LOG_DEBUG,
            Level::Trace => LOG_TRACE,
        };
        host::log(level, &record.args().to_string());
    }

    fn flush(&self) {}
}

static LOGGER: EnvoyLog = EnvoyLog;

/// Makes Envoy's log the `log` crate's, at Info, once; and has a panic say why in it before the module aborts.
pub fn install() {
    if log::set_logger(&LOGGER).is_ok() {
        log::set_max_level(LevelFilter::Info);
        std::panic::set_hook(Box::new(|info| {
            host::log(crate::abi::LOG_CRITICAL, &format!("pathfence: panic: {info}"))
        }));
    }
}
