//! Starting the real agent binary with a real child, and talking to it over its control port.
#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::{Duration, Instant};

use nix::sys::signal::{SigHandler, Signal};

pub const AGENT: &str = env!("CARGO_BIN_EXE_pause-agent");

pub fn progress_child() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/children/progress.py")
}

pub fn now_ns() -> u64 {
    pause_agent::clock::now_ns().unwrap()
}

/// A scratch folder of the test's own, removed on drop.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("pause-agent-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The agent running a child; killed with its child on drop, so a failing test leaves nothing behind.
pub struct Agent {
    pub process: Child,
    pub port: u16,
    /// The child's standard output, line by line.
    pub lines: Receiver<String>,
    pub child_pid: i32,
    _scratch: Scratch,
}

impl Agent {
    /// Starts `pause-agent [agent_args] -- command...` and waits for its control port.
    pub fn start(name: &str, agent_args: &[&str], command: &[&str]) -> Agent {
        let scratch = Scratch::new(name);
        let port_file = scratch.0.join("port");
        let mut agent = Command::new(AGENT);
        agent.args(agent_args).arg("--port-file").arg(&port_file).arg("--").args(command).stdout(Stdio::piped());
        // A shell starts background jobs with SIGINT and SIGQUIT ignored, `nohup` ignores SIGHUP, and exec keeps
        // that: run so (as a build in the background may be), the service would ignore them too. The agent starts
        // as from a terminal.
        // SAFETY: between fork and exec only signal(2), which is async-signal-safe.
        unsafe {
            agent.pre_exec(|| {
                for signal in [Signal::SIGINT, Signal::SIGQUIT, Signal::SIGHUP] {
                    nix::sys::signal::signal(signal, SigHandler::SigDfl).map_err(std::io::Error::from)?;
                }
                Ok(())
            });
        }
        let mut process = agent.spawn().unwrap();
        let lines = read_lines(process.stdout.take().unwrap());
        let deadline = Instant::now() + Duration::from_secs(10);
        let port = loop {
            if let Ok(text) = std::fs::read_to_string(&port_file) {
                break text.trim().parse().unwrap();
            }
            assert!(Instant::now() < deadline, "the agent wrote no port file");
            assert!(process.try_wait().unwrap().is_none(), "the agent exited before listening");
            thread::sleep(Duration::from_millis(10));
        };
        let mut agent = Agent { process, port, lines, child_pid: 0, _scratch: scratch };
        agent.child_pid = agent.connect().request("STATS")["child_pid"].parse().unwrap();
        agent
    }

    /// Starts the agent with the progress child, and waits until the child runs.
    pub fn with_progress_child(name: &str) -> Agent {
        let script = progress_child();
        let agent = Agent::start(name, &[], &["python3", script.to_str().unwrap()]);
        agent.expect_line("ready", Duration::from_secs(10));
        agent
    }

    pub fn connect(&self) -> Connection {
        Connection::open(self.port)
    }

    /// The next line of the child's output that starts with `prefix`, skipping others.
    pub fn expect_line(&self, prefix: &str, within: Duration) -> String {
        let deadline = Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if line.starts_with(prefix) => return line,
                Ok(_) => {}
                Err(_) => panic!("no line starting with {prefix:?} within {within:?}"),
            }
        }
    }

    /// Every line the child has printed so far.
    pub fn drain(&self) -> Vec<String> {
        self.lines.try_iter().collect()
    }

    /// Waits for the agent's exit and returns its status code.
    pub fn wait_exit(&mut self, within: Duration) -> Option<i32> {
        let deadline = Instant::now() + within;
        loop {
            if let Some(status) = self.process.try_wait().unwrap() {
                return status.code();
            }
            assert!(Instant::now() < deadline, "the agent did not exit within {within:?}");
            thread::sleep(Duration::from_millis(10));
        }
    }

    pub fn signal(&self, signal: nix::sys::signal::Signal) {
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(self.process.id() as i32), signal).unwrap();
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        if self.child_pid > 0 {
            let pgid = nix::unistd::Pid::from_raw(self.child_pid);
            let _ = nix::sys::signal::killpg(pgid, nix::sys::signal::Signal::SIGCONT);
            let _ = nix::sys::signal::killpg(pgid, nix::sys::signal::Signal::SIGKILL);
        }
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

fn read_lines(stdout: ChildStdout) -> Receiver<String> {
    let (sender, receiver) = mpsc::channel();
    thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { return };
            if sender.send(line).is_err() {
                return;
            }
        }
    });
    receiver
}

