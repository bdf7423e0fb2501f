"""The walls (scratchpad_mcp.settings.hosts): which Host a request may name, which Origin may send a request that
changes something, and that the middleware answers a refused request itself, without calling the app behind it.
The servers that apply them are driven from outside in tests/deploy/test_walls.py."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from scratchpad_mcp.settings import Settings, SettingsError
from scratchpad_mcp.settings.hosts import HostRule, Walls, split_host

LOOPBACK = HostRule.serving((), "")
LISTED = HostRule.serving(("Scratchpad.example.com", "10.0.0.5:*", "[fd00::5]:8443", "example.org."), "")


@pytest.mark.parametrize(
    "host",
    [
        "127.0.0.1:4321",
        "127.0.0.1",
        "localhost:4321",
        "localhost",
        "LocalHost:1",
        "[::1]:4321",
        "[::1]",
        "127.0.0.5:80",
        "localhost.:4321",
        "LOCALHOST.",
        "[0:0::1]:4321",
        "[0000:0000:0000:0000:0000:0000:0000:0001]",
        "127.0.0.1.:80",
    ],
)
def test_loopback_names_are_answered_with_any_port_or_none(host: str) -> None:
    assert LOOPBACK.accepts(host) and LISTED.accepts(host)


@pytest.mark.parametrize(
    "host",
    [
        None, "", "evil.example", "evil.example:4321", "localhost.evil.example", "127.0.0.1.nip.io:4321",
        "::1", "[::1", "[evil]:80", "127.0.0.1:*", "127.0.0.1:", "127.0.0.1:x", "127.0.0.1:4321:1",
        "[::ffff:127.0.0.1]:80", "0.0.0.0:4321", "10.0.0.6:4321", "127.0.0.1:65536", "localhost:99999",
        "localhost:0", "[::1]:70000", "localhost..", ".", "[127.0.0.1]:80", "[fe80::1%eth0]:80",
    ],
)  # fmt: skip
def test_other_hosts_are_refused(host: str | None) -> None:
    assert not LOOPBACK.accepts(host) and not LISTED.accepts(host)


def test_listed_hosts_as_the_sdk_reads_them_in_any_case() -> None:
    assert LISTED.accepts("scratchpad.example.com") and LISTED.accepts("SCRATCHPAD.example.COM")
    assert not LISTED.accepts("scratchpad.example.com:443")  # a bare name is that name without a port
    assert LISTED.accepts("10.0.0.5:4321") and LISTED.accepts("10.0.0.5:1")  # `:*`: any port ...
    assert LISTED.accepts("10.0.0.5")  # ... or none
    assert LISTED.accepts("[fd00::5]:8443") and not LISTED.accepts("[fd00::5]:8444")
    assert not LOOPBACK.accepts("scratchpad.example.com")  # the list is this server's, not every server's


@pytest.mark.parametrize(
    "host",
    ["scratchpad.example.com.", "Scratchpad.Example.Com.", "[fd00:0::5]:8443", "[FD00:0:0:0:0:0:0:5]:8443",
     "example.org", "example.org.", "10.0.0.5.:80"],
)  # fmt: skip
def test_a_host_compares_in_canonical_form(host: str) -> None:
    """A trailing dot names the same host; an IPv6 address in any spelling is the same address."""
    assert LISTED.accepts(host) and not LOOPBACK.accepts(host)


def test_a_port_that_is_no_port_is_refused() -> None:
    assert not LISTED.accepts("10.0.0.5:65536") and not LISTED.accepts("10.0.0.5:0")
    assert LISTED.accepts("10.0.0.5:65535") and LISTED.accepts("10.0.0.5:080")


def test_a_star_alone_answers_any_host() -> None:
    rule = HostRule.serving(("*",), "")
    assert rule.any_host and rule.accepts("evil.example") and rule.accepts("127.0.0.1:4321")
    assert not LISTED.any_host and not LOOPBACK.any_host


@pytest.mark.parametrize(
    ("bind", "allowed", "starts"),
    [
        ("0.0.0.0", "", False), ("::", "", False), ("10.0.0.5", "", False), ("scratchpad.internal", "", False),
        ("0.0.0.0", "*", True), ("0.0.0.0", "a.example", True),
        ("127.0.0.1", "", True), ("::1", "", True), ("localhost", "", True), ("127.0.0.2", "", True),
    ],
)  # fmt: skip
def test_another_address_than_loopback_needs_the_list(bind: str, allowed: str, starts: bool) -> None:
    settings = Settings.from_env({"SCRATCHPAD_ALLOWED_HOSTS": allowed} if allowed else {})
    if starts:
        settings.check_walls(bind)
        return
    with pytest.raises(SettingsError) as refused:
        settings.check_walls(bind)
    assert str(refused.value) == (
        f"SCRATCHPAD_ALLOWED_HOSTS is not set and {bind} is not a loopback address, so any name pointed at it would "
        "be answered: set it to the names clients use (e.g. SCRATCHPAD_ALLOWED_HOSTS=scratchpad.example.com,"
        "10.0.0.5:*), or to * behind a proxy that checks Host itself."
    )


def test_the_setting_refuses_what_is_no_host_value() -> None:
    settings = Settings.from_env({"SCRATCHPAD_ALLOWED_HOSTS": " a.example, 127.0.0.1:*,[::1]:4321 "})
    assert settings.allowed_hosts == ("a.example", "127.0.0.1:*", "[::1]:4321")
    assert Settings.from_env({"SCRATCHPAD_ALLOWED_HOSTS": "*"}).allowed_hosts == ("*",)
    wrongs = ("https://a.example", "a.example/ui", "a.example:port", "[nope]:1", "a.example:70000", "a.example:0",
              "::1", "[fe80::1%eth0]:80", "a.example:", "[127.0.0.1]", "*.example", "a b")  # fmt: skip
    for wrong in wrongs:
        with pytest.raises(SettingsError) as refused:
            Settings.from_env({"SCRATCHPAD_ALLOWED_HOSTS": f"b.example,{wrong}"})
        message = str(refused.value)
        assert message.startswith("SCRATCHPAD_ALLOWED_HOSTS=") and f"has {wrong!r}, which no Host can match" in message
        assert "\n" not in message
    with pytest.raises(SettingsError, match=r"has \* with other entries: \* alone answers any Host"):
        Settings.from_env({"SCRATCHPAD_ALLOWED_HOSTS": "b.example,*"})


def test_split_host() -> None:
    assert split_host("A.Example:80") == ("a.example", 80)
    assert split_host("a.example.:080") == ("a.example", 80)
    assert split_host("[::1]:*") == ("[::1]", "*")
    assert split_host("[0:0::1]") == ("[::1]", None)
    assert split_host("a.example:123456") is None and split_host("a.example:65536") is None


HOST = {"host": "127.0.0.1:4321"}


@pytest.mark.parametrize(
    ("headers", "refused"),
    [
        ({}, False),  # curl, an MCP client: no browser's form
        ({"origin": "http://127.0.0.1:4321"}, False),
        ({"origin": "http://127.0.0.1:4321", "sec-fetch-site": "same-origin"}, False),
        ({"sec-fetch-site": "same-origin"}, False),
        ({"origin": "null", "sec-fetch-site": "same-origin"}, False),  # a page that hides where it is, says the browser
        ({"referer": "http://127.0.0.1:4321/ui/signin"}, False),
        ({"origin": "http://evil.example"}, True),
        ({"origin": "http://127.0.0.1:4322"}, True),  # another port: another site
        ({"origin": "http://localhost:4321"}, True),  # another name for the same address is another origin
        ({"origin": "https://127.0.0.1:4321"}, False),  # https at a proxy that speaks http to the server
        ({"origin": "null"}, True),
        ({"origin": "file://"}, True),
        ({"sec-fetch-site": "cross-site"}, True),
        ({"sec-fetch-site": "same-site"}, True),  # a sibling name: not this server
        ({"origin": "http://127.0.0.1:4321", "sec-fetch-site": "cross-site"}, True),
        ({"referer": "http://evil.example/page"}, True),
    ],
)
def test_a_request_that_changes_something_must_come_from_this_server(headers: dict[str, str], refused: bool) -> None:
    reason = LOOPBACK.cross_site("POST", {**HOST, **headers}, "http")
    assert (reason is not None) is refused, reason
    for method in ("GET", "HEAD", "OPTIONS"):  # reading is no cross-site harm: the browser keeps the answer from it
        assert LOOPBACK.cross_site(method, {**HOST, **headers}, "http") is None


def test_same_origin_defaults_ports_by_scheme_and_knows_the_public_url() -> None:
    named = {"host": "scratchpad.example.com"}
    assert LISTED.cross_site("POST", {**named, "origin": "https://scratchpad.example.com"}, "http") is None
    assert LISTED.cross_site("POST", {**named, "origin": "http://scratchpad.example.com:80"}, "http") is None
    assert LISTED.cross_site("POST", {**named, "origin": "http://scratchpad.example.com"}, "https") is not None
    behind = {"host": "10.0.0.5:4321", "origin": "https://scratchpad.example.com"}  # a proxy passing its own Host
    assert LISTED.cross_site("POST", behind, "http") is not None
    public = HostRule.serving(("10.0.0.5:*",), "https://scratchpad.example.com")
    assert public.cross_site("POST", behind, "http") is None
    ipv6 = {"host": "[::1]:4321", "origin": "http://[::1]:4321"}
    assert LOOPBACK.cross_site("POST", ipv6, "http") is None
    spelt = {"host": "[0:0::1]:4321", "origin": "http://[0::1]:4321"}  # one address, two spellings
    assert LOOPBACK.cross_site("POST", spelt, "http") is None


class Recorder:
    def __init__(self) -> None:
        self.called = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.called += 1
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"app"})


def call(app: Walls, method: str, headers: list[tuple[bytes, bytes]]) -> tuple[int, bytes, dict[bytes, bytes]]:
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Any) -> None:
        sent.append(message)

    scope = {"type": "http", "method": method, "scheme": "http", "headers": headers, "path": "/"}
    anyio.run(app, scope, receive, send)
    return sent[0]["status"], b"".join(m.get("body", b"") for m in sent[1:]), dict(sent[0]["headers"])


def test_the_middleware_answers_refusals_itself() -> None:
    recorder = Recorder()
    walls = Walls(recorder, LOOPBACK)
    status, body, headers = call(walls, "GET", [(b"host", b"evil.example")])
    assert (status, body) == (421, b"Invalid Host header") and b"content-type" not in headers  # as the MCP SDK
    assert call(walls, "GET", [(b"host", b"127.0.0.1"), (b"host", b"evil.example")])[0] == 421  # two: which one?
    assert call(walls, "GET", [])[0] == 421
    status, body, headers = call(walls, "POST", [(b"host", b"127.0.0.1:4321"), (b"origin", b"http://evil.example")])
    assert status == 403 and headers[b"content-type"] == b"text/plain; charset=utf-8"
    assert body.decode() == (
        "Cross-site request refused: its Origin, http://evil.example, is not this server (127.0.0.1:4321); "
        "send it from this server's own pages."
    )
    assert recorder.called == 0
    assert call(walls, "POST", [(b"host", b"127.0.0.1:4321"), (b"origin", b"http://127.0.0.1:4321")])[:2] == (
        200,
        b"app",
    )
    assert recorder.called == 1
