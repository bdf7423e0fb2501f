"""Our stdio transport, direct answers to plain tool calls, the warm start: speed only; uses the server and the SDK.

Each exists only for speed and must send exactly the bytes the SDK would; the tests beside them in
tests/mcp/stdio/ hold each to it (test_transport_equality, test_direct_calls, test_warm_start; over HTTP,
tests/deploy/test_http_direct). What each saves, and when the SDK does the work instead:

- transport (with pipes, lines, asked): MCP over stdio on the event loop's own pipes, where the SDK's
  stdio_server() reads and writes each line in a worker thread. A ping through the SDK's session costs the server
  0.62-0.74 ms of CPU with it against 1.04-1.61 ms with stdio_server() (`uv run python -m bench.stdio_transport`,
  3 rounds of 2,000 pings on a busy 2-CPU machine). Always used over stdio; every message it does not answer
  itself (a line server.wire refuses, a direct call, a warm start's reply) goes to the SDK's server session as
  stdio_server() would hand it.
- direct_calls: a plain tools/call (and a ping) of a 2025 revision answered without the SDK's per-request pipeline:
  a 1 KiB read_file's server CPU 0.41 -> 0.22 ms a call (bench.speed, issue 9). The SDK answers instead for a
  2026-07-28 connection, any _meta (a progress token, the 2026 envelope), a slow tool (search_files,
  summarize_file), an unknown tool or argument, arguments its own check refuses, and while an earlier request is
  still with it (calls run in the order sent; a handshake or listing the warm start answered holds none back).
  Over HTTP the composition root hands the same answers to http.direct, which takes a call after the key and body
  checks only when the SDK's transport would take it as is.
- warm_start: a host's first initialize and tools/list (or server/discover) answered from the replies the last
  start made the same way gave, while the rest of the server imports: the first tools/list in 0.027 s instead of
  about 0.6 s (0.689 s without it, docs/benchmarks.md). The server answers instead (or first_start, below) on a
  first start, after any change to the command line, folder, environment, Python or installed code (the cache
  file's hash), with a cache it cannot read, and for any request not recorded exactly (all but its id) or out of
  turn. Standard library only: launch imports it before anything heavy, so this __init__ imports nothing.
- first_start (with first_replies.json, made by first_replies): on a first start, with nothing recalled, the
  handshake and listing of the set-up most hosts use (no setting that changes a reply) answered from the replies
  the package ships, the server's own in each protocol revision (test_first_start): the first tools/list in
  0.035 s instead of 0.88-1.08 s (bench.speed, issue 29). Only with the versions they were made with and for
  requests of a shape the SDK takes as it is; the server answers everything else, and a reply of its own unlike
  one given early (by either) is logged.
"""