/// One control connection.
pub struct Connection {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl From<TcpStream> for Connection {
    fn from(stream: TcpStream) -> Connection {
        Connection { writer: stream.try_clone().unwrap(), reader: BufReader::new(stream) }
    }
}

impl Connection {
    pub fn open(port: u16) -> Connection {
        Connection::from(TcpStream::connect(("127.0.0.1", port)).unwrap())
    }

    /// Sends a line, returns the reply line.
    pub fn send(&mut self, line: &str) -> String {
        self.writer.write_all(format!("{line}\n").as_bytes()).unwrap();
        let mut reply = String::new();
        self.reader.read_line(&mut reply).unwrap();
        reply.trim_end().to_string()
    }

    /// Sends a line and parses the reply's `key=value` fields; its first word is under "reply".
    pub fn request(&mut self, line: &str) -> HashMap<String, String> {
        fields(&self.send(line))
    }

    /// Sends bytes as they are, line end or not.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).unwrap();
    }

    /// The next reply line; empty when the agent closed the connection.
    pub fn reply(&mut self) -> String {
        let mut reply = String::new();
        let _ = self.reader.read_line(&mut reply);
        reply.trim_end().to_string()
    }

    /// Closes the connection with a reset (SO_LINGER of 0), as a crashed peer's kernel may.
    pub fn reset(self) {
        let linger = nix::libc::linger { l_onoff: 1, l_linger: 0 };
        nix::sys::socket::setsockopt(&self.writer, nix::sys::socket::sockopt::Linger, &linger).unwrap();
    }

    /// Shuts down the sending side only, as `nc -N` does at the end of its input.
    pub fn shut_down_sending(&self) {
        self.writer.shutdown(std::net::Shutdown::Write).unwrap();
    }
}

pub fn fields(reply: &str) -> HashMap<String, String> {
    let mut words = reply.split(' ');
    let mut fields: HashMap<String, String> =
        words.clone().skip(1).filter_map(|w| w.split_once('=')).map(|(k, v)| (k.to_string(), v.to_string())).collect();
    fields.insert("reply".into(), words.next().unwrap_or("").to_string());
    fields
}

pub fn number(fields: &HashMap<String, String>, key: &str) -> i64 {
    fields.get(key).unwrap_or_else(|| panic!("no {key} in {fields:?}")).parse().unwrap()
}

/// The gaps the progress child reported, as (start, end) on the monotonic clock.
pub fn gaps(lines: &[String]) -> Vec<(u64, u64)> {
    lines
        .iter()
        .filter_map(|line| line.strip_prefix("gap "))
        .map(|rest| {
            let (start, end) = rest.split_once(' ').unwrap();
            (start.parse().unwrap(), end.parse().unwrap())
        })
        .collect()
}

/// The state letter of a process in /proc (R running, S sleeping, T stopped...).
pub fn process_state(pid: i32) -> char {
    try_process_state(pid).unwrap_or_else(|| panic!("no process {pid}"))
}

/// The state letter of a process, or None once it is gone (a zombie still has one: Z).
pub fn try_process_state(pid: i32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may hold spaces: the state follows the last ')'.
    stat[stat.rfind(')')? + 2..].chars().next()
}

/// Waits until none of `pids` is stopped (each runs, sleeps, or is gone) and returns how long that took; panics
/// after `within`.
pub fn until_none_stopped(pids: &[i32], within: Duration) -> Duration {
    let start = Instant::now();
    loop {
        let stopped: Vec<i32> = pids.iter().copied().filter(|&pid| try_process_state(pid) == Some('T')).collect();
        if stopped.is_empty() {
            return start.elapsed();
        }
        assert!(start.elapsed() < within, "still stopped after {within:?}: {stopped:?}");
        thread::sleep(Duration::from_millis(2));
    }
}

/// Waits until the group `pgid` has `count` members and returns them.
pub fn wait_for_members(pgid: i32, count: usize) -> Vec<i32> {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let members = group_members(pgid);
        if members.len() >= count {
            return members;
        }
        assert!(Instant::now() < deadline, "group {pgid} has {members:?}, expected {count} members");
        thread::sleep(Duration::from_millis(20));
    }
}

/// The pids of the members of process group `pgid`.
pub fn group_members(pgid: i32) -> Vec<i32> {
    let mut members = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else { continue };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
        let after = &stat[stat.rfind(')').unwrap() + 2..];
        let fields: Vec<&str> = after.split(' ').collect();
        // After the state: ppid, pgrp.
        if fields.get(2).and_then(|f| f.parse::<i32>().ok()) == Some(pgid) {
            members.push(pid);
        }
    }
    members
}
