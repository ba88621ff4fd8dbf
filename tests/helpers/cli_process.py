"""A real ``python -m mockhttp serve`` process for tests: its URL, its log, stopping it."""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import TracebackType

ROOT = Path(__file__).resolve().parents[2]


def mockhttp_command(*args: str) -> list[str]:
    """The command line that runs ``mockhttp`` with this interpreter."""
    return [sys.executable, "-m", "mockhttp", *args]


def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run ``mockhttp ARGS`` to completion, capturing its output."""
    return subprocess.run(
        mockhttp_command(*args), capture_output=True, text=True, timeout=timeout, cwd=ROOT
    )


class Serving:
    """``mockhttp serve --port 0 ARGS`` running in the background.

    ``url`` is the line the process printed on stdout; ``log`` collects stderr lines as
    they arrive (``wait_for_log`` waits for one).
    """

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            mockhttp_command("serve", "--port", "0", *args),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        self.log: list[str] = []
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read_log, daemon=True)
        self._reader.start()
        self.url = self._read_url()

    def _read_url(self, timeout: float = 90) -> str:
        # a wait on a condition, so a generous bound costs nothing: --workers 2 starts three
        # interpreters one after another, 30 s was not enough on a loaded 2-core machine
        stdout = self.proc.stdout
        assert stdout is not None
        found: list[str] = []
        reader = threading.Thread(target=lambda: found.append(stdout.readline()))
        reader.start()
        reader.join(timeout)
        if not found or not found[0]:
            self.proc.kill()  # (its workers stop at the end of their stdin)
            self.proc.wait(30)
            raise AssertionError(f"no URL on stdout; stderr:\n{''.join(self.log)}")
        return found[0].strip()

    def _read_log(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            with self._changed:
                self.log.append(line)
                self._changed.notify_all()

    def wait_for_log(self, text: str, timeout: float = 60) -> str:
        """The first log line containing ``text``, waiting for it to arrive."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                for line in self.log:
                    if text in line:
                        return line
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no log line with {text!r} in:\n{''.join(self.log)}")
                self._changed.wait(left)

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30) -> int:
        """Send ``sig`` and wait for the exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        status = self.proc.wait(timeout)
        self._reader.join(timeout)
        return status

    def __enter__(self) -> Serving:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self._reader.join(10)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


CONSOLE = re.compile(r"^```console\n(.*?)^```$", re.S | re.M)


def console_examples(page: str) -> list[tuple[str, str]]:
    """The ``$ command`` lines of a page's console blocks, each with the output shown."""
    examples: list[tuple[str, str]] = []
    for block in CONSOLE.findall((ROOT / page).read_text()):
        for part in re.split(r"^\$ ", block, flags=re.M)[1:]:
            command, _, output = part.partition("\n")
            examples.append((command, output))
    return examples


def run_shown(command: str) -> str:
    """Run a documented ``mockhttp …`` command; its stdout and stderr, interleaved."""
    args = shlex.split(command)
    assert args[0] == "mockhttp", command
    done = subprocess.run(
        mockhttp_command(*args[1:]),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    return done.stdout
