//! The adversarial side of the agent: however it ends, and whatever reaches its control port, no process of the
//! service's group stays stopped. Each test stops the service with a long pause (5 s), then ends things the hard way
//! mid-pause, and measures how soon every member runs again: well under the pause, so the pause's own end cannot be
//! what continued them.

mod support;

use std::thread;
use std::time::Duration;

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use support::{Agent, Connection, number, process_state, try_process_state, until_none_stopped, wait_for_members};

const MS: u64 = 1_000_000;
const LONG_PAUSE: u64 = 5_000 * MS;

/// A shell leading two sleeps, all in the agent's child group.
fn agent_with_a_group(name: &str) -> (Agent, Vec<i32>) {
    let agent = Agent::start(name, &[], &["sh", "-c", "sleep 60 & sleep 60 & wait"]);
    let members = wait_for_members(agent.child_pid, 3);
    (agent, members)
}

/// Starts a long pause on a connection of its own and waits until every member is stopped.
fn pause_long(agent: &Agent, members: &[i32]) -> thread::JoinHandle<(Connection, String)> {
    let mut control = agent.connect();
    let pausing = thread::spawn(move || {
        let reply = control.send(&format!("PAUSE 1 {LONG_PAUSE}"));
        (control, reply)
    });
    stopped_soon(members);
    pausing
}

fn stopped_soon(members: &[i32]) {
    for _ in 0..500 {
        if members.iter().all(|&pid| try_process_state(pid) == Some('T')) {
            return;
        }
        thread::sleep(Duration::from_millis(2));
    }
    panic!(
        "the pause did not stop every member: {:?}",
        members.iter().map(|&p| try_process_state(p)).collect::<Vec<_>>()
    );
}

/// Kills what is left of a group the agent no longer watches over.
fn kill_all(members: &[i32]) {
    for &pid in members {
        let _ = kill(Pid::from_raw(pid), Signal::SIGCONT);
        let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
    }
}

#[test]
fn every_terminating_signal_mid_pause_continues_the_group_at_once() {
    // The agent passes each on to the shell, which dies of it; were it to survive, the test kills it.
    for signal in [Signal::SIGTERM, Signal::SIGINT, Signal::SIGHUP, Signal::SIGQUIT] {
        let (mut agent, members) = agent_with_a_group(&format!("terminate-{signal}"));
        let pausing = pause_long(&agent, &members);
        agent.signal(signal);
        let took = until_none_stopped(&members, Duration::from_secs(1));
        println!("{signal} mid-pause: every member running again after {took:?}");
        // Later pauses are refused (or find the agent gone: the shell dies of the signal passed on).
        if let Ok(stream) = std::net::TcpStream::connect(("127.0.0.1", agent.port)) {
            let mut later = Connection::from(stream);
            later.send_raw(b"PAUSE 2 1000\n");
            let reply = later.reply();
            assert!(reply.is_empty() || reply.starts_with("ERR the agent is closing"), "{signal}: {reply}");
        }
        let status = agent.wait_exit(Duration::from_secs(5));
        assert!(status.is_some_and(|code| code > 128), "{signal}: the shell's death by a signal, got {status:?}");
        // The pause's caller learns it was cut short, or loses the connection as the agent exits.
        let (_, reply) = pausing.join().unwrap();
        assert!(reply.is_empty() || reply.starts_with("ERR the pause of round 1 was cut short"), "{signal}: {reply}");
        kill_all(&members);
    }
}

#[test]
fn a_crash_or_kill_of_the_agent_mid_pause_leaves_no_member_stopped() {
    // SIGABRT is how the release build ends after a panic (panic = "abort"), once the hook has run; SIGILL a crash
    // (not SIGSEGV: Rust's runtime handles a SIGSEGV sent by kill() as a possible stack overflow and carries on);
    // SIGKILL what nothing can catch. None runs the agent's own code: the kernel continues the group, through the
    // leader's parent-death signal and the SIGHUP + SIGCONT an orphaned stopped process group receives.
    for signal in [Signal::SIGKILL, Signal::SIGABRT, Signal::SIGILL] {
        let (mut agent, members) = agent_with_a_group(&format!("crash-{signal}"));
        let pausing = pause_long(&agent, &members);
        agent.signal(signal);
        assert_eq!(agent.wait_exit(Duration::from_secs(5)), None, "{signal}: the agent died of it");
        let took = until_none_stopped(&members, Duration::from_millis(500));
        println!("agent {signal} mid-pause: every member running or gone after {took:?}");
        let (_, reply) = pausing.join().unwrap();
        assert_eq!(reply, "", "{signal}: the connection ends with the agent");
        kill_all(&members);
    }
}

