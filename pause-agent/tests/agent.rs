//! The agent binary with real children: pauses really stop them, for the time asked, oversleep is repaid, signals
//! reach the child, the child is continued on every way the agent can end, and a CPU quota is refused.

mod support;

use std::process::Command;
use std::thread;
use std::time::Duration;

use nix::sys::signal::Signal;
use support::{Agent, Scratch, gaps, group_members, now_ns, number, process_state};

const MS: u64 = 1_000_000;

#[test]
fn a_pause_stops_the_child_for_the_time_asked() {
    let agent = Agent::with_progress_child("stops");
    thread::sleep(Duration::from_millis(100));
    let mut control = agent.connect();
    let reply = control.request(&format!("PAUSE 1 {}", 100 * MS));
    assert_eq!(reply["reply"], "PAUSED", "{reply:?}");
    let (at, stopped) = (number(&reply, "at_ns") as u64, number(&reply, "stopped_ns") as u64);
    assert_eq!(number(&reply, "target_ns") as u64, 100 * MS);
    // Never shorter than asked; the upper bound is generous for a shared machine (the precision test measures).
    assert!((100 * MS..130 * MS).contains(&stopped), "stopped for {stopped} ns");

    // The child saw one gap in its progress covering the pause: it did no work while stopped.
    thread::sleep(Duration::from_millis(100));
    let gaps = gaps(&agent.drain());
    let during: Vec<_> = gaps.iter().filter(|(start, end)| *start < at + stopped && *end > at).collect();
    assert_eq!(during.len(), 1, "gaps overlapping the pause: {during:?} (all: {gaps:?})");
    let (start, end) = *during[0];
    assert!(end - start >= 99 * MS, "the child stood still for {} ns only", end - start);
    assert!(start <= at + 5 * MS && end + 5 * MS >= at + stopped, "gap {start}..{end} against pause {at}+{stopped}");
}

#[test]
fn a_pause_stops_the_whole_process_group() {
    // The child is a shell whose own children (two sleeps) are in its group.
    let agent = Agent::start("group", &[], &["sh", "-c", "sleep 60 & sleep 60 & wait"]);
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    let mut members = group_members(agent.child_pid);
    while members.len() < 3 && std::time::Instant::now() < deadline {
        thread::sleep(Duration::from_millis(20));
        members = group_members(agent.child_pid);
    }
    assert_eq!(members.len(), 3, "the shell and its two sleeps: {members:?}");
    assert!(members.iter().all(|&pid| process_state(pid) != 'T'));

    let pausing = {
        let mut control = agent.connect();
        thread::spawn(move || control.request(&format!("PAUSE 1 {}", 400 * MS)))
    };
    thread::sleep(Duration::from_millis(150));
    let states: Vec<char> = members.iter().map(|&pid| process_state(pid)).collect();
    assert_eq!(states, vec!['T'; 3], "every member stopped during the pause");
    assert_eq!(pausing.join().unwrap()["reply"], "PAUSED");
    let states: Vec<char> = members.iter().map(|&pid| process_state(pid)).collect();
    assert!(states.iter().all(|&state| state != 'T'), "every member continued after it: {states:?}");
}

#[test]
fn oversleep_is_repaid_on_the_next_pause() {
    let agent = Agent::start("repay", &[], &["sleep", "60"]);
    let mut control = agent.connect();
    let requested = 5 * MS;
    let mut oversleep_before = 0i64;
    let mut naive_oversleep = 0i64;
    for round in 1..=20 {
        let reply = control.request(&format!("PAUSE {round} {requested}"));
        assert_eq!(reply["reply"], "PAUSED", "{reply:?}");
        let (target, stopped, oversleep) =
            (number(&reply, "target_ns"), number(&reply, "stopped_ns"), number(&reply, "oversleep_ns"));
        assert_eq!(
            target,
            (requested as i64 - oversleep_before).max(0),
            "round {round}: the carried oversleep is repaid"
        );
        assert_eq!(oversleep, oversleep_before + stopped - requested as i64, "round {round}: the books balance");
        assert!(stopped >= target, "round {round}: stopped {stopped} ns, short of the target {target} ns");
        naive_oversleep += stopped - target;
        oversleep_before = oversleep;
    }
    let stats = control.request("STATS");
    assert_eq!(number(&stats, "pauses"), 20);
    assert_eq!(number(&stats, "requested_ns"), 20 * requested as i64);
    assert_eq!(number(&stats, "oversleep_ns"), oversleep_before);
    assert_eq!(number(&stats, "last_round"), 20);
    // Repaid, the total stays within one pause's oversleep of the total asked, while every pause overslept a bit.
    assert!(oversleep_before.abs() < 2 * MS as i64, "left over: {oversleep_before} ns");
    assert!(naive_oversleep > 0, "no pause overslept at all, so nothing was repaid: the test proves nothing");
}

