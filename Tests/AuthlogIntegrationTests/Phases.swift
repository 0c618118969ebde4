/// The suites that run programs nobody here wrote (Go's tlog, headless Chromium, promtool, Python's
/// `cryptography`) and fill both cores while they do. `.ci/run` runs them in a phase of their own
/// (`--filter 'AuthlogIntegrationTests\.Checkers'`), so that the other suites' fake providers are not starved.
enum Checkers {}

/// The suites that time a server from outside, kill it under load or fuzz it. `.ci/run` runs them last and
/// one at a time (`--filter 'AuthlogIntegrationTests\.Faults' --no-parallel`), so that their latency bounds
/// measure authlog rather than the suites sharing the machine.
enum Faults {}

/// The suites that start real `authlog serve` processes (with fake providers) for each test: AuthlogClient's
/// suites, pipelining and `Content-Length` at the socket; and the eight-way races under the default configuration
/// (first sign-ins of one identity; refreshes of one token, whose replays take turns on one session stream and
/// must finish inside the grace window). Dozens of server processes at once would starve
/// the other suites' fake providers, so `.ci/run` gives them a phase of their own
/// (`--filter 'AuthlogIntegrationTests\.Servers'`).
enum Servers {}
