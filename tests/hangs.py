"""Running code that could hang in a child process, so that a hang fails its test and never
stops the suite."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
HANG_LIMIT_S = 300
"""How long the child may run before it is taken to hang: a guard, not a measure of speed (it
leaves room for compiling the batched kernels on a busy machine)."""


def error_without_hanging(code: str) -> str:
    """The last line of what `code`, run in a fresh Python from the repository root, writes to
    stderr as it fails; the test fails if it succeeds or has not ended after `HANG_LIMIT_S`."""
    try:
        child = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            timeout=HANG_LIMIT_S,
            cwd=ROOT,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"still running after {HANG_LIMIT_S} s, so it hangs: {code}")
    assert child.returncode != 0, f"it succeeded: {code}"
    return child.stderr.strip().splitlines()[-1]