#[test]
fn a_round_pauses_once_and_bad_commands_are_refused() {
    let agent = Agent::start("protocol", &["--max-pause-ms", "500"], &["sleep", "60"]);
    let mut control = agent.connect();
    assert_eq!(control.request("PAUSE 5 0")["reply"], "PAUSED");
    assert_eq!(control.send("PAUSE 5 1000"), "STALE round=5 last_round=5");
    assert_eq!(control.send("pause 4 1000"), "STALE round=4 last_round=5");
    assert!(control.send("PAUSE 6 600000000").starts_with("ERR a pause of 600000000 ns is longer than the limit"));
    assert!(control.send("PAUSE six 1").starts_with("ERR round 'six' is not a whole number"));
    assert!(control.send("RESUME").starts_with("ERR unknown command 'RESUME'"));
    // The connection survives refusals, and a refused command changed nothing.
    let stats = control.request("STATS");
    assert_eq!((number(&stats, "pauses"), number(&stats, "last_round")), (1, 5));
    // Not stopped (running or, more likely, sleeping: R right after a continue on a busy machine).
    assert_ne!(process_state(agent.child_pid), 'T');
    // Overlong lines end the connection after saying so.
    let long = "PAUSE ".to_string() + &"9".repeat(400);
    assert!(control.send(&long).starts_with("ERR command longer than 256 bytes"));
}

#[test]
fn sigterm_and_sigint_reach_the_child_and_its_status_is_the_agents() {
    for (signal, number) in [(Signal::SIGTERM, 15), (Signal::SIGINT, 2)] {
        let mut agent = Agent::with_progress_child("signals");
        agent.signal(signal);
        assert!(agent.expect_line("signal", Duration::from_secs(5)).starts_with(&format!("signal {number} ")));
        assert_eq!(agent.wait_exit(Duration::from_secs(5)), Some(7), "the child's own exit status");
    }
}

#[test]
fn a_child_killed_by_a_signal_gives_128_plus_its_number() {
    let mut agent = Agent::start("killed", &[], &["sleep", "60"]);
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(agent.child_pid), Signal::SIGKILL).unwrap();
    assert_eq!(agent.wait_exit(Duration::from_secs(5)), Some(128 + 9));
}

#[test]
fn terminating_the_agent_mid_pause_continues_the_child_at_once() {
    let mut agent = Agent::with_progress_child("term-mid-pause");
    let pausing = {
        let mut control = agent.connect();
        thread::spawn(move || control.send(&format!("PAUSE 1 {}", 5_000 * MS)))
    };
    thread::sleep(Duration::from_millis(300));
    assert_eq!(process_state(agent.child_pid), 'T');
    let signalled = now_ns();
    agent.signal(Signal::SIGTERM);
    // The child, continued, handles the forwarded SIGTERM long before the 5 s pause would have ended.
    let line = agent.expect_line("signal 15", Duration::from_secs(2));
    let handled: u64 = line.split(' ').nth(2).unwrap().parse().unwrap();
    assert!(
        handled - signalled < 1_000 * MS,
        "the child ran again {} ms after the SIGTERM",
        (handled - signalled) / MS
    );
    assert_eq!(agent.wait_exit(Duration::from_secs(5)), Some(7));
    // The pause's caller learns it was cut short (or loses the connection as the agent exits).
    let reply = pausing.join().unwrap();
    assert!(reply.is_empty() || reply.starts_with("ERR the pause of round 1 was cut short"), "{reply}");
}

