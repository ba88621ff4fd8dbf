"""``mockhttp check``: check a live endpoint or a recorded exchange against a profile.

The lead's ``mockhttp`` entry point mounts this as a subcommand through
``configure_parser`` and ``run``; ``python -m mockhttp.contract`` runs it alone.
Exit status: 0 no violation, 1 at least one violation, 2 usage error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from .._core._errors import ConfigError
from .._core._redact import Redactor
from ..contract._answer import parse_answer
from ..contract._check import Outcome, evaluate
from ..contract._html import format_html
from ..contract._live import api_of, auth_headers, run_live
from ..contract._mcp_live import run_mcp_live
from ..contract._profiles import PROFILES
from ..contract._providers import PROVIDERS, provider
from ..contract._realtime import REALTIME
from ..contract._recognise import recognise
from ..contract._record import Limits
from ..contract._report import format_json, format_junit, format_summary, format_table
from ..contract._resume_live import PROFILE as RESUME
from ..contract._resume_live import probe_resume
from ..contract._rule import json_terms
from ..contract._transcript import Transcript, parse_head
from . import _argtypes as argtypes

__all__ = ["configure_parser", "run"]

OK, VIOLATION, USAGE = 0, 1, 2
_KEY_ENV = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "responses": "OPENAI_API_KEY",
    "gemini": "GEMINI_API_KEY",
}


class UsageError(Exception):
    """A bad command line: reported on stderr with exit status 2."""


def configure_parser(parser: argparse.ArgumentParser) -> None:
    """Add the ``check`` arguments to ``parser``."""
    parser.description = (
        "Check an LLM streaming endpoint's raw SSE bytes against a contract profile, "
        "live (URL --model M) or from recorded files (--body FILE)."
    )
    parser.add_argument("url", nargs="?", help="live mode: the endpoint or base URL")
    parser.add_argument("--model", help="live mode: the model to ask")
    parser.add_argument(
        "--api-key",
        help="live mode: the API key (default: $MOCKHTTP_API_KEY, then $OPENAI_API_KEY, "
        "$ANTHROPIC_API_KEY or $GEMINI_API_KEY by profile; none for a local server)",
    )
    parser.add_argument(
        "--profile",
        action="append",
        choices=[*PROFILES, *REALTIME],
        help="rule profile, repeatable (default: recognised from the body offline, "
        "openai-chat live; sse-resume: GET the URL twice, the second time with "
        "Last-Event-ID, and check the rest arrives once; openai-realtime, gemini-live: a "
        "scripted WebSocket session to a ws:// URL, or --capture FILE of its frames)",
    )
    parser.add_argument(
        "--header", action="append", default=[], metavar="'NAME: VALUE'", help="extra header"
    )
    parser.add_argument(
        "--timeout",
        type=argtypes.seconds,
        default=60.0,
        metavar="SECONDS",
        help="live mode: seconds to connect and per read (60)",
    )
    parser.add_argument(
        "--deadline",
        type=argtypes.seconds,
        default=300.0,
        metavar="SECONDS",
        help="live mode: the whole check ends within this many seconds (300)",
    )
    parser.add_argument(
        "--max-bytes",
        type=argtypes.size,
        default=64 * 1024 * 1024,
        metavar="SIZE",
        help="live mode: read at most SIZE of one response body (64MiB)",
    )
    parser.add_argument(
        "--max-event-bytes",
        type=argtypes.size,
        default=1024 * 1024,
        metavar="SIZE",
        help="live mode: one line or event may be at most SIZE (1MiB)",
    )
    parser.add_argument(
        "--max-lines",
        type=argtypes.count,
        default=100_000,
        metavar="N",
        help="live mode: read at most N lines of one response body (100000)",
    )
    parser.add_argument("--body", type=Path, help="offline mode: the raw response body")
    parser.add_argument(
        "--capture",
        type=Path,
        metavar="FILE",
        help="offline, --profile mcp: a recorded MCP session (JSON, as scripts/mcp_capture.py "
        "writes it): each answer and the transport's rules over the session; --profile "
        "openai-realtime or gemini-live: a WebSocket session's frames (JSON)",
    )
    parser.add_argument("--head", type=Path, help="offline: the response head (curl -D)")
    parser.add_argument(
        "--request",
        type=Path,
        metavar="FILE",
        help="live: your own request body (JSON: tools, response formats, provider fields), "
        "the base of every request sent, the stream flag set per exchange; offline: the JSON "
        "request that was sent",
    )
    parser.add_argument("--buffered", type=Path, help="offline: the buffered answer (JSON)")
    parser.add_argument(
        "--as",
        dest="as_",
        metavar="PROVIDER",
        help=f"the provider the stream comes from ({', '.join(PROVIDERS)}): its documented "
        "quirks are reported as notes naming the quirk",
    )
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="print every rule of every exchange (pass, skipped, findings), not only what failed",
    )
    parser.add_argument("--json", action="store_true", help="print findings as JSON")
    parser.add_argument("--junit", type=Path, metavar="FILE", help="also write JUnit XML")
    parser.add_argument(
        "--html",
        type=Path,
        metavar="FILE",
        help="also write an HTML report: the findings with the bytes around each, and the "
        "stream's timeline",
    )
    parser.add_argument(
        "--save", type=Path, metavar="FILE", help="live mode: write the exchanges as a mock file"
    )


def run(args: argparse.Namespace) -> int:
    """Run the check described by ``args``; print the report; return the exit status."""
    try:
        outcomes = _outcomes(args)
    except UsageError as exc:
        print(f"mockhttp check: error: {exc}", file=sys.stderr)
        return USAGE
    except KeyboardInterrupt:  # outside a recording (which reports its own)
        print("mockhttp check: interrupted", file=sys.stderr)
        return VIOLATION
    shown = format_table if args.verbose else format_summary
    redactor = _redactor(args)  # an endpoint may repeat the key: no report does
    print(redactor.text(format_json(outcomes) if args.json else shown(outcomes)), end="")
    for option, path, made in (
        ("--junit", args.junit, format_junit),
        ("--html", args.html, format_html),
    ):
        if path is None:
            continue
        try:
            path.write_text(redactor.text(made(outcomes)), encoding="utf-8")
        except OSError as exc:
            print(
                f"mockhttp check: error: cannot write {option} {path}: {exc.strerror or exc}",
                file=sys.stderr,
            )
            return USAGE
    return VIOLATION if any(o.violations for o in outcomes) else OK


def _redactor(args: argparse.Namespace) -> Redactor:
    """The one redaction rule for the key and headers this check sends."""
    given = [getattr(args, "api_key", None), os.environ.get("MOCKHTTP_API_KEY")]
    given += [os.environ.get(name) for name in _KEY_ENV.values()]
    keys = [("x-api-key", k) for k in given if k]
    try:
        headers = list(_headers(getattr(args, "header", None) or []).items())
    except UsageError:
        headers = []
    return Redactor.of([*keys, *headers])


def _outcomes(args: argparse.Namespace) -> list[Outcome]:
    profiles: list[str] = args.profile or []
    if args.as_ is not None:
        try:
            args.as_ = provider(args.as_).name
        except ConfigError as exc:
            raise UsageError(f"--as: {exc}") from None
    if any(p in REALTIME for p in profiles):
        return [_realtime(args, profiles)]
    if getattr(args, "capture", None) is not None:
        return _capture(args, profiles)
    if (args.url is None) == (args.body is None):
        raise UsageError("give either a URL (live mode) or --body FILE (offline mode)")
    if RESUME in profiles:
        return [_resume(args, profiles)]
    if args.body is not None:
        return [_offline(args, profiles)]
    agui = next((p for p in profiles if p in ("ag-ui", "ag-ui-strict")), None)
    if agui is not None:
        return _agui_live(args, profiles, agui)
    if "a2a" in profiles:
        return _a2a_live(args, profiles)
    return _live(args, profiles or ["openai-chat"])


def _agui_live(args: argparse.Namespace, profiles: list[str], profile: str) -> list[Outcome]:
    """``--profile ag-ui`` (or ``ag-ui-strict``) live: one RunAgentInput POSTed to the URL
    (no --model)."""
    from ..contract._agui_live import run_agui_live

    def run(*given: Any, **options: Any) -> list[Outcome]:
        return run_agui_live(*given, **options, profile=profile)

    return _posted_live(args, profiles, profile, run)


def _a2a_live(args: argparse.Namespace, profiles: list[str]) -> list[Outcome]:
    """``--profile a2a`` live: one JSON-RPC message/stream POSTed to the URL (no --model)."""
    from ..contract._a2a_live import run_a2a_live

    return _posted_live(args, profiles, "a2a", run_a2a_live)


def _posted_live(
    args: argparse.Namespace, profiles: list[str], profile: str, run: Callable[..., list[Outcome]]
) -> list[Outcome]:
    """An agent endpoint's live check: ``profile`` alone, a bearer key if given, the
    ``--request`` JSON, the usual limits."""
    if profiles != [profile]:
        raise UsageError(f"live mode checks {profile} on its own")
    headers = _headers(args.header)
    if args.api_key:
        headers = {"authorization": f"Bearer {args.api_key}", **headers}
    request = _read_json(getattr(args, "request", None), "--request")
    limits = Limits(
        time.monotonic() + args.deadline, args.max_bytes, args.max_event_bytes, args.max_lines
    )
    outcomes: list[Outcome] = run(args.url, headers, args.timeout, limits, request=request)
    return outcomes


def _resume(args: argparse.Namespace, profiles: list[str]) -> Outcome:
    """``--profile sse-resume``: GET the stream, reconnect with Last-Event-ID, compare."""
    if args.body is not None:
        raise UsageError(f"{RESUME} is live only: it reads the stream twice (give a URL)")
    if len(profiles) > 1 or args.save is not None:
        raise UsageError(f"{RESUME} runs on its own (no other --profile, no --save)")
    key = args.api_key or os.environ.get("MOCKHTTP_API_KEY")
    if key is not None and not key.isascii():
        raise UsageError("the API key (--api-key or its environment variable) is not ASCII")
    headers = {**auth_headers("openai", key), **_headers(args.header)}
    _url(args.url)
    limits = Limits(
        time.monotonic() + args.deadline, args.max_bytes, args.max_event_bytes, args.max_lines
    )
    return probe_resume(args.url, headers, args.timeout, limits)


def _url(url: str) -> None:
    try:
        httpx.URL(url)
        urlsplit(url)
    except (ValueError, httpx.InvalidURL) as exc:
        raise UsageError(f"the URL {url!r} is not valid: {exc}") from None


def _live(args: argparse.Namespace, profiles: list[str]) -> list[Outcome]:
    if "mcp" in profiles:
        return _live_mcp(args, profiles)
    request = _read_request(args.request)
    model = args.model or (request or {}).get("model")  # --request alone names it
    if not isinstance(model, str) or not model:
        raise UsageError("live mode needs --model, or a --request body that names its model")
    try:
        api = api_of(profiles)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    key = args.api_key or os.environ.get("MOCKHTTP_API_KEY") or os.environ.get(_KEY_ENV[api])
    if key is not None and not key.isascii():
        raise UsageError("the API key (--api-key or its environment variable) is not ASCII")
    headers = {**auth_headers(api, key), **_headers(args.header)}
    _url(args.url)
    limits = Limits(
        time.monotonic() + args.deadline, args.max_bytes, args.max_event_bytes, args.max_lines
    )
    if args.save is None:
        return run_live(
            args.url, model, api, headers, args.timeout, limits,
            as_=args.as_, request=request,
        )  # fmt: skip
    seen: list[tuple[str, dict[str, Any], Transcript]] = []
    outcomes = run_live(
        args.url, model, api, headers, args.timeout, limits,
        lambda *x: seen.append(x), as_=args.as_, request=request,
    )  # fmt: skip
    _save(args.save, seen, headers)
    return outcomes


def _capture(args: argparse.Namespace, profiles: list[str]) -> list[Outcome]:
    """``--capture FILE``: an MCP session recorded exchange by exchange (offline)."""
    from ..contract._mcp_capture import check_capture, loads_capture

    if profiles not in ([], ["mcp"]) or args.url is not None or args.body is not None:
        raise UsageError("--capture is checked with --profile mcp alone (no URL, no --body)")
    try:
        text = args.capture.read_text(encoding="utf-8")
        return check_capture(loads_capture(text, str(args.capture)))
    except OSError as exc:
        raise UsageError(f"cannot read --capture {args.capture}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _realtime(args: argparse.Namespace, profiles: list[str]) -> Outcome:
    """``--profile openai-realtime`` / ``gemini-live``: a scripted session to a ws:// URL,
    or ``--capture FILE`` of a session's frames."""
    from ..contract._realtime import check_frames, loads_frames
    from ..contract._realtime_live import auth_headers as realtime_auth
    from ..contract._realtime_live import run_realtime_live

    if len(profiles) != 1 or args.body is not None:
        raise UsageError(f"{profiles[0]} is checked on its own (no other --profile, no --body)")
    profile = profiles[0]
    if args.capture is not None:
        if args.url is not None:
            raise UsageError("give either a ws:// URL (live) or --capture FILE (offline)")
        try:
            text = args.capture.read_text(encoding="utf-8")
            return check_frames(loads_frames(text, str(args.capture)), profile)
        except OSError as exc:
            raise UsageError(
                f"cannot read --capture {args.capture}: {exc.strerror or exc}"
            ) from None
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    if args.url is None:
        raise UsageError(f"{profile} needs a ws:// URL (live) or --capture FILE (offline)")
    env = "GEMINI_API_KEY" if profile == "gemini-live" else "OPENAI_API_KEY"
    key = args.api_key or os.environ.get("MOCKHTTP_API_KEY") or os.environ.get(env)
    headers = {**realtime_auth(profile, key), **_headers(args.header)}
    try:
        outcome, _frames = run_realtime_live(
            args.url, profile, model=args.model, headers=headers, timeout=args.timeout
        )
    except (ValueError, OSError) as exc:
        raise UsageError(f"{profile}: {exc}") from None
    return outcome


