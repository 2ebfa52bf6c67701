"""confluent_binding/_core.pyi describes the compiled module exactly (mypy's stubtest)."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def test_stubs_match_the_compiled_module():
    proc = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "confluent_binding._core",
         "--allowlist", os.path.join(HERE, "stubtest-allowlist.txt")],
        capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stdout + proc.stderr
