//! Checks a configuration written by `pathfence paths` with the filter's own code: `Config::parse` (the same
//! parsing and validation `on_configure` runs) and `classifier::classify` (the same matching a request goes
//! through).
//!
//! Usage: `filter-config-check CONFIG.json REQUESTS.txt`, one `METHOD /path` per line in REQUESTS.txt.
//! Prints `METHOD /path -> path-name` per request and exits 0, or prints the refusal and exits 2.

use std::process::ExitCode;

use pathfence_envoy_filter::classifier::{classify, RequestView};
use pathfence_envoy_filter::config::Config;

struct Request {
    method: String,
    path: String,
}

impl RequestView for Request {
    fn path(&self) -> Option<Vec<u8>> {
        Some(self.path.clone().into_bytes())
    }
    fn method(&self) -> Option<Vec<u8>> {
        Some(self.method.clone().into_bytes())
    }
    fn header(&self, _name: &str) -> Option<Vec<u8>> {
        None
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let (Some(config_file), Some(requests_file)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: filter-config-check CONFIG.json REQUESTS.txt");
        return ExitCode::from(64);
    };
    let (json, requests) = match (std::fs::read(config_file), std::fs::read_to_string(requests_file)) {
        (Ok(json), Ok(requests)) => (json, requests),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("cannot read the input: {e}");
            return ExitCode::from(64);
        }
    };
    let config = match Config::parse(&json) {
        Ok(config) => config,
        Err(e) => {
            println!("refused: {e}");
            return ExitCode::from(2);
        }
    };
    for warning in config.warnings() {
        println!("warning: {warning}");
    }
    for line in requests.lines().filter(|l| !l.trim().is_empty()) {
        let (method, path) = line.trim().split_once(' ').unwrap_or(("GET", line.trim()));
        let request = Request { method: method.to_string(), path: path.to_string() };
        let name = config.reservation(classify(&config, &request)).map_or("?", |r| r.name.as_str());
        println!("{method} {path} -> {name}");
    }
    ExitCode::SUCCESS
}
