//! The command line.

use std::ffi::OsString;
use std::net::SocketAddr;
use std::path::PathBuf;

pub const USAGE: &str = "\
Usage: pause-agent [OPTIONS] [--] COMMAND [ARGS...]

Runs COMMAND as the leader of its own process group and stops that group (SIGSTOP) for a given time, then continues
it (SIGCONT), on each PAUSE command on the control port. Exits with COMMAND's status.

Options:
  --control ADDR:PORT   where to listen for commands [default: 127.0.0.1:0, a free port]
  --port-file PATH      write the control port to PATH once listening
  --spin-us N           end each pause by spinning on the clock for up to N microseconds [default: 200]
  --max-pause-ms N      refuse pauses longer than N milliseconds [default: 10000]
  --log-pauses          print a line per pause on standard error
  --proc-root DIR       look for the CPU quota under DIR instead of / (for tests)
  -h, --help            print this help

Protocol (one line each way): PAUSE <round> <nanoseconds> | STATS. See README.md.";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    pub control: SocketAddr,
    pub port_file: Option<PathBuf>,
    pub spin_ns: u64,
    pub max_pause_ns: u64,
    pub log_pauses: bool,
    pub proc_root: PathBuf,
    pub command: OsString,
    pub args: Vec<OsString>,
}

#[derive(Debug, PartialEq, Eq)]
pub enum Parsed {
    Run(Box<Options>),
    Help,
}

/// Longest spin accepted: spinning is for the last stretch of a pause, not for all of it.
const MAX_SPIN_US: u64 = 100_000;
/// Longest pause limit accepted: an hour.
const MAX_MAX_PAUSE_MS: u64 = 3_600_000;

pub fn parse<I>(args: I) -> Result<Parsed, String>
where
    I: IntoIterator,
    I::Item: Into<OsString>,
{
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_iter(args);
    let mut control: SocketAddr = ([127, 0, 0, 1], 0).into();
    let mut port_file = None;
    let mut spin_us = 200;
    let mut max_pause_ms = 10_000;
    let mut log_pauses = false;
    let mut proc_root = PathBuf::from("/");
    let mut command = None;
    while let Some(arg) = parser.next().map_err(|e| e.to_string())? {
        match arg {
            Long("control") => {
                let value = text(&mut parser, "--control")?;
                control = value.parse().map_err(|_| {
                    format!(
                        "--control '{value}' is not an address and port, such as 127.0.0.1:7070 (port 0: a free one)"
                    )
                })?;
            }
            Long("port-file") => port_file = Some(PathBuf::from(parser.value().map_err(|e| e.to_string())?)),
            Long("spin-us") => spin_us = bounded(&mut parser, "--spin-us", 0, MAX_SPIN_US)?,
            Long("max-pause-ms") => max_pause_ms = bounded(&mut parser, "--max-pause-ms", 1, MAX_MAX_PAUSE_MS)?,
            Long("log-pauses") => log_pauses = true,
            Long("proc-root") => proc_root = PathBuf::from(parser.value().map_err(|e| e.to_string())?),
            Short('h') | Long("help") => return Ok(Parsed::Help),
            Value(value) => {
                command = Some(value);
                break;
            }
            _ => return Err(arg.unexpected().to_string()),
        }
    }
    // After `--` lexopt hands everything over as values, so the command is found either way.
    let command = command.ok_or("no command to run: pause-agent [OPTIONS] -- COMMAND [ARGS...]")?;
    let args = parser.raw_args().map_err(|e| e.to_string())?.collect();
    Ok(Parsed::Run(Box::new(Options {
        control,
        port_file,
        spin_ns: spin_us * 1_000,
        max_pause_ns: max_pause_ms * 1_000_000,
        log_pauses,
        proc_root,
        command,
        args,
    })))
}

fn text(parser: &mut lexopt::Parser, name: &str) -> Result<String, String> {
    parser.value().map_err(|e| e.to_string())?.into_string().map_err(|_| format!("{name} is not valid Unicode"))
}

fn bounded(parser: &mut lexopt::Parser, name: &str, least: u64, most: u64) -> Result<u64, String> {
    let value = text(parser, name)?;
    match value.parse::<u64>() {
        Ok(number) if (least..=most).contains(&number) => Ok(number),
        _ => Err(format!("{name} '{value}' is not a whole number from {least} to {most}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> Options {
        match parse(args.iter().copied()) {
            Ok(Parsed::Run(options)) => *options,
            other => panic!("{args:?} gave {other:?}"),
        }
    }

    fn refused(args: &[&str]) -> String {
        parse(args.iter().copied()).unwrap_err()
    }

    #[test]
    fn defaults_and_the_command_with_its_own_options() {
        let options = run(&["pause-agent", "--", "java", "-jar", "app.jar", "--port", "8080"]);
        assert_eq!(options.control, "127.0.0.1:0".parse().unwrap());
        assert_eq!((options.spin_ns, options.max_pause_ns, options.log_pauses), (200_000, 10_000_000_000, false));
        assert_eq!(options.command, "java");
        assert_eq!(options.args, ["-jar", "app.jar", "--port", "8080"]);
        assert_eq!(options.proc_root, PathBuf::from("/"));
    }

    #[test]
    fn the_command_may_follow_the_options_without_a_separator() {
        let options = run(&["pause-agent", "--control", "127.0.0.1:7070", "--spin-us", "0", "sleep", "--help"]);
        assert_eq!(options.control.port(), 7070);
        assert_eq!(options.spin_ns, 0);
        assert_eq!(options.command, "sleep");
        assert_eq!(options.args, ["--help"]);
    }

    #[test]
    fn every_option() {
        let options = run(&[
            "pause-agent",
            "--port-file",
            "/tmp/p",
            "--max-pause-ms",
            "500",
            "--log-pauses",
            "--proc-root",
            "/x",
            "--",
            "sh",
        ]);
        assert_eq!(options.port_file, Some(PathBuf::from("/tmp/p")));
        assert_eq!(options.max_pause_ns, 500_000_000);
        assert!(options.log_pauses);
        assert_eq!(options.proc_root, PathBuf::from("/x"));
        assert!(options.args.is_empty());
    }

    #[test]
    fn bad_options_are_refused_saying_what_is_allowed() {
        assert!(refused(&["pause-agent"]).contains("no command to run"));
        assert!(refused(&["pause-agent", "--"]).contains("no command to run"));
        assert!(refused(&["pause-agent", "--control", "localhost", "--", "x"]).contains("is not an address and port"));
        assert!(refused(&["pause-agent", "--spin-us", "-1", "--", "x"]).contains("from 0 to 100000"));
        assert!(refused(&["pause-agent", "--max-pause-ms", "0", "--", "x"]).contains("from 1 to 3600000"));
        assert!(refused(&["pause-agent", "--frobnicate", "--", "x"]).contains("--frobnicate"));
        assert_eq!(parse(["pause-agent", "--help"]), Ok(Parsed::Help));
    }
}