#[test]
fn the_child_dying_mid_pause_continues_the_rest_of_its_group() {
    let (mut agent, members) = agent_with_a_group("child-dies");
    let pausing = pause_long(&agent, &members);
    // Only SIGKILL ends a stopped process: the shell leading the group dies, its two sleeps stay stopped until the
    // agent, reaping the shell, continues the group (the kernel also does, as the group is then orphaned).
    kill(Pid::from_raw(agent.child_pid), Signal::SIGKILL).unwrap();
    let sleeps: Vec<i32> = members.iter().copied().filter(|&pid| pid != agent.child_pid).collect();
    let took = until_none_stopped(&sleeps, Duration::from_millis(500));
    println!("leader killed mid-pause: the other members running again after {took:?}");
    assert_eq!(agent.wait_exit(Duration::from_secs(5)), Some(128 + 9));
    let (_, reply) = pausing.join().unwrap();
    assert!(reply.is_empty() || reply.starts_with("ERR the pause of round 1 was cut short"), "{reply}");
    kill_all(&members);
}

#[test]
fn a_control_connection_gone_mid_pause_ends_the_pause_and_leaves_no_debt() {
    // Each way returns the connection if it is still open, to be kept open until the end.
    type HangUp = fn(Connection) -> Option<Connection>;
    let ways: [(&str, HangUp); 3] = [
        ("reset", |control| {
            control.reset();
            None
        }),
        ("closed", |_| None),
        ("half-closed", |control| {
            control.shut_down_sending();
            Some(control)
        }),
    ];
    for (how, hang_up) in ways {
        let (agent, members) = agent_with_a_group(&format!("hang-up-{how}"));
        let mut control = agent.connect();
        control.send_raw(format!("PAUSE 1 {LONG_PAUSE}\n").as_bytes());
        stopped_soon(&members);
        thread::sleep(Duration::from_millis(100));
        let still_open = hang_up(control);
        let took = until_none_stopped(&members, Duration::from_millis(500));
        println!("connection {how} mid-pause: every member running again after {took:?}");

        // The pause is booked as asked for what it lasted: the next pause is not lengthened by the rest.
        let mut next = agent.connect();
        let stats = next.request("STATS");
        assert_eq!(number(&stats, "pauses"), 1, "{how}: {stats:?}");
        assert_eq!(number(&stats, "oversleep_ns"), 0, "{how}: {stats:?}");
        assert!(number(&stats, "stopped_ns") < (LONG_PAUSE / 2) as i64, "{how}: {stats:?}");
        let reply = next.request(&format!("PAUSE 2 {}", 20 * MS));
        assert_eq!(reply["reply"], "PAUSED", "{how}: {reply:?}");
        assert!(number(&reply, "stopped_ns") < (200 * MS) as i64, "{how}: the next pause took {reply:?}");
        assert_ne!(process_state(agent.child_pid), 'T', "{how}");
        if let Some(mut control) = still_open {
            let reply = control.reply();
            assert!(reply.starts_with("ERR the control connection closed during the pause of round 1"), "{reply}");
        }
    }
}

#[test]
fn commands_sent_ahead_during_a_pause_do_not_end_it() {
    let agent = Agent::start("ahead", &[], &["sleep", "60"]);
    let mut control = agent.connect();
    // Both commands in one write: the STATS waits in the socket while the pause runs.
    control.send_raw(format!("PAUSE 1 {}\nSTATS\n", 200 * MS).as_bytes());
    let paused = support::fields(&control.reply());
    assert_eq!(paused["reply"], "PAUSED", "{paused:?}");
    assert!(number(&paused, "stopped_ns") >= (200 * MS) as i64, "{paused:?}");
    assert!(control.reply().starts_with("STATS child_pid="));
}