def _live_mcp(args: argparse.Namespace, profiles: list[str]) -> list[Outcome]:
    """``--profile mcp`` live: an MCP session (no model, no key unless --header gives one)."""
    if profiles != ["mcp"]:
        raise UsageError("live mode checks mcp on its own")
    limits = Limits(
        time.monotonic() + args.deadline, args.max_bytes, args.max_event_bytes, args.max_lines
    )
    return run_mcp_live(args.url, _headers(args.header), args.timeout, limits)


def _save(
    path: Path, seen: list[tuple[str, dict[str, Any], Transcript]], headers: dict[str, str]
) -> None:
    """Write the exchanges of a live check as one mock file (``mockhttp.record``)."""
    from urllib.parse import urlsplit

    from .._mockfile._load import dump
    from ..record import from_transcript
    from ..record._names import unique_names

    sent = tuple(headers.items())  # its secrets are hidden wherever a reply repeats them
    mocks = unique_names(
        [
            from_transcript(t, request, urlsplit(target).path, headers=sent)
            for target, request, t in seen
        ]
    )
    try:
        path.write_text(dump(mocks), encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--save {path}: {exc.strerror}") from None
    print(f"mockhttp check: saved {len(mocks)} exchanges to {path}", file=sys.stderr)


def _offline(args: argparse.Namespace, profiles: list[str]) -> Outcome:
    status = 200
    headers: tuple[tuple[str, str], ...] = (("content-type", "text/event-stream"),)
    if args.head is not None:
        try:
            status, headers = parse_head(_read(args.head).decode("utf-8", "replace"))
        except ValueError as exc:
            raise UsageError(f"--head {args.head}: {exc}") from None
    request = _read_json(args.request, "--request")
    buffered = _read_json(args.buffered, "--buffered", parse_answer)
    transcript = Transcript.from_body(
        _read(args.body), status=status, headers=headers, request=request, buffered=buffered
    )
    if not profiles:
        found = recognise(transcript)
        profiles = [found or "openai-chat"]
        how = "recognised from the exchange" if found else "nothing recognised: the default"
        print(
            f"mockhttp check: profile {profiles[0]} ({how}; --profile to choose)", file=sys.stderr
        )
    if buffered is not None and profiles == ["openai-chat"]:
        profiles = [*profiles, "stream-equals-buffered"]
    return evaluate(transcript, profiles, str(args.body), as_=args.as_)


def _headers(given: list[str]) -> dict[str, str]:
    headers = {}
    for item in given:
        name, sep, value = item.partition(":")
        if not sep or not name.strip():
            raise UsageError(f"--header {item!r} is not 'Name: value'")
        if not item.isascii():  # httpx sends header names and values as ASCII
            raise UsageError(f"--header {item!r}: names and values must be ASCII")
        headers[name.strip()] = value.strip()
    return headers


def _read(path: Path, option: str = "") -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        where = f"{option} {path}" if option else str(path)
        raise UsageError(f"cannot read {where}: {exc.strerror}") from None


def _read_json(path: Path | None, option: str, parse: Callable[[bytes], Any] = json.loads) -> Any:
    if path is None:
        return None
    try:
        return parse(_read(path, option))
    except ValueError as exc:
        raise UsageError(f"{option} {path} is not JSON: {exc}") from None
    except RecursionError:
        raise UsageError(f"{option} {path} is nested too deep to parse as JSON") from None


def _read_request(path: Path | None) -> dict[str, Any] | None:
    """The user's request body for a live check (``--request FILE``): a JSON object."""
    if path is None:
        return None
    body = _read_json(path, "--request")
    if not isinstance(body, dict):
        raise UsageError(
            f"--request {path} must be a JSON object (a request body), not {json_terms(body)[:40]}"
        )
    return body
