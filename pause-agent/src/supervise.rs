//! Running the service under the agent: the quota check, the child in its own process group, signals forwarded, the
//! child reaped, and the group continued on every way out.
//!
//! How the group is never left stopped:
//! - the child exits, or the agent is told to stop (SIGTERM, SIGINT, SIGHUP, SIGQUIT): [`Group::close`] continues the
//!   group before anything else, and refuses later pauses;
//! - the agent panics: the panic hook continues the group before the process aborts;
//! - the agent dies of something it cannot catch (SIGKILL, a crash): the child was started with SIGCONT as its
//!   parent-death signal, so the kernel continues it. Other stopped members of its group become an orphaned, stopped
//!   process group, which the kernel sends SIGHUP and SIGCONT.

use std::fs;
use std::io;
use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::thread;

use nix::errno::Errno;
use nix::sys::prctl;
use nix::sys::signal::{SigSet, Signal, kill};
use nix::sys::wait::{WaitStatus, waitpid};
use nix::unistd::Pid;

use crate::control::Control;
use crate::group::{self, Group};
use crate::options::Options;
use crate::quota;

/// The agent's own failures before the service starts (bad options, a CPU quota, a port it cannot listen on).
pub const EXIT_REFUSED: i32 = 2;
/// As shells do: the command cannot be executed, or was not found.
pub const EXIT_CANNOT_EXECUTE: i32 = 126;
pub const EXIT_NOT_FOUND: i32 = 127;

/// Signals passed on to the service; the first four also end any pause at once, so the service can act on them.
const TERMINATING: [Signal; 4] = [Signal::SIGTERM, Signal::SIGINT, Signal::SIGHUP, Signal::SIGQUIT];
const PASSED_ON: [Signal; 3] = [Signal::SIGUSR1, Signal::SIGUSR2, Signal::SIGWINCH];

/// Runs the service until it exits; returns the agent's exit status: the service's own, 128 + the signal that killed
/// it, or one of the `EXIT_` codes when it could not be started.
pub fn run(options: &Options) -> i32 {
    match quota::find(&options.proc_root) {
        Ok(Some(quota)) => {
            eprintln!(
                "pause-agent: refusing to start: {} sets a CPU quota ({}). The kernel refills a quota every period, so \
                 the service would spend after a pause the CPU time it did not use during it, cancelling the slowdown. \
                 Run the service without a CPU limit (in Kubernetes: no limits.cpu), pinned to its cores instead.",
                quota.file.display(),
                quota.value
            );
            return EXIT_REFUSED;
        }
        Ok(None) => {}
        Err(error) => eprintln!("pause-agent: could not check for a CPU quota ({error}); starting anyway"),
    }

    // Blocked before any thread exists, so every thread inherits the mask and only the signal thread receives them.
    let mut signals = SigSet::empty();
    for signal in TERMINATING.iter().chain(PASSED_ON.iter()) {
        signals.add(*signal);
    }
    if let Err(errno) = signals.thread_block() {
        eprintln!("pause-agent: cannot block signals: {errno}");
        return EXIT_REFUSED;
    }

    let listener = match TcpListener::bind(options.control) {
        Ok(listener) => listener,
        Err(error) => {
            eprintln!("pause-agent: cannot listen on {}: {error}", options.control);
            return EXIT_REFUSED;
        }
    };
    let port = match listener.local_addr() {
        Ok(address) => address.port(),
        Err(error) => {
            eprintln!("pause-agent: cannot read the control port: {error}");
            return EXIT_REFUSED;
        }
    };

    // Connections are queued from here on, and answered once the control thread runs.
    if let Some(path) = &options.port_file
        && let Err(error) = write_port_file(path, port)
    {
        eprintln!("pause-agent: cannot write the port file {}: {error}", path.display());
        return EXIT_REFUSED;
    }

    let child = match spawn(options) {
        Ok(pid) => pid,
        Err(error) => {
            eprintln!("pause-agent: cannot run {}: {error}", options.command.to_string_lossy());
            return match error.kind() {
                io::ErrorKind::NotFound => EXIT_NOT_FOUND,
                _ => EXIT_CANNOT_EXECUTE,
            };
        }
    };
    // From here on, every way out continues the group.
    continue_on_panic(child);
    let group = Arc::new(Group::new(child, options.spin_ns));

    eprintln!(
        "pause-agent: {} runs as pid {} in its own process group; control port {}:{port}",
        options.command.to_string_lossy(),
        child,
        options.control.ip()
    );

    let signal_group = Arc::clone(&group);
    let started =
        thread::Builder::new().name("signals".into()).spawn(move || pass_on_signals(&signals, &signal_group, child));
    if let Err(error) = started {
        eprintln!("pause-agent: cannot start the signal thread: {error}");
    }
    let control = Arc::new(Control {
        group: Arc::clone(&group),
        max_pause_ns: options.max_pause_ns,
        log_pauses: options.log_pauses,
    });
    let started = thread::Builder::new().name("control".into()).spawn(move || control.serve(listener));
    if let Err(error) = started {
        eprintln!("pause-agent: cannot start the control port: {error}");
    }

    let status = reap(child);
    group.close();
    status
}

