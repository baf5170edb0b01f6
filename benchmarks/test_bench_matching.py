"""Matching speed: ``MatchIndex.match`` against per-agent ``matches`` and a Hyperscan matcher.

Data (deterministic, seeded): a vocabulary of 5,000 service and ops words; 10,000 agents, each an
AND of 1-4 leaves, about 20% with a nested OR of 2-3 leaves; leaf kinds mixed (contains ~50%,
starts_with ~12%, ends_with ~10%, regex ~28%); 20 alerts of 1-3 KB built from the same
vocabulary. Each round matches all 20 alerts. Implementations, in one benchmark group:

- ``index``: ``MatchIndex`` with pyahocorasick (the default).
- ``index-pure``: ``MatchIndex(native=False)``, the pure-Python fallback.
- ``hs-scan+py-eval``: one Hyperscan database of every distinct leaf, one scan per alert, then
  the trees of the agents owning a matched leaf (~486 candidates per alert) are evaluated in
  Python. Most of its time is that Python evaluation, not Hyperscan.
- ``hs-combination``: Hyperscan evaluates the whole rule trees itself: every leaf is a quiet
  sub-expression and every agent one logical combination (``HS_FLAG_COMBINATION``, ``&``/``|``
  over leaf ids), so one scan reports the matching agents directly. The true limit.
- ``matches``: every agent's tree evaluated with ``matches``.

Targets: ``index`` at least 30x faster than ``matches`` and at most 2x the time of
``hs-scan+py-eval``; ``index`` against ``hs-combination`` is reported (no target). A missing
``hyperscan`` leaves those targets UNMEASURED, which fails ``make bench`` like a MISSED one
(``benchmarks/conftest.py``). ``tests/core/test_matching_bench_data.py`` checks that all
implementations return the same keys on this data.

    python -m pytest benchmarks/test_bench_matching.py --benchmark-only
"""

from __future__ import annotations

import contextlib
import functools
import random
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from targets import record_target, record_unmeasured

from sleuth_core.matching import MatchIndex, matches

try:
    import hyperscan
except ImportError:  # pragma: no cover - the peer is reported UNMEASURED
    hyperscan = None

SEED = 20261122
VOCABULARY_SIZE = 5_000
AGENTS = 10_000
ALERTS = 20

_ROOTS = [
    "api",
    "gateway",
    "auth",
    "payments",
    "checkout",
    "billing",
    "orders",
    "inventory",
    "search",
    "catalog",
    "cart",
    "shipping",
    "user",
    "users",
    "profile",
    "session",
    "login",
    "signup",
    "notify",
    "email",
    "sms",
    "push",
    "queue",
    "worker",
    "scheduler",
    "cron",
    "batch",
    "etl",
    "ingest",
    "stream",
    "kafka",
    "rabbit",
    "redis",
    "memcache",
    "postgres",
    "mysql",
    "mongo",
    "cassandra",
    "elastic",
    "clickhouse",
    "s3",
    "blob",
    "cdn",
    "edge",
    "proxy",
    "nginx",
    "envoy",
    "ingress",
    "lb",
    "dns",
    "vpc",
    "subnet",
    "node",
    "pod",
    "container",
    "kube",
    "helm",
    "deploy",
    "release",
    "canary",
    "rollout",
    "config",
    "secrets",
    "vault",
    "ledger",
    "invoice",
    "refund",
    "fraud",
    "risk",
    "ledger",
    "metrics",
    "logs",
    "traces",
    "alert",
    "pager",
    "oncall",
    "incident",
    "sla",
    "slo",
    "latency",
    "timeout",
    "error",
    "errors",
    "failed",
    "failure",
    "crash",
    "oom",
    "panic",
    "restart",
    "throttle",
    "ratelimit",
    "quota",
    "disk",
    "cpu",
    "memory",
    "heap",
    "gc",
    "thread",
    "pool",
    "socket",
    "tls",
    "cert",
    "handshake",
    "replica",
    "primary",
    "leader",
    "follower",
    "shard",
    "partition",
    "lag",
    "backlog",
    "offset",
    "consumer",
    "producer",
    "topic",
    "index",
    "mapping",
    "cache",
    "miss",
    "hit",
    "evict",
    "snapshot",
    "backup",
    "restore",
    "migrate",
    "schema",
    "table",
    "query",
    "slow",
    "deadlock",
    "lock",
    "commit",
    "rollback",
    "ssl",
    "upstream",
    "downstream",
    "healthcheck",
    "probe",
    "readiness",
    "liveness",
    "webhook",
    "callback",
    "grpc",
    "http",
    "rest",
    "graphql",
    "frontend",
    "backend",
    "mobile",
    "android",
    "ios",
]
_SUFFIXES = ["svc", "api", "worker", "db", "cache", "v2", "prod", "eu", "us", "job", "sync", "core"]
_SEVERITIES = ["critical", "warning", "info", "error", "page"]
_FILLER = [
    "the",
    "a",
    "of",
    "to",
    "and",
    "in",
    "is",
    "was",
    "for",
    "on",
    "with",
    "at",
    "by",
    "from",
    "after",
    "before",
    "while",
    "during",
    "because",
    "request",
    "response",
    "service",
    "cluster",
    "host",
    "instance",
    "region",
    "zone",
    "value",
    "threshold",
    "exceeded",
    "above",
    "below",
    "minutes",
    "seconds",
    "since",
    "last",
    "over",
    "under",
    "returned",
    "status",
    "code",
    "observed",
    "rate",
]


