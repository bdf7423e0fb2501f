"""No acknowledged update is lost (issue 20): compare-and-set through real MCP clients in several OS processes.

WORKERS client processes, started together, each make CYCLES increments of a counter with write_file and
expected_version (then CYCLES with edit_file), reading again after every conflict, and then take turns at a
lock claimed by delete_file with expected_version (lost_update_clients says how). Over stdio each process starts
a server of its own on the shared database; over HTTP they share a server (on Postgres two replicas, half the
clients each). Afterwards, from the rows: every acknowledged increment is in the final value, the final version
is the first plus the acknowledged writes, no version was acknowledged twice (nor made without an
acknowledgement), one claimer won each lock round, and `db check` finds every invariant intact.

The same processes then do it all again on files of their own, with a request_id per writing attempt, while
connections break at random moments (stdio: the server SIGKILLed mid-call and another started; HTTP: a proxy
cutting the connection before the request arrives, after the answer is sent, or in between), each lost answer
resent unchanged: still exact. One run per backend and transport serves both tests (a stdio server takes
seconds to start).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from multiprocessing.managers import SyncManager
from multiprocessing.pool import Pool
from pathlib import Path

import pytest

from scratchpad_adapters import open_store
from scratchpad_adapters.sql.connection.engine import make_engine
from scratchpad_adapters.sql.integrity.checking import check
from scratchpad_core.limits import Limits
from tests.concurrency.cutting_proxy import CuttingProxy
from tests.concurrency.lost_update_clients import AGENT, COUNTED, FIRST, STAGES, Plan, Tally, paths, run_client
from tests.conftest import create_postgres_database, drop_postgres_database
from tests.servers import running

WORKERS = 4
CYCLES = 8  # acknowledged increments per process, with each of write_file and edit_file
ROUNDS = 12  # lock rounds, in all
KILLS = 1  # stdio with faults: calls each process kills its server in (a new one takes seconds to start)
CUT_SHARE = 0.25  # HTTP with faults: the share of writing attempts (they carry a request_id) the proxy cuts
SEED = 20261202
CASES = [f"{backend}-{transport}" for backend in ("sqlite", "postgres") for transport in ("stdio", "http")]
pytestmark = pytest.mark.slow


@dataclass
class Run:
    """One run of the client processes: the database, what each process was told by stage, the proxies' cuts."""

    url: str
    transport: str
    tallies: dict[str, list[Tally]]
    cuts: Counter[str]


@pytest.fixture(scope="module")
def pool() -> Iterator[tuple[Pool, SyncManager]]:
    context = multiprocessing.get_context("forkserver")  # a fresh process, forked for each worker: the SDK is
    context.set_forkserver_preload([run_client.__module__])  # imported once, and no test's threads come along
    with context.Manager() as manager, context.Pool(WORKERS) as processes:
        yield processes, manager


@pytest.fixture(scope="module", params=CASES)
def run(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, pool: tuple[Pool, SyncManager]
) -> Iterator[Run]:
    backend, transport = request.param.split("-")
    folder = tmp_path_factory.mktemp(request.param)
    url = create_postgres_database("scratchpad_lost") if backend == "postgres" else f"sqlite:///{folder / 'lost.db'}"
    try:
        yield run_clients(url, transport, folder, pool)
    finally:
        if backend == "postgres":
            drop_postgres_database(url)


def test_no_acknowledged_update_is_lost(run: Run) -> None:
    tallies = run.tallies["plain"]
    assert_exact(run.url, "plain", tallies)
    conflicts = sum((t.conflicts for t in tallies), Counter())
    assert min(conflicts[tool] for tool in COUNTED) >= WORKERS * CYCLES // 2, conflicts  # the writers collided
    assert conflicts["lock"] >= ROUNDS // 2, conflicts


def test_with_a_request_id_an_answer_lost_and_resent_counts_once(run: Run) -> None:
    tallies = run.tallies["faults"]
    assert_exact(run.url, "faults", tallies)
    resent = sum((t.resent for t in tallies), Counter())
    if run.transport == "stdio":  # a new server takes seconds to start: a resend mostly meets a conflict by then
        assert sum(t.kills for t in tallies) == WORKERS * KILLS
        assert sum(t.connections for t in tallies) == WORKERS * KILLS
        assert resent.total() > 0, resent
    else:  # calls cut before they ran, and calls that ran but whose answer never arrived (resent: the first result)
        assert run.cuts["request"] > 0 and run.cuts["reply"] > 0, run.cuts
        assert resent["acknowledged"] > 0 and resent["conflict"] > 0, resent