#[test]
fn garbage_and_huge_numbers_on_the_control_port_stop_nothing() {
    let agent = Agent::start("garbage", &["--max-pause-ms", "1000"], &["sleep", "60"]);
    // Watches the child all along: it must never be seen stopped.
    let child = agent.child_pid;
    let watching = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let watcher = {
        let watching = std::sync::Arc::clone(&watching);
        thread::spawn(move || {
            let mut samples = 0u64;
            while watching.load(std::sync::atomic::Ordering::Relaxed) {
                assert_ne!(process_state(child), 'T', "the child was stopped by garbage");
                samples += 1;
                thread::sleep(Duration::from_micros(200));
            }
            samples
        })
    };

    let mut control = agent.connect();
    let refused: [(&[u8], &str); 12] = [
        (b"\x00\x01\x02\xff\xfe\n", "ERR unknown command '"),
        (b"PAUSE\x001 5\n", "ERR unknown command"),
        (b"\xc3\x28 PAUSE 1 5\n", "ERR unknown command"),
        (b"\r\n", "ERR empty command"),
        (b"PAUSE 1 18446744073709551615\n", "ERR a pause of 18446744073709551615 ns is longer than the limit"),
        (b"PAUSE 1 18446744073709551616\n", "ERR nanoseconds '18446744073709551616' is not a whole number"),
        (b"PAUSE 18446744073709551616 1\n", "ERR round '18446744073709551616' is not a whole number"),
        (b"PAUSE 1 99999999999999999999999999999999999999999999999999\n", "ERR nanoseconds '"),
        (b"PAUSE -1 5\n", "ERR round '-1' is not a whole number"),
        (b"PAUSE 1 1e9\n", "ERR nanoseconds '1e9' is not a whole number"),
        (b"PAUSE 1 0x10\n", "ERR nanoseconds '0x10' is not a whole number"),
        (b"STATS STATS\n", "ERR unexpected 'STATS'"),
    ];
    for (bytes, expected) in refused {
        control.send_raw(bytes);
        let reply = control.reply();
        assert!(reply.starts_with(expected), "{bytes:?} gave {reply:?}, expected {expected:?}");
        assert!(reply.is_ascii(), "replies are ASCII: {reply:?}");
    }
    // A command cut off by the end of the connection is not carried out.
    let mut cut = agent.connect();
    cut.send_raw(b"PAUSE 1 900000000");
    cut.shut_down_sending();
    assert_eq!(cut.reply(), "", "nothing answered, nothing done");
    // Noise with no line end: refused past 256 bytes, the connection closed.
    let mut flood = agent.connect();
    let noise: Vec<u8> = (0..300u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    let noise: Vec<u8> = noise.into_iter().map(|b| if b == b'\n' { b'x' } else { b }).collect();
    flood.send_raw(&noise);
    assert!(flood.reply().starts_with("ERR command longer than 256 bytes"));
    assert_eq!(flood.reply(), "", "the agent closed the flooded connection");
    // Long enough for the watcher to see the cut-off pause, had it been carried out.
    thread::sleep(Duration::from_millis(100));
    watching.store(false, std::sync::atomic::Ordering::Relaxed);
    let samples = watcher.join().expect("the child was seen stopped");
    assert!(samples > 10, "the watcher looked only {samples} times");
    let stats = agent.connect().request("STATS");
    assert_eq!((number(&stats, "pauses"), number(&stats, "last_round")), (0, 0), "nothing paused: {stats:?}");

    // The largest round is taken (a pause of 0, which does stop the child for an instant, so after the watch);
    // after it every round is stale, and nothing wraps.
    assert_eq!(control.request("PAUSE 18446744073709551615 0")["reply"], "PAUSED");
    assert_eq!(control.send("PAUSE 1 1000000"), "STALE round=1 last_round=18446744073709551615");
    let stats = agent.connect().request("STATS");
    assert_eq!((number(&stats, "pauses"), number(&stats, "requested_ns")), (1, 0), "{stats:?}");
}
