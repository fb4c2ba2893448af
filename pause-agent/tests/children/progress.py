"""The service the tests run under the agent: it spins on the monotonic clock and reports each gap in its own progress.

A gap is a stretch of time in which the loop did not run at all: the process was stopped, or not scheduled. The agent
reports its pauses on the same clock, so the tests can tell whether the child really stood still during a pause, and
for how long. On SIGTERM or SIGINT it says so and exits with the status in EXIT_ON_SIGNAL (default 7).
"""
import os
import signal
import sys
import time

threshold_ns = int(sys.argv[1]) if len(sys.argv) > 1 else 2_000_000
exit_status = int(os.environ.get("EXIT_ON_SIGNAL", "7"))


def on_signal(number, _frame):
    print(f"signal {number} {time.monotonic_ns()}", flush=True)
    sys.exit(exit_status)


signal.signal(signal.SIGTERM, on_signal)
signal.signal(signal.SIGINT, on_signal)
print(f"ready {os.getpid()}", flush=True)
last = time.monotonic_ns()
while True:
    now = time.monotonic_ns()
    if now - last > threshold_ns:
        print(f"gap {last} {now}", flush=True)
    last = now