@functools.lru_cache(maxsize=1)
def vocabulary() -> list[str]:
    rng = random.Random(SEED)
    words: dict[str, None] = dict.fromkeys(_ROOTS)
    while len(words) < VOCABULARY_SIZE:
        a, b = rng.sample(_ROOTS, 2)
        shape = rng.randrange(4)
        if shape == 0:
            word = f"{a}-{b}"
        elif shape == 1:
            word = f"{a}-{rng.choice(_SUFFIXES)}"
        elif shape == 2:
            word = f"{a}_{b}{rng.randrange(10)}"
        else:
            word = f"{a}-{b}-{rng.choice(_SUFFIXES)}"
        words[word] = None
    return list(words)[:VOCABULARY_SIZE]


def _pick(rng: random.Random, words: list[str]) -> str:
    # Zipf-like: some words are common, most are rare.
    return words[min(int(rng.paretovariate(1.1)) - 1, len(words) - 1)]


@functools.lru_cache(maxsize=1)
def alerts() -> list[str]:
    rng = random.Random(SEED + 1)
    words = vocabulary()[:]
    rng.shuffle(words)
    out = []
    for _ in range(ALERTS):
        target = rng.randrange(1024, 3072)
        service = _pick(rng, words)
        lines = [
            f"[{rng.choice(_SEVERITIES)}] {service}: {_pick(rng, words)} {rng.choice(_FILLER)} "
            f"{_pick(rng, words)}",
            f"service={service} env=prod host={_pick(rng, words)}-{rng.randrange(100)} "
            f"code={rng.randrange(100, 600)}",
        ]
        size = sum(map(len, lines))
        while size < target:
            sentence = " ".join(
                _pick(rng, words) if rng.random() < 0.4 else rng.choice(_FILLER)
                for _ in range(rng.randrange(6, 16))
            )
            lines.append(sentence)
            size += len(sentence) + 1
        lines.append(f"region={rng.choice(['eu-west-1', 'us-east-1', 'ap-south-1'])}")
        out.append("\n".join(lines))
    return out


def _leaf(rng: random.Random, words: list[str]) -> dict:
    roll = rng.random()
    word = rng.choice(words)
    if roll < 0.50:
        value = word.upper() if rng.random() < 0.1 else word
        return {"type": "contains", "value": value}
    if roll < 0.62:
        return {"type": "starts_with", "value": f"[{rng.choice(_SEVERITIES)}] {word}"}
    if roll < 0.72:
        region = rng.choice(["eu-west-1", "us-east-1", "ap-south-1", "us-west-2"])
        return {"type": "ends_with", "value": rng.choice([f"region={region}", word])}
    other = rng.choice(words)
    forms = [
        f"{re.escape(word)}.*{re.escape(other)}",
        f"\\b{re.escape(word)}\\b",
        f"{re.escape(word)}-\\d+",
        f"{re.escape(word)}\\s+{re.escape(other)}",
        f"^\\[(?:critical|page)\\] {re.escape(word)}",
        f"(?:{re.escape(word)}|{re.escape(other)}) (?:error|timeout)",
        f"code=5\\d\\d.*{re.escape(word)}",
    ]
    return {"type": "regex", "value": rng.choice(forms)}


@functools.lru_cache(maxsize=1)
def agents() -> dict[int, dict]:
    rng = random.Random(SEED + 2)
    words = vocabulary()
    out = {}
    for key in range(AGENTS):
        conditions: list[dict] = [_leaf(rng, words) for _ in range(rng.randint(1, 4))]
        if rng.random() < 0.2:
            nested = [_leaf(rng, words) for _ in range(rng.randint(2, 3))]
            conditions[rng.randrange(len(conditions))] = {"operator": "OR", "conditions": nested}
        out[key] = {"operator": "AND", "conditions": conditions}
    return out


