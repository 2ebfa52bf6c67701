"""Ending the server processes the harness starts (broker, schema registry)."""

from __future__ import annotations

import signal
import subprocess
from typing import Optional


def terminate(proc: subprocess.Popen, timeout: float) -> None:
    """SIGTERM (the JVM's clean shutdown), wait up to ``timeout`` seconds, then SIGKILL."""
    if proc.poll() is None:
        try:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            kill(proc)


def kill(proc: Optional[subprocess.Popen]) -> None:
    """SIGKILL ``proc`` if it still runs, and reap it."""
    if proc is not None and proc.poll() is None:
        proc.kill()
        proc.wait()