def run_clients(url: str, transport: str, folder: Path, pool: tuple[Pool, SyncManager]) -> Run:
    """Make the files, run the client processes to the end, and return what they were told."""
    processes, manager = pool
    with open_store(url) as store:  # migrated, and every file at version 1
        for stage in STAGES:
            for name, path in paths(stage).items():
                store.write_file(AGENT, path, FIRST[name], expected_version=0)
    started = time.monotonic()
    with serving(url, transport, folder) as (targets, proxies):
        plans = [
            Plan(w, transport, targets[w % len(targets)], str(folder), CYCLES, ROUNDS, KILLS, SEED)
            for w in range(WORKERS)
        ]
        barrier = manager.Barrier(WORKERS)
        told = processes.starmap_async(run_client, [(plan, barrier) for plan in plans]).get(timeout=300)
    outcome = Run(
        url, transport, {stage: [t[stage] for t in told] for stage in STAGES}, sum((p.cuts for p in proxies), Counter())
    )
    report(outcome, time.monotonic() - started)
    return outcome


@contextlib.contextmanager
def serving(url: str, transport: str, folder: Path) -> Iterator[tuple[list[str], list[CuttingProxy]]]:
    """Where the clients connect: the database itself over stdio; over HTTP a server (two replicas on Postgres),
    each behind a CuttingProxy (which cuts only requests that carry a request_id: stage "faults")."""
    if transport == "stdio":
        yield [url], []
        return
    env = {"SCRATCHPAD_AUTH": "none", "SCRATCHPAD_DATABASE_URL": url, "SCRATCHPAD_LOG_LEVEL": "warning"}
    replicas = ["a", "b"] if url.startswith("postgresql") else ["a"]
    with running(folder, {name: env for name in replicas}) as servers:
        proxies = [
            CuttingProxy("127.0.0.1", servers[name].port, CUT_SHARE, f"{SEED}-{name}", b'"request_id"')
            for name in replicas
        ]
        for proxy in proxies:
            proxy.start()
        try:
            yield [f"http://127.0.0.1:{proxy.port}/mcp" for proxy in proxies], proxies
        finally:
            for proxy in proxies:
                proxy.cut()


def assert_exact(url: str, stage: str, tallies: list[Tally]) -> None:
    """What the clients were told against what the rows hold."""
    files = paths(stage)
    with open_store(url, upgrade=False) as store:
        heads = {name: store.read_file(AGENT, path) for name, path in files.items()}
        held = {name: int(head.content or "-1") for name, head in heads.items() if name != "lock"}
        wins = Counter(version for tally in tallies for version in tally.wins)
        wrong: dict[str, int] = {}
        for tool in COUNTED:
            acks = [ack for tally in tallies for ack in tally.acks[tool]]
            wrong[f"{tool}: acknowledged increments lost"] = len(acks) - held[tool]
            wrong[f"{tool}: versions acknowledged twice"] = len(acks) - len({version for version, _ in acks})
        wrong["lock: rounds won by two claimers or more"] = sum(n > 1 for n in wins.values())
        wrong["lock: the guarded count less the rounds"] = held["guard"] - ROUNDS
        assert not any(wrong.values()), f"stage {stage}: " + "; ".join(f"{k} {v}" for k, v in wrong.items())

        for tool in COUNTED:
            acks = sorted(ack for tally in tallies for ack in tally.acks[tool])
            assert len(acks) == WORKERS * CYCLES
            assert [version for version, _ in acks] == list(range(2, 2 + len(acks)))  # each version told once
            assert all(value == version - 1 for version, value in acks)  # as the increment it acknowledged made
            assert heads[tool].current_version == 1 + len(acks)
            for kept in store.list_versions(AGENT, files[tool]).versions:  # each version one more than the last
                assert store.read_file(AGENT, files[tool], version=kept.version).content == str(kept.version - 1)
        assert sorted(wins) == list(range(1, ROUNDS + 1))
        assert [note for tally in tallies for note in tally.broken_lock] == []
        assert held["guard"] == ROUNDS  # what only the lock kept exact
        assert heads["lock"].current_version == ROUNDS + 1
    engine = make_engine(url)
    try:
        found = check(engine, Limits())
    finally:
        engine.dispose()
    assert found.ok, "\n".join(found.lines())


def report(run: Run, seconds: float) -> None:
    """The figures of a run, a line a stage (pytest -s shows them)."""
    print(f"\n{run.url.split(':')[0]} over {run.transport}: {seconds:.1f} s; cuts {dict(run.cuts)}")
    for stage, tallies in run.tallies.items():
        total: dict[str, Counter[str]] = {
            name: sum((getattr(t, name) for t in tallies), Counter()) for name in ("conflicts", "resent")
        }
        slowest = {phase: round(max(t.seconds[phase] for t in tallies), 1) for phase in tallies[0].seconds}
        print(
            f"  {stage}: conflicts {dict(total['conflicts'])}; resent {dict(total['resent'])}; "
            f"calls {sum(t.calls for t in tallies)}; kills {sum(t.kills for t in tallies)}; "
            f"connections {sum(t.connections for t in tallies)}; seconds (slowest process) {slowest}"
        )
