"""Running one tool call: who the caller is, the use case, errors as tool errors, one log line."""

from __future__ import annotations

import asyncio
import functools
import logging
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import anyio
from mcp.types import CallToolResult

from scratchpad_core.actors import STDIO
from scratchpad_core.errors import AccessDenied, InvalidInput, RateLimited, ScratchpadError
from scratchpad_core.paths import check_agent_id
from scratchpad_core.ports import RateLimiter
from scratchpad_core.results import Space

from .refusals import refused
from .replies import failure, success

log = logging.getLogger("scratchpad.calls")

R = TypeVar("R")
UseCase = Callable[[str], R]  # what one tool call runs, given the agent it acts for

MAX_LOGGED_CHARS = 128  # caller-supplied names (agent ids, tool names) are clipped to this in logs and replies
INTERNAL_ERROR = (
    "The call failed inside the server; the details are in the server's log. Retry, and report it if it persists."
)


def call_id() -> str:
    """A call's id in the log (16 hex digits): it tells calls apart, it guards nothing, so no system entropy."""
    return f"{random.getrandbits(64):016x}"


def clipped(value: str, limit: int = MAX_LOGGED_CHARS) -> str:
    """A caller-supplied string cut to a size fit for one log field or one line of an error."""
    return value if len(value) <= limit else f"{value[:limit]}… ({len(value):,} characters)"


class CallerPolicy(Protocol):
    def caller(self, requested: str | None) -> str | None:
        """Who is calling, as far as is known before any check (for logs)."""

    def agent_for(self, requested: str | None, *, read_only: bool) -> str:
        """The agent this call acts for; raises AccessDenied when the caller may not act for it."""

    def actor(self) -> str:
        """Who makes this call's changes, as its versions and log entries record it (scratchpad_core.actors)."""

    def budget(self, agent_id: str) -> str:
        """Whose rate-limit budget a call for the agent draws on: the agent's, or a key's (KEY_BUDGET)."""

    def spaces(self) -> list[Space] | None:
        """The agents the caller may use and how, its own first (a key's); None: any agent it names."""


KEY_BUDGET = "key:"  # a key's budget is "key:<id>": no agent id has a colon, so it is never an agent's


class TrustedCaller:
    """stdio and SCRATCHPAD_AUTH=none: the agent_id argument is taken at its word; changes are recorded as made
    over the transport (`stdio` or `http`)."""

    def __init__(self, transport: str = STDIO) -> None:
        self._transport = transport

    def actor(self) -> str:
        return self._transport

    def caller(self, requested: str | None) -> str | None:
        return requested

    def budget(self, agent_id: str) -> str:
        return agent_id

    def spaces(self) -> list[Space] | None:
        return None

    def agent_for(self, requested: str | None, *, read_only: bool) -> str:
        if requested is None:
            raise InvalidInput("agent_id is required: pass the agent's namespace, e.g. agent_id='research-bot'.")
        return check_agent_id(requested)  # before the gates: a rate limit keys its bucket on it


class CallGate(Protocol):
    def admit(self, budget: str, tool: str) -> None:
        """Let the call run, or refuse it before it runs by raising a ScratchpadError (e.g. RateLimited)."""


class CallObserver(Protocol):
    def after(self, record: CallRecord) -> None:
        """Take note of a call once it is over or refused (log lines, metrics); never changes its outcome."""


class RateLimit:
    """A call gate: refuses a call, before it runs, when its budget is used up (shared by every replica): the
    agent's, or with API keys the key's, wherever it acts."""

    def __init__(self, limiter: RateLimiter) -> None:
        self._limiter = limiter

    def admit(self, budget: str, tool: str) -> None:
        wait = self._limiter.acquire(budget)
        if wait > 0:
            raise RateLimited(wait, "this API key" if budget.startswith(KEY_BUDGET) else "this agent")


@dataclass
class CallRecord:
    tool: str
    request_id: str
    agent_id: str | None
    outcome: str = "ok"
    duration_ms: float = 0.0
    bytes_in: int = 0
    bytes_out: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


