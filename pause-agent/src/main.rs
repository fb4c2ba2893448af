use std::process::ExitCode;

use pause_agent::options::{self, Parsed, USAGE};
use pause_agent::supervise;

fn main() -> ExitCode {
    let code = match options::parse(std::env::args_os()) {
        Ok(Parsed::Help) => {
            println!("{USAGE}");
            0
        }
        Ok(Parsed::Run(options)) => supervise::run(&options),
        Err(message) => {
            eprintln!("pause-agent: {message}\n\n{USAGE}");
            supervise::EXIT_REFUSED
        }
    };
    // Statuses above 255 do not exist; 128 + a signal number stays below.
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}
