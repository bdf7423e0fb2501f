"""Idempotent retries: a `request_id` names one writing call of an agent, by one caller.

A call sent again with the same request_id, by the same caller to the same agent, within the retention window
(Limits.request_id_retention seconds; at most Limits.request_ids_kept ids per agent) gets the
first call's result back and changes nothing. The same request_id with other arguments is refused.
The caller is the API key (actors.caller_of): two keys sharing an agent (grants.py) make two requests
with one request_id; stdio and the library are one caller, "".
The id is stored with the call's result in the call's own transaction, so a call that did not
commit left no id behind and runs again when retried.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from .actors import caller_of
from .errors import InvalidInput, RequestIdReused
from .limits import storable_size
from .model import StoredRequest

R = TypeVar("R")

MAX_REQUEST_ID_CHARS = 128
PRUNE_BATCH = 16  # at most this many of an agent's oldest ids are looked at (and forgotten) per call


def _check_request_id(request_id: str) -> str:
    if not request_id or len(request_id) > MAX_REQUEST_ID_CHARS:
        size = f"{len(request_id):,} characters" if request_id else "empty"
        raise InvalidInput(
            f"Invalid request_id: {size}; use 1 to {MAX_REQUEST_ID_CHARS} characters (a UUID is 36), "
            "or omit it. Nothing was changed."
        )
    storable_size(request_id, "request_id")
    return request_id


@dataclass(frozen=True)
class Request(Generic[R]):
    """One call that carries a request_id: who, which id, and a fingerprint of what it asks for."""

    agent_id: str
    request_id: str
    operation: str
    fingerprint: str
    result_type: type[R]
    caller: str = ""

    @classmethod
    def of(
        cls,
        agent_id: str,
        request_id: str | None,
        operation: str,
        result_type: type[R],
        *,
        actor: str,
        **arguments: Any,
    ) -> Request[R] | None:
        """The call's request (None without a request_id), scoped to the actor's caller; `arguments` are every
        argument but the agent's and the actor."""
        if request_id is None:
            return None
        canonical = json.dumps([operation, arguments], sort_keys=True, separators=(",", ":"))
        fingerprint = hashlib.sha256(canonical.encode("ascii")).hexdigest()
        return cls(agent_id, _check_request_id(request_id), operation, fingerprint, result_type, caller_of(actor))

    def stored(self, result: R, now: int) -> StoredRequest:
        assert dataclasses.is_dataclass(result) and not isinstance(result, type)
        text = json.dumps(dataclasses.asdict(result), separators=(",", ":"))
        return StoredRequest(self.agent_id, self.request_id, self.operation, self.fingerprint, text, now, self.caller)

    def replay(self, stored: StoredRequest, retention_s: int) -> R:
        """The first call's result, exactly; or a refusal when this call asks for something else."""
        if stored.fingerprint != self.fingerprint:
            raise RequestIdReused.said(
                "Invalid {argument} {id!r}: it already names {do.earlier_call} with other arguments (a "
                "{argument} names one call for {window}). Nothing was changed; send a new {argument} for a new "
                "call, or the same arguments to retry.",
                argument="request_id", id=self.request_id[:64], operation=stored.operation,
                window=window(retention_s),
            )  # fmt: skip
        assert dataclasses.is_dataclass(self.result_type)
        known = {f.name for f in dataclasses.fields(self.result_type)}
        # a result stored by an earlier release may name a field since retired (already_applied): not replayed
        return self.result_type(**{k: v for k, v in json.loads(stored.result).items() if k in known})


def window(seconds: int) -> str:
    """A retention as a person says it: '24 h', '90 min', '45 s'."""
    for unit, name in ((3600, "h"), (60, "min")):
        if seconds >= unit and seconds % unit == 0:
            return f"{seconds // unit:,} {name}"
    return f"{seconds:,} s"
