//! The control port: a thread per connection, each reading command lines and answering each with one line.
//!
//! A pause belongs to its connection: when the connection closes during the pause (the coordinator exited or
//! crashed, or reset it), the service is continued at once rather than at the end of a pause nobody waits for.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::fd::AsFd;
use std::sync::Arc;
use std::thread;

use nix::errno::Errno;
use nix::libc;
use nix::poll::{PollFd, PollFlags, ppoll};

use crate::clock;
use crate::group::{Group, PauseError};
use crate::protocol::{self, Command, MAX_LINE};

pub struct Control {
    pub group: Arc<Group>,
    pub max_pause_ns: u64,
    pub log_pauses: bool,
}

impl Control {
    /// Accepts connections for as long as the agent lives.
    pub fn serve(self: Arc<Self>, listener: TcpListener) {
        for connection in listener.incoming() {
            match connection {
                Ok(stream) => {
                    let control = Arc::clone(&self);
                    let spawned = thread::Builder::new().name("control".into()).spawn(move || {
                        if let Err(error) = control.converse(stream) {
                            eprintln!("pause-agent: control connection: {error}");
                        }
                    });
                    if let Err(error) = spawned {
                        eprintln!("pause-agent: cannot serve a control connection: {error}");
                    }
                }
                Err(error) => eprintln!("pause-agent: control port: {error}"),
            }
        }
    }

    fn converse(&self, stream: TcpStream) -> io::Result<()> {
        // The wake-up at the end of a pause is held back by up to the thread's timer slack (50 µs by default). Set
        // on this thread only: the service, a child of the main thread, keeps its own.
        let _ = nix::sys::prctl::set_timerslack(1);
        stream.set_nodelay(true)?;
        let mut writer = stream.try_clone()?;
        let mut reader = BufReader::new(stream);
        let mut line = Vec::new();
        loop {
            line.clear();
            let read = reader.by_ref().take(MAX_LINE as u64 + 1).read_until(b'\n', &mut line)?;
            if read == 0 {
                return Ok(());
            }
            if line.last() != Some(&b'\n') {
                if line.len() > MAX_LINE {
                    writeln!(writer, "{}", protocol::error(&format!("command longer than {MAX_LINE} bytes")))?;
                } else {
                    // The connection ended in the middle of a line: a command cut off is not carried out.
                    eprintln!("pause-agent: a control connection closed in the middle of a command; ignored");
                }
                return Ok(());
            }
            let text = String::from_utf8_lossy(&line);
            let reply = self.answer(text.trim_end_matches(['\n', '\r']), reader.get_ref());
            writer.write_all(reply.as_bytes())?;
            writer.write_all(b"\n")?;
        }
    }

    fn answer(&self, line: &str, connection: &TcpStream) -> String {
        match protocol::parse(line, self.max_pause_ns) {
            Ok(Command::Pause { round, requested_ns }) => {
                match self.group.pause(round, requested_ns, |wake_ns| closed_before(connection, wake_ns)) {
                    Ok(record) => {
                        if self.log_pauses {
                            eprintln!("pause-agent: {}", protocol::paused(&record));
                        }
                        protocol::paused(&record)
                    }
                    Err(PauseError::Stale(stale)) => protocol::stale(&stale),
                    Err(error) => {
                        if let PauseError::Abandoned(_) = error {
                            eprintln!("pause-agent: {error}");
                        }
                        protocol::error(&error.to_string())
                    }
                }
            }
            Ok(Command::Stats) => protocol::stats(&self.group.stats()),
            Err(message) => protocol::error(&message),
        }
    }
}

/// Waits until `wake_ns` on the monotonic clock or until the peer closes the connection (or shuts down its sending
/// side, or resets it), and says whether it did. Only the hang-up is watched, not incoming data, so a command sent
/// ahead during a pause neither ends it nor wakes this loop.
fn closed_before(connection: &TcpStream, wake_ns: u64) -> nix::Result<bool> {
    let now_ns = clock::now_ns()?;
    let timeout = clock::timespec(wake_ns.saturating_sub(now_ns));
    let mut watched = [PollFd::new(connection.as_fd(), PollFlags::from_bits_retain(libc::POLLRDHUP))];
    match ppoll(&mut watched, Some(timeout), None) {
        Ok(0) | Err(Errno::EINTR) => Ok(false),
        // nix's flags do not name POLLRDHUP, so events holding it come back as None; the others are hang-ups and
        // errors, reported whatever was asked.
        Ok(_) => Ok(watched[0].revents().is_none_or(|events| !events.is_empty())),
        Err(errno) => Err(errno),
    }
}
