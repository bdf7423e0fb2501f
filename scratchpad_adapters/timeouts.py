"""How long a call may wait on its store: the defaults every backend (SQL or in memory) and the settings start from."""

LOCK_TIMEOUT_MS = 10_000  # how long one statement waits for a lock before the call is retried
CALL_TIMEOUT_S = 30.0  # how long a Postgres transaction (or pre-ping) waits on a database that stopped answering