/// Makes a panic on any thread continue the group `pgid` before anything else happens (the release build then
/// aborts, and the kernel's parent-death signal would continue only the group's leader).
pub fn continue_on_panic(pgid: Pid) {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        group::continue_group(pgid);
        default_hook(info);
    }));
}

/// Starts the command as the leader of a new process group, with the signal mask cleared (the agent's blocked
/// signals would otherwise be inherited) and SIGCONT as the signal it gets if the agent dies.
fn spawn(options: &Options) -> io::Result<Pid> {
    let mut command = Command::new(&options.command);
    command.args(&options.args).process_group(0);
    // SAFETY: between fork and exec only async-signal-safe calls are made: pthread_sigmask and prctl.
    unsafe {
        command.pre_exec(|| {
            SigSet::empty().thread_set_mask().map_err(io::Error::from)?;
            prctl::set_pdeathsig(Signal::SIGCONT).map_err(io::Error::from)?;
            Ok(())
        });
    }
    let child = command.spawn()?;
    let pid = i32::try_from(child.id()).map_err(|_| io::Error::other("the child's pid does not fit a pid_t"))?;
    Ok(Pid::from_raw(pid))
}

fn pass_on_signals(signals: &SigSet, group: &Group, child: Pid) {
    loop {
        match signals.wait() {
            Ok(signal) => {
                if TERMINATING.contains(&signal) {
                    group.close();
                }
                // The child may have exited in the meantime: nothing to tell it then.
                let _ = kill(child, signal);
            }
            Err(errno) => {
                eprintln!("pause-agent: waiting for signals failed: {errno}");
                return;
            }
        }
    }
}

/// Waits for the child's exit, reaping any other process handed to the agent meanwhile (as a container's first
/// process it inherits orphans), and returns the status to exit with.
fn reap(child: Pid) -> i32 {
    loop {
        match waitpid(None::<Pid>, None) {
            Ok(WaitStatus::Exited(pid, code)) if pid == child => return code,
            Ok(WaitStatus::Signaled(pid, signal, _)) if pid == child => return 128 + signal as i32,
            Ok(_) | Err(Errno::EINTR) => {}
            Err(errno) => {
                eprintln!("pause-agent: lost track of the child: {errno}");
                return 1;
            }
        }
    }
}

/// Written whole under another name first, so a reader never sees a partial port.
fn write_port_file(path: &Path, port: u16) -> io::Result<()> {
    let mut partial = path.as_os_str().to_owned();
    partial.push(".partial");
    fs::write(&partial, format!("{port}\n"))?;
    fs::rename(&partial, path)
}
