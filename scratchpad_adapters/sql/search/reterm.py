"""Bringing the index of an existing store up to a changed word rule (scratchpad_core.search.words), in batches: only
the rows whose text holds one of the characters the rule changed on get new terms (and length), with the
statistics of their agents following, and FTS5's own index through the triggers on SQLite (migration 0011:
`_` separates words; a store indexed before held sk_live_4242 as one term)."""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from sqlalchemy import Connection, or_, select, union_all, update

from scratchpad_core.search.indexing import MAX_TF, Statistics

from ...stemming import default_analyzer
from ..schema.tables import search_agents, search_files, search_logs, search_rows
from . import terms as search_terms

UNDERSCORES = "_\ufe33\ufe34\ufe4d\ufe4e\ufe4f\uff3f"  # '_' and the characters that fold to it (NFKD)
BATCH = 500
sa, sf, sl, sr = search_agents.c, search_files.c, search_logs.c, search_rows.c


def _stderr(line: str) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def _capped(terms: Iterable[str]) -> Counter[str]:
    return Counter({t: min(n, MAX_TF) for t, n in Counter(terms).items()})


def reterm(connection: Connection, holding: str = UNDERSCORES, say: Callable[[str], None] = _stderr) -> int:
    """Give every index row whose text holds one of the characters of `holding` its terms under today's rule,
    where they differ, and its agent's statistics with them; returns how many rows changed."""
    analyzer = default_analyzer()
    terms = search_terms.of(connection)
    owners = union_all(
        select(sf.id.label("owner"), sf.agent_id), select((-sl.log_id).label("owner"), sl.agent_id)
    ).subquery()
    query = (
        select(sr.id, sr.text, sr.terms, sr.length, sa.id.label("key"), sa.agent_id)
        .join(owners, owners.c.owner == sr.owner)
        .join(search_agents, sa.agent_id == owners.c.agent_id)
        .where(or_(*(sr.text.contains(char, autoescape=True) for char in holding)))
        .order_by(sr.id)
        .limit(BATCH)
    )
    stats: dict[int, Statistics] = {}
    changed, after = 0, 0
    while page := connection.execute(query.where(sr.id > after)).all():
        updates: list[dict[str, Any]] = []
        for row in page:
            old, new = terms.decode(row.terms), analyzer.terms(row.text)
            if row.length == len(new) and _capped(old) == _capped(new):
                continue
            if row.key not in stats:
                stats[row.key] = _statistics(connection, row.key)
            stats[row.key].change(analyzer.common, [(len(new), new)], [(row.length, set(old))])
            updates.append({"row_id": row.id, "terms": terms.encode(row.key, new), "length": len(new)})
        if updates:
            connection.execute(terms.update_terms, updates)
        changed, after = changed + len(updates), page[-1].id
    for key, counted in stats.items():
        common = json.dumps(dict(sorted(counted.common.items())), ensure_ascii=False)
        connection.execute(
            update(search_agents)
            .where(sa.id == key)
            .values(documents=counted.documents, length=counted.length, common=common)
        )
    if changed:
        say(f"search index: {changed:,} rows holding '_' split into words anew, for {len(stats):,} agents")
    return changed


def _statistics(connection: Connection, key: int) -> Statistics:
    row = connection.execute(select(sa.documents, sa.length, sa.common).where(sa.id == key)).one()
    return Statistics(row.documents, row.length, Counter(json.loads(row.common)))
