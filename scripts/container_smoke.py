"""Build mockhttp's container image with buildah and run it: serve, probe, one streamed reply,
the admin API locked, a clean stop.

No Docker engine and no image registry are needed: the base image is made from Debian's
packages with ``mmdebstrap`` (python3, python3-venv, ca-certificates) unless ``--base`` names
one buildah already has (``python:3.12-slim``, the Dockerfile's default, where a registry is
reachable), the wheels come from this machine's package index into ``wheelhouse/`` (so the
build needs no network), and the image is built with ``buildah bud --isolation chroot`` from
the repository's ``Dockerfile``, then run with ``buildah run`` as the image's own entry point,
user and environment say.

Usage: ``python scripts/container_smoke.py [--base IMAGE]`` (prints each step with its time;
exit 0 when all pass).  docs/containers.md shows a run.  ``.ci/run`` runs it when buildah
is present (``.ci/install-container`` installs it).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEBIAN_BASE = "localhost/mockhttp-base:bookworm"
IMAGE = "localhost/mockhttp:smoke"
EXTRAS = "fast,http2,tls,metrics"

MOCK = """\
- name: streamed
  request: {method: POST, path: /v1/stream}
  response:
    event_stream:
      events:
        - {data: one}
        - {data: two}
"""


def step(what: str, *command: str | Path, timeout: float = 900) -> str:
    started = time.monotonic()
    done = subprocess.run(
        [str(c) for c in command], cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )
    took = time.monotonic() - started
    if done.returncode != 0:
        sys.exit(f"FAIL {what} ({took:.1f} s):\n{done.stdout[-4000:]}{done.stderr[-4000:]}")
    print(f"ok   {what} ({took:.1f} s)", flush=True)
    return done.stdout


def has_image(name: str) -> bool:
    done = subprocess.run(["buildah", "inspect", "--type", "image", name], capture_output=True)
    return done.returncode == 0


def debian_base() -> str:
    """A base image made from Debian's packages (no registry needed), made once."""
    if has_image(DEBIAN_BASE):
        print(f"ok   base image {DEBIAN_BASE} (already made)")
        return DEBIAN_BASE
    with tempfile.TemporaryDirectory() as tmp:
        tar = Path(tmp) / "base.tar"
        step("mmdebstrap bookworm (python3, python3-venv, ca-certificates)", "mmdebstrap",
             "--variant=minbase", "--include=python3,python3-venv,ca-certificates",
             "--quiet", "bookworm", tar, "http://deb.debian.org/debian")  # fmt: skip
        ctr = step("buildah from scratch", "buildah", "from", "scratch").strip()
        step("buildah add the root file system", "buildah", "add", ctr, tar, "/")
        step(f"buildah commit {DEBIAN_BASE}", "buildah", "commit", "-q", ctr, DEBIAN_BASE)
        step("buildah rm", "buildah", "rm", ctr)
    return DEBIAN_BASE


def build(base: str) -> None:
    wheelhouse = ROOT / "wheelhouse"
    shutil.rmtree(wheelhouse, ignore_errors=True)
    try:
        step(f"pip wheel '.[{EXTRAS}]' into wheelhouse/", sys.executable, "-m", "pip", "wheel",
             "-q", "-w", wheelhouse, f".[{EXTRAS}]")  # fmt: skip
        step(f"buildah bud --isolation chroot (BASE={base})", "buildah", "bud", "-q",
             "--isolation", "chroot", "--format", "docker", "--build-arg", f"BASE={base}",
             "-t", IMAGE, ".")  # fmt: skip
    finally:
        shutil.rmtree(wheelhouse, ignore_errors=True)


