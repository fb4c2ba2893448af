//! The panic hook, in this process: a panic on any thread continues the service's group before anything else runs.
//! (The release binary then aborts; `never_left_stopped.rs` shows the group is continued after an abort too.)

mod support;

use std::os::unix::process::CommandExt;
use std::process::Command;
use std::thread;
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use support::{process_state, until_none_stopped};

#[test]
fn a_panic_continues_the_stopped_group() {
    let mut service = Command::new("sleep").arg("60").process_group(0).spawn().unwrap();
    let group = Pid::from_raw(service.id() as i32);
    killpg(group, Signal::SIGSTOP).unwrap();
    thread::sleep(Duration::from_millis(50));
    assert_eq!(process_state(group.as_raw()), 'T');

    pause_agent::supervise::continue_on_panic(group);
    let panicked = thread::spawn(|| panic!("a bug in the agent")).join();
    assert!(panicked.is_err());
    let took = until_none_stopped(&[group.as_raw()], Duration::from_millis(200));
    println!("the service ran again {took:?} after the panic");

    // The control: without the hook, the group stays stopped.
    let _ = std::panic::take_hook();
    killpg(group, Signal::SIGSTOP).unwrap();
    let _ = thread::spawn(|| panic!("again, with the default hook")).join();
    thread::sleep(Duration::from_millis(100));
    assert_eq!(process_state(group.as_raw()), 'T', "without the hook nothing continues it");

    killpg(group, Signal::SIGKILL).unwrap();
    let _ = service.wait();
}
