"""The dashboard's side of the admin API (``_server/_dashboard.py``): its static files, the
session cookie, and what a call's JSON adds (on ``Call`` objects built here)."""

from __future__ import annotations

from mockhttp import Event, fault, ok
from mockhttp._core._redact import Redactor
from mockhttp._core._request import Headers, Request
from mockhttp._server._dashboard import (
    COOKIE,
    CSP,
    UI_DIR,
    call_extras,
    cookie_token,
    resumes,
    resumes_of,
    session_cookie,
    session_value,
    static,
)
from mockhttp._server._journal import Call
from mockhttp._server._watch import Planned

T0 = 2_000.0


def request(*headers: tuple[str, str]) -> Request:
    return Request("GET", "/s", Headers(headers), b"")


def test_the_files_are_the_package_s_with_their_types_and_policy() -> None:
    assert sorted(p.name for p in UI_DIR.iterdir()) == [
        "dashboard.css", "dashboard.js", "index.html"
    ]  # fmt: skip
    page = static("")
    assert page.status_code == 200
    headers = dict(page.headers)
    assert headers["Content-Type"] == "text/html; charset=utf-8"
    assert headers["Content-Security-Policy"] == CSP
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert static("dashboard.js").status_code == 200
    assert dict(static("dashboard.css").headers)["Content-Type"] == "text/css; charset=utf-8"


def test_no_file_outside_the_three_is_served() -> None:
    for name in ("../_admin.py", ".hidden.js", "nothing.js", "index.py", "a/b.js"):
        assert static(name).status_code == 404, name


def test_the_page_runs_no_inline_script() -> None:
    html = (UI_DIR / "index.html").read_text()
    assert '<script src="dashboard.js" defer></script>' in html
    assert html.count("<script") == 1
    assert " on" not in html.replace(" one", "")  # no onclick= and the like


def test_the_cookie_is_a_mac_of_the_token_for_the_prefix_only() -> None:
    cookie = dict(session_cookie("tok-1").headers)["Set-Cookie"]
    assert cookie == (
        f"{COOKIE}={session_value('tok-1')}; Path=/__mockhttp/; HttpOnly; SameSite=Strict"
    )
    assert "tok-1" not in cookie
    assert session_value("tok-1") != session_value("tok-2")
    assert dict(session_cookie(None).headers).get("Set-Cookie") is None


def test_the_cookie_is_read_among_others() -> None:
    good = request(("Cookie", f"a=1; {COOKIE}={session_value('k')}; b=2"))
    assert cookie_token(good, "k")
    assert not cookie_token(good, "other")
    assert not cookie_token(request(("Cookie", f"{COOKIE}=k")), "k")
    assert not cookie_token(request(), "k")


def stream_call(outcome: str, body: bytes, times: list[float], end: float) -> Call:
    call = Call(request(), None, 200, body_bytes=len(body), events=len(times), time=T0)
    call.body_sent = bytearray(body)
    call.event_times = times
    call.end_time = end
    call.outcome = outcome  # type: ignore[assignment]
    call._ended = True
    return call


def test_a_call_that_is_no_stream_has_no_timeline() -> None:
    call = Call(request(), None, 200, time=T0)
    call.end_time = T0 + 0.002
    call._ended = True
    found = call_extras(call, None, None, None)
    assert found["timeline"] is None
    assert found["duration_ms"] == 2.0
    assert found["id"] == call._seq


def test_a_watched_stream_has_its_plan_and_faults() -> None:
    reply = ok().event_stream(Event(data="a", id="1"), Event(data="b", id="2"), event_delay=0.1)
    faults = (fault.reset_after_events(1),)
    body = b"id: 1\ndata: a\n\n"
    call = stream_call("reset", body, [T0 + 0.001], T0 + 0.002)
    found = call_extras(call, Planned(reply, faults, 0, False), None, None)
    line = found["timeline"]
    assert [(e["id"], e["planned_ms"], e["whole"]) for e in line["events"]] == [("1", 0.0, True)]
    assert line["faults"] == ["reset_after_events(1)"]
    assert [m["kind"] for m in line["marks"]] == ["fault", "cut"]


def test_an_event_s_data_is_redacted_like_the_request() -> None:
    secret = "sk-live-abcdef123456"
    call = stream_call("complete", f"data: key {secret}\n\n".encode(), [T0], T0)
    call.request = request(("Authorization", f"Bearer {secret}"))
    redactor = Redactor.of_request(call.request)
    (event,) = call_extras(call, None, None, redactor)["timeline"]["events"]
    assert event["data"] == "key [redacted]"


def test_a_fast_lane_call_ends_as_it_arrives() -> None:
    call = Call(request(), None, 200, time=T0, outcome="complete")
    call._ended = True  # (no end_time: written in one write)
    found = call_extras(call, None, None, None)
    assert (found["duration_ms"], found["end_time"]) == (0.0, "1970-01-01T00:33:20.000+00:00")


def test_resumes_links_a_reconnect_by_the_ids_delivered() -> None:
    mock = object()
    first = stream_call("closed", b"id: 1\ndata: a\n\nid: 2\ndata: b\n\n", [T0, T0], T0 + 1)
    second = stream_call("complete", b"id: 3\ndata: c\n\n", [T0 + 2], T0 + 3)
    second.request = request(("Last-Event-ID", "2"))
    for call in (first, second):
        call.mock = mock  # type: ignore[assignment]
    assert resumes([first, second]) == {second._seq: first._seq}
    assert resumes_of(second, [first, second]) == first._seq  # (itself left out)
    assert resumes_of(first, [first, second]) is None
