"""Every refusal code, worded by each interface: MCP through a real client (the text as the library says it, the
code and whether a retry helps as data), the command line through its ending of a failed command (its options
and commands) and the web view through its app (its controls and pages), each in one line; neither the command
line nor the web view names an MCP tool or argument. Each code's example is what the library really raises for
a call (or, for the errors only an outside system causes, the error its adapter builds); a new code fails
test_every_code_has_an_example until it has one here."""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from mcp import Client
from starlette.testclient import TestClient

from scratchpad_adapters.agent_directory import agent_directory
from scratchpad_adapters.factory import Backend, open_backend
from scratchpad_adapters.sql.connection.errors import BUSY
from scratchpad_adapters.viewing import viewing_store
from scratchpad_core import errors
from scratchpad_core.errors import CODES, ScratchpadError
from scratchpad_core.limits import Limits
from scratchpad_core.service import Scratchpad
from scratchpad_mcp.cli import refusals as cli
from scratchpad_mcp.cli.invocation import Invocation
from scratchpad_mcp.cli.main import failed
from scratchpad_mcp.http.auth import ADMIN_KEY_REFUSED
from scratchpad_mcp.server import build_server
from scratchpad_mcp.server.calls import CallRunner, TrustedCaller
from scratchpad_mcp.server.refusals import META_KEY
from scratchpad_mcp.web import refusals as web
from scratchpad_mcp.web.app import build_web_app
from tests.conftest import FakeSummarizer
from tests.refusals.names import assert_no_mcp_names

A = "alice"
LIMITS = Limits(max_file_bytes=2_000, quota_files=2, max_versions=1)


def _reused(store: Scratchpad) -> None:
    store.append_log(A, "run.log", "one", request_id="r-1")
    store.append_log(A, "run.log", "two", request_id="r-1")


def _raise(error: ScratchpadError) -> Callable[[Scratchpad], None]:
    def call(_: Scratchpad) -> None:
        raise error

    return call


# code: a call the library refuses with that code (alice has notes.md, one line, and b.md: her file quota is full)
EXAMPLES: dict[str, Callable[[Scratchpad], object]] = {
    "error": _raise(ScratchpadError("Something went wrong; nothing was changed.")),  # the base: raised as a subclass
    "invalid_input": lambda s: s.search_files(A, "!!!"),
    "invalid_agent_id": lambda s: s.read_file("alice smith", "notes.md"),
    "invalid_path": lambda s: s.read_file(A, "/etc/passwd"),
    "edit_mismatch": lambda s: s.edit_file(A, "notes.md", "absent", "present"),
    "request_id_reused": _reused,
    "not_found": lambda s: s.read_file(A, "missing.md"),
    "nothing_to_redact": lambda s: s.redact_everywhere(A, "absent text", by="ops"),
    "version_conflict": lambda s: s.write_file(A, "notes.md", "new", expected_version=7),
    "limit_exceeded": lambda s: s.write_file(A, "notes.md", "x" * 3_000),
    "quota_exceeded": lambda s: s.write_file(A, "c.md", "third"),
    "summary_unavailable": lambda s: s.summarize_file(A, "notes.md"),
    "access_denied": _raise(errors.AccessDenied(ADMIN_KEY_REFUSED)),  # http.auth, for an admin key calling a tool
    "rate_limited": _raise(errors.RateLimited(1.5)),  # calls.RateGate
    "storage_error": _raise(errors.StorageError("The database is read-only; nothing was changed. Retry later.")),
    "storage_busy": _raise(errors.StorageBusy(BUSY)),  # sql.errors.classify
    "storage_unavailable": _raise(errors.StorageUnavailable("The database is unreachable; retry in a moment.")),
}
# and a few more where the words differ most: the wording of each interface is checked on them by name
MORE: dict[str, Callable[[Scratchpad], object]] = {
    "regex": lambda s: s.search_files(A, "a(?=b)", regex=True),
    "cursor": lambda s: s.list_files(A, cursor="???"),
    "since_version": lambda s: s.read_file(A, "notes.md", since_version=9),
    "start_line": lambda s: s.read_file(A, "notes.md", start_line=5),
    "not_retained": lambda s: s.read_file(A, "notes.md", version=1),
    "since": lambda s: s.read_changes(A, since="not-a-cursor"),
}


@pytest.fixture
def backend(tmp_path: Path) -> Iterator[Backend]:
    opened = open_backend(f"sqlite:///{tmp_path / 'refusals.db'}", limits=LIMITS, summarizer=FakeSummarizer())
    opened.store.write_file(A, "notes.md", "one line\n")
    opened.store.write_file(A, "b.md", "b\n")
    yield opened
    opened.close()


def raised(store: Scratchpad, call: Callable[[Scratchpad], object]) -> ScratchpadError:
    with pytest.raises(ScratchpadError) as caught:
        call(store)
    return caught.value