#[test]
fn killing_the_agent_mid_pause_continues_the_child() {
    let mut agent = Agent::with_progress_child("kill-mid-pause");
    let child = agent.child_pid;
    let pausing = {
        let mut control = agent.connect();
        thread::spawn(move || control.send(&format!("PAUSE 1 {}", 5_000 * MS)))
    };
    thread::sleep(Duration::from_millis(300));
    assert_eq!(process_state(child), 'T');
    let killed = now_ns();
    agent.signal(Signal::SIGKILL);
    assert_eq!(agent.wait_exit(Duration::from_secs(5)), None, "killed by a signal");
    assert_eq!(pausing.join().unwrap(), "", "the connection ends with the agent");
    // The kernel continued the orphaned child (its parent-death signal): its gap ends right after the kill.
    let deadline = std::time::Instant::now() + Duration::from_secs(2);
    let mut lines = Vec::new();
    while gaps(&lines).iter().all(|(_, end)| *end < killed) && std::time::Instant::now() < deadline {
        lines.extend(agent.lines.recv_timeout(Duration::from_millis(100)));
    }
    let resumed = gaps(&lines).into_iter().find(|(_, end)| *end >= killed).map(|(_, end)| end);
    let resumed = resumed.unwrap_or_else(|| panic!("the child did not run again: {lines:?}"));
    assert!(resumed - killed < 500 * MS, "the child ran again {} ms after the kill", (resumed - killed) / MS);
    assert_ne!(process_state(child), 'T');
}

#[test]
fn refuses_to_start_under_a_cpu_quota_and_starts_without_one() {
    for (name, cgroup, mountinfo, file, limited, unlimited) in [
        (
            "v2",
            "0::/kubepods/pod1\n",
            "41 31 0:38 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
            "sys/fs/cgroup/kubepods/pod1/cpu.max",
            "50000 100000\n",
            "max 100000\n",
        ),
        (
            "v1",
            "4:cpu,cpuacct:/docker/abc\n",
            "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n",
            "sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us",
            "150000\n",
            "-1\n",
        ),
    ] {
        let root = Scratch::new(&format!("quota-{name}"));
        std::fs::create_dir_all(root.0.join("proc/self")).unwrap();
        std::fs::write(root.0.join("proc/self/cgroup"), cgroup).unwrap();
        std::fs::write(root.0.join("proc/self/mountinfo"), mountinfo).unwrap();
        std::fs::create_dir_all(root.0.join(file).parent().unwrap()).unwrap();
        let marker = root.0.join("child-ran");
        let run = |quota: &str| {
            std::fs::write(root.0.join(file), quota).unwrap();
            let _ = std::fs::remove_file(&marker);
            Command::new(support::AGENT)
                .arg("--proc-root")
                .arg(&root.0)
                .args(["--", "touch"])
                .arg(&marker)
                .output()
                .unwrap()
        };

        let refused = run(limited);
        let message = String::from_utf8_lossy(&refused.stderr);
        assert_eq!(refused.status.code(), Some(2), "{name}: {message}");
        assert!(
            message.contains("refusing to start") && message.contains(file) && message.contains("CPU quota"),
            "{message}"
        );
        assert!(!marker.exists(), "{name}: the child must not start under a quota");

        // The control: the same tree without a quota starts the child, and exits with its status.
        let started = run(unlimited);
        assert_eq!(started.status.code(), Some(0), "{name}: {}", String::from_utf8_lossy(&started.stderr));
        assert!(marker.exists(), "{name}: the child ran");
    }
}

#[test]
fn bad_command_lines_and_missing_commands_are_refused_with_a_message() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let taken = format!("127.0.0.1:{}", taken.local_addr().unwrap().port());
    let cannot_listen = format!("cannot listen on {taken}");
    let cases: [(&[&str], i32, &str); 4] = [
        (&[], 2, "no command to run"),
        (&["--spin-us", "lots", "--", "true"], 2, "--spin-us 'lots' is not a whole number"),
        (&["--", "/nonexistent/service"], 127, "cannot run /nonexistent/service"),
        (&["--control", &taken, "--", "true"], 2, &cannot_listen),
    ];
    for (args, status, message) in cases {
        let output = Command::new(support::AGENT).args(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(status), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
    let help = Command::new(support::AGENT).arg("--help").output().unwrap();
    assert!(help.status.success() && String::from_utf8_lossy(&help.stdout).contains("PAUSE <round> <nanoseconds>"));
}