# -- implementations ---------------------------------------------------------------------------


def match_all_with_matches(texts: list[str]) -> list[set[int]]:
    trees = agents()
    return [{key for key, tree in trees.items() if matches(tree, text)} for text in texts]


class HyperscanMatcher:
    """The peer: one Hyperscan database of all leaves; evaluate the owners of matched leaves."""

    def __init__(self, entries: dict[int, dict]) -> None:
        assert hyperscan is not None
        self.leaf_ids: dict[tuple[str, str], int] = {}
        self.owners: list[list[int]] = []
        self.trees: dict[int, Any] = {}
        for key, tree in entries.items():
            self.trees[key] = self._compile(key, tree)
        expressions, flags = self._leaf_patterns()
        self.db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
        self.db.compile(
            expressions=expressions,
            ids=list(range(len(expressions))),
            elements=len(expressions),
            flags=flags,
        )

    def _leaf_patterns(self) -> tuple[list[bytes], list[int]]:
        """Each distinct leaf as a Hyperscan expression and flags, in leaf-id order."""
        expressions: list[bytes] = []
        flags: list[int] = []
        for (kind, value), _ in sorted(self.leaf_ids.items(), key=lambda item: item[1]):
            single = hyperscan.HS_FLAG_SINGLEMATCH
            if kind == "contains":
                expressions.append(re.escape(value).encode())
                flags.append(single | hyperscan.HS_FLAG_CASELESS)
            elif kind == "starts_with":
                expressions.append(b"^" + re.escape(value).encode())
                flags.append(single)
            elif kind == "ends_with":
                expressions.append(re.escape(value).encode() + b"\\z")
                flags.append(single)
            else:
                expressions.append(value.encode())
                flags.append(single)
        return expressions, flags

    def _compile(self, key: int, node: dict) -> tuple:
        is_and = node["operator"] == "AND"
        parts = []
        for item in node["conditions"]:
            if "operator" in item:
                parts.append(self._compile(key, item))
            else:
                ident = (
                    item["type"],
                    item["value"].lower() if item["type"] == "contains" else item["value"],
                )
                lid = self.leaf_ids.setdefault(ident, len(self.leaf_ids))
                if lid == len(self.owners):
                    self.owners.append([])
                self.owners[lid].append(key)
                parts.append(lid)
        return (is_and, tuple(parts))

    def match(self, text: str) -> set[int]:
        found: set[int] = set()

        def on_match(lid: int, start: int, end: int, flags: int, context: Any) -> None:
            found.add(lid)

        self.db.scan(text.encode(), match_event_handler=on_match)
        owners = self.owners
        candidates: set[int] = set()
        for lid in found:
            candidates.update(owners[lid])

        def evaluate(node: tuple) -> bool:
            is_and, parts = node
            results = (evaluate(p) if type(p) is tuple else p in found for p in parts)
            return all(results) if is_and else any(results)

        trees = self.trees
        return {key for key in candidates if evaluate(trees[key])}


class HyperscanCombinationMatcher(HyperscanMatcher):
    """Hyperscan alone: leaves are quiet sub-expressions, each agent a logical combination."""

    def __init__(self, entries: dict[int, dict]) -> None:
        super().__init__(entries)  # leaf expressions and the trees as leaf-id tuples
        leaves = len(self.leaf_ids)
        expressions, flags = self._leaf_patterns()
        # Hyperscan refuses end assertions (``\\z``, a trailing ``\\b``) in combinations ("unordered
        # match"): the text is scanned with a NUL appended, so ``x\\z`` becomes ``x\\x00`` and a
        # trailing ``\\b`` (after a word character) becomes ``\\W``; the alerts hold no NUL.
        expressions = [
            e[:-2] + b"\\x00"
            if e.endswith(b"\\z")
            else e[:-2] + b"\\W"
            if e.endswith(b"\\b")
            else e
            for e in expressions
        ]
        flags = [flag | hyperscan.HS_FLAG_QUIET for flag in flags]
        self.agent_keys: list[int] = []
        for key, tree in self.trees.items():
            self.agent_keys.append(key)
            expressions.append(self._combination(tree).encode())
            flags.append(hyperscan.HS_FLAG_COMBINATION | hyperscan.HS_FLAG_SINGLEMATCH)
        self.first_agent = leaves
        self.db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
        self.db.compile(
            expressions=expressions,
            ids=list(range(len(expressions))),
            elements=len(expressions),
            flags=flags,
        )

    def _combination(self, node: tuple) -> str:
        is_and, parts = node
        operands = [f"({self._combination(p)})" if type(p) is tuple else str(p) for p in parts]
        if len(operands) == 1:  # Hyperscan refuses a combination without an operator
            operands *= 2
        return ("&" if is_and else "|").join(operands)

    def match(self, text: str) -> set[int]:
        found: set[int] = set()
        first, keys = self.first_agent, self.agent_keys

        def on_match(ident: int, start: int, end: int, flags: int, context: Any) -> None:
            found.add(keys[ident - first])

        self.db.scan(text.encode() + b"\x00", match_event_handler=on_match)
        return found