def config() -> dict[str, object]:
    out = step("buildah inspect", "buildah", "inspect", "--type", "image", IMAGE)
    docker = json.loads(out)["Docker"]["config"]
    assert docker["User"] == "10001:10001", f"the image runs as {docker['User']!r}, not a user"
    assert docker["Entrypoint"] == ["mockhttp-entrypoint"], docker["Entrypoint"]
    assert "/__mockhttp/health" in " ".join(docker["Healthcheck"]["Test"]), docker["Healthcheck"]
    print("ok   image config: user 10001, entry point, HEALTHCHECK on the health probe")
    return dict(docker)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_healthy(base: str, proc: subprocess.Popen[str], deadline: float) -> None:
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"FAIL the container exited {proc.returncode}:\n{proc.stderr.read()}")  # type: ignore[union-attr]
        try:
            with urllib.request.urlopen(base + "/__mockhttp/health", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    sys.exit("FAIL the health probe did not answer within 60 s")


def run(docker: dict[str, object]) -> None:
    port = free_port()
    env = [f"{k}" for k in docker.get("Env", [])]  # type: ignore[union-attr]
    env.append(f"MOCKHTTP_PORT={port}")  # the image's port, moved: the run shares this host's
    with tempfile.TemporaryDirectory() as mocks:
        (Path(mocks) / "stream.yaml").write_text(MOCK)
        os.chmod(mocks, 0o755)
        ctr = step("buildah from the image", "buildah", "from", IMAGE).strip()
        command = ["buildah", "run", "--isolation", "chroot", "--user", str(docker["User"]),
                   "-v", f"{mocks}:/mocks:ro"]  # fmt: skip
        for item in env:
            command += ["--env", item]
        command += [ctr, "--", *docker["Entrypoint"]]  # type: ignore[misc]
        started = time.monotonic()
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            base = f"http://127.0.0.1:{port}"
            wait_healthy(base, proc, started + 60)
            print(f"ok   serve: the health probe answered ({time.monotonic() - started:.1f} s)")
            step("HEALTHCHECK command inside the container", "buildah", "run", "--isolation",
                 "chroot", "--env", f"MOCKHTTP_PORT={port}", ctr, "--",
                 *docker["Healthcheck"]["Test"][1:])  # type: ignore[index]  # fmt: skip
            streamed(base)
            admin_locked(base)
            stop(port)
            code = proc.wait(timeout=30)
            err = proc.stderr.read()  # type: ignore[union-attr]
            if code != 0:
                sys.exit(f"FAIL stop: exit {code}\n{err}")
            assert "Traceback" not in err, err
            print("ok   clean stop on SIGTERM (exit 0)")
        finally:
            if proc.poll() is None:
                proc.kill()
            subprocess.run(["buildah", "rm", ctr], capture_output=True)


def stop(port: int) -> None:
    """SIGTERM to the server itself, as ``docker stop`` sends to the container's first process
    (``buildah run`` would kill its child rather than pass the signal on)."""
    pattern = f"mockhttp serve --host 0.0.0.0 --port {port}"
    done = subprocess.run(["pkill", "-TERM", "-f", pattern], capture_output=True)
    assert done.returncode == 0, f"no process matched {pattern!r}"


def streamed(base: str) -> None:
    request = urllib.request.Request(base + "/v1/stream", method="POST", data=b"{}")
    with urllib.request.urlopen(request, timeout=10) as answer:
        body = answer.read()
        kind = answer.headers["content-type"]
    assert kind.startswith("text/event-stream"), kind
    assert body == b"data: one\n\ndata: two\n\n", body
    print("ok   a streamed reply from the mounted mock file, byte for byte")


def admin_locked(base: str) -> None:
    try:
        urllib.request.urlopen(base + "/__mockhttp/mocks", timeout=10)
    except urllib.error.HTTPError as e:
        code = e.code
    else:
        code = 200
    if code != 401:
        sys.exit(f"FAIL the admin API answered {code} without a token, not 401")
    print("ok   the admin API refuses a request without the token (401)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", help="a base image buildah has (default: made with mmdebstrap)")
    args = parser.parse_args()
    for tool in ("buildah", *(() if args.base else ("mmdebstrap",))):
        if shutil.which(tool) is None:
            sys.exit(f"FAIL {tool} is not installed (.ci/install-container installs it)")
    build(args.base or debian_base())
    run(config())


if __name__ == "__main__":
    main()
