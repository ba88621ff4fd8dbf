"""Every Python example in the README and the docs runs, as written.

A ```python block runs as a script (the blocks of one page share a namespace, in order); a
```python test block is a pytest module, run with the plugin enabled.
"""

from __future__ import annotations

import re
from pathlib import Path

import httpcore  # noqa: F401
import httpx  # noqa: F401
import pytest

from tests.helpers.modules import run_modules, user_code

# Imported here, before any in-process pytester run: pytester takes the modules a run
# imported out of sys.modules afterwards, and an httpx imported again after that no
# longer maps httpcore's errors to its own (the README's `except httpx.RemoteProtocolError`
# then missed), when this file ran before any other that imports them.

ROOT = Path(__file__).resolve().parents[2]
PAGES = [
    "README.md",
    "docs/quickstart.md",
    "docs/matching.md",
    "docs/replies.md",
    "docs/verification.md",
    "docs/pytest.md",
    "docs/errors.md",
    "docs/llm.md",
    "docs/agent-protocols.md",
    "docs/agents.md",
    "docs/scale.md",
    "docs/limits.md",
    "docs/browsers.md",
    "docs/load-testing.md",
    "docs/journal.md",
    "docs/sse.md",
    "docs/tls.md",
    "docs/realtime.md",
    "docs/telemetry.md",
    "docs/isolation.md",
    "docs/dashboard.md",
]
# pages whose examples need a program the machine may lack (.ci/run installs them)
NEEDS = {"docs/browsers.md": Path("/usr/bin/chromium")}
BLOCK = re.compile(r"^```python( test)?\n(.*?)^```$", re.S | re.M)
YAML = re.compile(r"^```yaml\n(.*?)^```$", re.S | re.M)


def blocks(page: str) -> list[tuple[bool, str]]:
    text = (ROOT / page).read_text()
    return [(bool(kind), code) for kind, code in BLOCK.findall(text)]


@pytest.mark.parametrize("page", PAGES)
def test_page_examples_run(page: str, tmp_path: Path) -> None:
    """The page's scripts run without error and its test modules pass."""
    needed = NEEDS.get(page)
    if needed is not None and not needed.exists():
        pytest.skip(f"{page} needs {needed} (apt-get install chromium)")
    found = blocks(page)
    assert found, f"{page} has no python example"
    stem = re.sub(r"\W", "_", Path(page).stem)
    tests = {f"test_{stem}_{i}": code for i, (is_test, code) in enumerate(found) if is_test}
    with user_code() as namespace:
        for is_test, code in found:
            if not is_test:
                exec(compile(code, f"{page}:example", "exec"), namespace)
    if tests:  # one pytest process for the page's test modules: its start is most of the cost
        outcomes, printed = run_modules(tmp_path, tests)
        for module, seen in outcomes.items():
            assert seen.get("passed", 0) >= 1, (module, printed)
            assert not seen.get("failed"), (module, printed)
            assert not seen.get("errors"), (module, printed)  # e.g. unmatched at teardown


@pytest.mark.parametrize("page", PAGES)
def test_page_mock_files_load(page: str) -> None:
    """Every YAML mock shown on the page loads."""
    import mockhttp

    for text in YAML.findall((ROOT / page).read_text()):
        assert mockhttp.loads(text, page)
