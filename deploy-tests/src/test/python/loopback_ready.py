"""Waiting for a server started by a test to answer on loopback, shared by the tests' real servers."""

import time


def await_ready(server, opener, url, timeout_s, name):
    """Polls `url` until it answers 200; if the server's process ends first or `timeout_s` passes, closes the
    server and raises with the end of its log, so a failed start says why."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with opener.open(url, timeout=2) as answer:
                if answer.status == 200:
                    return server
        except OSError:
            pass
        if server._process.poll() is not None or time.monotonic() > deadline:
            text = server.log()
            server.close()
            raise RuntimeError(f"{name} did not become ready; its log:\n{text}")
        time.sleep(0.2)