@functools.lru_cache(maxsize=2)
def built_index(native: bool) -> MatchIndex[int]:
    return MatchIndex(agents(), native=native)


@functools.lru_cache(maxsize=1)
def built_hyperscan() -> HyperscanMatcher:
    return HyperscanMatcher(agents())


@functools.lru_cache(maxsize=1)
def built_hyperscan_combination() -> HyperscanCombinationMatcher:
    return HyperscanCombinationMatcher(agents())


def match_all(matcher: Callable[[str], set[int]], texts: list[str]) -> list[set[int]]:
    return [matcher(text) for text in texts]


# -- the benchmark -----------------------------------------------------------------------------

MEDIANS: dict[str, float] = {}
UNMEASURED: dict[str, str] = {}
"""Why a peer did not run (anything else that did not run was deselected)."""
SCAN_EVAL = "hs-scan+py-eval"
COMBINATION = "hs-combination"


def _verdict(met: bool) -> str:
    return "met" if met else "MISSED"


@pytest.fixture(scope="module", autouse=True)
def report_ratios(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    if "index" not in MEDIANS:
        return
    ours = MEDIANS["index"]
    lines = ["", f"matching: median per alert over {ALERTS} alerts, {AGENTS} agents"]
    for name, median in MEDIANS.items():
        lines.append(f"  {name:<11} {median / ALERTS * 1e3:9.3f} ms  ({median / ours:7.2f}x index)")
    if "matches" in MEDIANS:
        ratio = MEDIANS["matches"] / ours
        met = record_target("matching", "matches/index", ratio, 30, at_least=True)
        lines.append(f"matches / index: {ratio:.1f}x (target >= 30x: {_verdict(met)})")
    else:
        record_unmeasured("matching", "matches/index >= 30x", "matches did not run")
    if SCAN_EVAL in MEDIANS:
        ratio = ours / MEDIANS[SCAN_EVAL]
        met = record_target("matching", f"index/{SCAN_EVAL}", ratio, 2, at_least=False)
        lines.append(f"index / {SCAN_EVAL}: {ratio:.2f}x (target <= 2x: {_verdict(met)})")
    else:
        why = UNMEASURED.get(SCAN_EVAL, "did not run")
        record_unmeasured("matching", f"index/{SCAN_EVAL} <= 2x", why)
    if COMBINATION in MEDIANS:
        ratio = ours / MEDIANS[COMBINATION]
        lines.append(f"index / {COMBINATION}: {ratio:.2f}x (reported, no target)")
    else:
        why = UNMEASURED.get(COMBINATION, "did not run")
        lines.append(f"index / {COMBINATION}: UNMEASURED ({why})")
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    with capture.global_and_fixture_disabled() if capture else contextlib.nullcontext():
        for line in lines:
            if reporter is not None:
                reporter.write_line(line)
            else:
                print(line)


IMPLEMENTATIONS: dict[str, tuple[Callable[[], Callable[[list[str]], list[set[int]]]], int]] = {
    # name: (factory of a function over all alerts, rounds)
    "index": (lambda: functools.partial(match_all, built_index(True).match), 30),
    "index-pure": (lambda: functools.partial(match_all, built_index(False).match), 5),
    SCAN_EVAL: (lambda: functools.partial(match_all, built_hyperscan().match), 30),
    COMBINATION: (
        lambda: functools.partial(match_all, built_hyperscan_combination().match),
        30,
    ),
    "matches": (lambda: match_all_with_matches, 3),
}


@pytest.mark.parametrize("name", list(IMPLEMENTATIONS))
def test_match(benchmark: Any, name: str) -> None:
    if name.startswith("hs-") and hyperscan is None:
        UNMEASURED[name] = "hyperscan is not installed"
        pytest.skip("hyperscan is not installed: UNMEASURED, fails make bench")
    factory, rounds = IMPLEMENTATIONS[name]
    function = factory()  # building the index or database is not timed
    texts = alerts()
    benchmark.group = "matching"
    result = benchmark.pedantic(function, args=(texts,), rounds=rounds, warmup_rounds=1)
    assert result == match_all(built_index(True).match, texts)
    MEDIANS[name] = benchmark.stats.stats.median
