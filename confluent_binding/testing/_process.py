"""Ending the server processes the harness starts (broker, schema registry)."""

from __future__ import annotations

import shutil
import signal
import subprocess
from pathlib import Path
from typing import List, Optional


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


class Resources:
    """What a server object's finalizer releases: its process and the directories it made (no
    reference to the object itself)."""

    __slots__ = ("proc", "remove")

    def __init__(self) -> None:
        self.proc: Optional[subprocess.Popen] = None
        self.remove: List[Path] = []


def release(res: Resources) -> None:
    """Kill ``res.proc`` if it still runs and remove ``res.remove``."""
    kill(res.proc)
    for path in res.remove:
        shutil.rmtree(path, ignore_errors=True)