class Refusing:
    """A gate that refuses every call with one error: how a refusal of any code reaches the real MCP pipeline."""

    def __init__(self, error: ScratchpadError) -> None:
        self._error = error

    def admit(self, budget: str, tool: str) -> None:
        raise self._error


def test_every_code_has_an_example() -> None:
    assert set(EXAMPLES) == set(CODES)


@pytest.mark.anyio
@pytest.mark.parametrize("code", sorted(EXAMPLES))
async def test_mcp_says_it_as_the_library_does_and_gives_code_and_retryable(backend: Backend, code: str) -> None:
    error = raised(backend.store, EXAMPLES[code])
    assert error.code == code
    server = build_server(backend.store, CallRunner(TrustedCaller(), gates=[Refusing(error)]))
    async with Client(server) as client:
        result = await client.call_tool("list_files", {"agent_id": A})
    assert result.is_error and result.structured_content is None
    (text,) = [block.text for block in result.content if block.type == "text"]
    assert text == error.message and "\n" not in text
    assert result.meta is not None
    data = result.meta[META_KEY]
    assert data["code"] == code and data["retryable"] is CODES[code].retryable


@pytest.mark.parametrize("code", sorted(EXAMPLES))
def test_the_command_line_says_it_in_its_own_terms(
    backend: Backend, code: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Through the command line's own ending of a failed command (main.failed): one line on stderr, exit 1."""
    error = raised(backend.store, EXAMPLES[code])
    assert failed(Invocation(), error) == 1
    out, err = capsys.readouterr()
    assert out == "" and err == f"scratchpad-mcp: {cli.said(error)}\n"
    assert_no_mcp_names(err)


def web_refusal(page: str) -> str:
    found = re.search(r'<p class="error" id="error">(.*?)</p>', page, re.S)
    assert found is not None, page
    return html.unescape(found[1])


@pytest.mark.parametrize("code", sorted(EXAMPLES))
def test_the_web_view_says_it_in_its_own_terms(backend: Backend, code: str) -> None:
    error = raised(backend.store, EXAMPLES[code])
    viewed = viewing_store(backend)
    viewed.search_files = lambda *_, **__: (_ for _ in ()).throw(error)  # type: ignore[method-assign]
    page = TestClient(build_web_app(viewed, agent_directory(backend))).get(f"/a/{A}/search?q=hello&regex=1")
    said = web_refusal(page.text)
    assert said == web.said(error) and "\n" not in said
    assert_no_mcp_names(said)
    if isinstance(error, errors.InvalidInput):  # the search page stays: its box holds the query, regex still ticked
        assert page.status_code == 400 and 'value="hello"' in page.text
        assert re.search(r'id="regex" checked', page.text)
    else:
        assert page.status_code >= 400 and 'name="q"' not in page.text


@pytest.mark.parametrize(
    ("example", "mcp", "command_line", "web_view"),
    [
        ("invalid_input", "use exact=true to find", "pass --exact to find", "tick exact to find"),
        ("not_found", "Use list_files to see", "`scratchpad-mcp files --agent alice` lists", "The agent's page lists"),
        ("invalid_agent_id", "Invalid agent_id:", "Invalid --agent:", "Invalid agent:"),
        ("quota_exceeded", "with delete_file or delete_log", "the agent frees space", "the agent frees space"),
        ("summary_unavailable", "Use read_file instead.", "`scratchpad-mcp cat --agent alice notes.md`", "file's page"),
        ("version_conflict", "expected_version 7", "expected version 7", "expected version 7"),
        ("regex", "regex=true runs RE2", "--regex runs RE2", "a search with regex ticked runs RE2"),
        ("regex", "with exact=true and regex=false", "with --exact instead of --regex", "tick exact and untick regex"),
        ("cursor", "Invalid cursor: pass the next_cursor", "Invalid --cursor: pass the cursor", "More link"),
        ("since_version", "Invalid since_version 9", "Invalid FROM 9", "Invalid from version 9"),
        ("since", "a read_changes reply gave", "Invalid --since: pass the cursor the last `changes`", "agent's page"),
        ("start_line", "Invalid start_line 5: notes.md has 1 line.", "Invalid --lines 5", "Invalid start line 5"),
        (
            "not_retained",
            "Use list_versions to see which are.",
            "`scratchpad-mcp versions --agent alice notes.md` lists",
            "The file's page lists the versions it keeps.",
        ),
    ],
)
def test_each_interface_names_its_own_controls(
    backend: Backend, example: str, mcp: str, command_line: str, web_view: str
) -> None:
    backend.store.write_file(A, "notes.md", "two\n")  # version 2 (max_versions=1: version 1 is gone)
    error = raised(backend.store, {**EXAMPLES, **MORE}[example])
    assert mcp in error.message, error.message
    assert command_line in cli.said(error), cli.said(error)
    assert web_view in web.said(error), web.said(error)
    assert_no_mcp_names(cli.said(error))
    assert_no_mcp_names(web.said(error))