class CallRunner:
    """Runs a server's tool calls: the policy says who calls, the gates may refuse a call before it runs, and the
    observers see every call once it is over (refused ones included).

    A call run inline (stdio) is told to the observers just after its reply leaves (the event loop's next turn):
    its log line then costs the client no wait (about a tenth of a small call's time in the server, issue 9).
    Lines keep the order of the calls; one written when its reply is already out says nothing the reply did not.
    """

    def __init__(
        self,
        policy: CallerPolicy,
        observers: Sequence[CallObserver] = (),
        *,
        gates: Sequence[CallGate] = (),
        inline: bool = False,
    ) -> None:
        self._policy = policy
        self._observers = tuple(observers)
        self._gates = tuple(gates)
        self._inline = inline

    async def call(
        self,
        tool: str,
        requested_agent: str | None,
        use_case: UseCase[Any],
        *,
        read_only: bool = False,
        bytes_in: int = 0,
        slow: bool = False,
    ) -> CallToolResult:
        """Run one tool call: inline (stdio: one client at a time) or on a worker thread (HTTP, and on stdio the
        slow tools, a search or a summary taking seconds, so that the client's other requests are answered).

        read_only: the tool only reads (a read-only key may call it); a tool that does not say so writes.
        """
        record = CallRecord(tool, call_id(), self._caller(requested_agent), bytes_in=bytes_in)
        if requested_agent is not None and requested_agent != record.agent_id:
            record.extra["requested_agent"] = clipped(requested_agent)
        if self._inline and not slow:
            return self._run(record, requested_agent, use_case, read_only, tell=self._tell_soon)
        work = functools.partial(self._run, record, requested_agent, use_case, read_only)
        # On stdio a slow call given up on (cancelled by the client, or cut off by the session's end) is not waited
        # for: its thread finishes on its own and its reply is dropped (stdio.serve then exits without it).
        return await anyio.to_thread.run_sync(work, abandon_on_cancel=self._inline)

    def rejected(self, tool: str, requested_agent: object, outcome: str, *, known_tool: bool, reply: str) -> None:
        """Log and count a call the SDK refused before it reached its tool (unknown tool, invalid arguments)."""
        requested = requested_agent if isinstance(requested_agent, str) else None
        name = tool if known_tool else "(unknown)"
        record = CallRecord(name, call_id(), self._caller(requested), outcome=outcome)
        record.bytes_out = len(reply.encode("utf-8"))
        if not known_tool:
            record.extra["requested_tool"] = clipped(tool)
        self._tell(record)

    def actor(self) -> str:
        """Who makes the changes of the call being run (inside a use case: the caller's key, or the transport)."""
        return self._policy.actor()

    def spaces(self) -> list[Space] | None:
        """The agents the caller of the request being run may use, its own first (a key's); None: any it names."""
        return self._policy.spaces()

    def _caller(self, requested_agent: str | None) -> str | None:
        """Who calls, for the log: a key's agent, or (trusted callers) the agent_id as given, clipped."""
        caller = self._policy.caller(requested_agent)
        return None if caller is None else clipped(caller)

    def _tell(self, record: CallRecord) -> None:
        for observer in self._observers:
            observer.after(record)

    def _tell_soon(self, record: CallRecord) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not on an asyncio loop (another anyio backend): now, then
            self._tell(record)
        else:
            loop.call_soon(self._tell, record)

    def _run(
        self,
        record: CallRecord,
        requested_agent: str | None,
        use_case: UseCase[Any],
        read_only: bool,
        tell: Callable[[CallRecord], None] | None = None,
    ) -> CallToolResult:
        tool = record.tool
        started = time.perf_counter()
        try:
            reply = success(use_case(self._admitted(record, requested_agent, read_only)))
        except ScratchpadError as error:
            record.outcome = error.code
            reply = refused(error)
        except Exception:
            record.outcome = "internal_error"
            log.exception("tool %s failed (request %s)", tool, record.request_id)
            reply = failure(INTERNAL_ERROR)
        record.duration_ms = (time.perf_counter() - started) * 1000
        text = reply.content[0]
        record.bytes_out = len(text.text.encode("utf-8")) if hasattr(text, "text") else 0
        (tell or self._tell)(record)
        return reply

    async def access(
        self, name: str, requested_agent: str | None, work: UseCase[R], *, read_only: bool = True, owner: bool = False
    ) -> R:
        """Run a request that is no tool call (a resource read, a subscription) for the agent the policy names,
        with the gates, the observers and the thread a tool call would have; a refusal raises its ScratchpadError.

        owner: a request of the store's owner (a trusted caller), for no one agent: `work` is given "".
        """
        record = CallRecord(name, call_id(), self._caller(requested_agent))

        def run() -> R:
            started = time.perf_counter()
            try:
                if owner and not isinstance(self._policy, TrustedCaller):
                    raise AccessDenied("Only the store's owner (stdio, or SCRATCHPAD_AUTH=none) may do this.")
                return work("" if owner else self._admitted(record, requested_agent, read_only))
            except ScratchpadError as error:
                record.outcome = error.code
                raise
            except Exception:
                record.outcome = "internal_error"
                log.exception("%s failed (request %s)", name, record.request_id)
                raise
            finally:
                record.duration_ms = (time.perf_counter() - started) * 1000
                self._tell(record)

        return run() if self._inline else await anyio.to_thread.run_sync(run)

    def _admitted(self, record: CallRecord, requested_agent: str | None, read_only: bool) -> str:
        """The agent the call acts for, once the policy let it act for that agent and every gate let it run."""
        agent_id = self._policy.agent_for(requested_agent, read_only=read_only)
        record.agent_id = agent_id  # checked by the policy (at most 128 characters)
        budget = self._policy.budget(agent_id)
        for gate in self._gates:
            gate.admit(budget, record.tool)
        return agent_id
