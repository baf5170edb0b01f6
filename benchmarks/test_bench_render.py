"""render_answer throughput on realistic agent answers against a bare one-pass re.sub (the peer).

Targets: without code at least 100 MB/s; with code present at least 20 MB/s. The peer removes
markers and § in one `re.sub` pass with a string replacement (no numbering, no code awareness).
Run: python -m pytest benchmarks/test_bench_render.py --benchmark-only
Throughput (MB/s) is in each result's extra_info and in docs/performance.md.
"""

import random
import re

import pytest

from sleuth_core.render import render_answer

PEER = re.compile(r"\[\[source:[^\s\[\]`]+\]\]|§")
WORDS = [
    "the",
    "payments",
    "api",
    "error",
    "rate",
    "rose",
    "after",
    "deploy",
    "of",
    "version",
    "database",
    "latency",
    "p99",
    "increased",
    "connection",
    "pool",
    "exhausted",
    "retries",
    "timeout",
    "upstream",
    "service",
    "checkout",
    "queue",
    "backlog",
    "grew",
    "alerts",
    "fired",
    "node",
    "memory",
    "pressure",
    "evicted",
    "pods",
    "rollback",
    "restored",
    "traffic",
    "healthy",
    "region",
]
SOURCES = {
    i: {
        "source_id": i,
        "display_text": f"Logs query {i}",
        "link": f"https://logs.example/q/{i}",
        "log_type_name": "logs",
        "type": "logs",
    }
    for i in range(1, 41)
}
CODE_SNIPPETS = [
    "```sql\nSELECT service, count(*) FROM errors\nWHERE ts > now() - interval '1 hour'\n"
    "GROUP BY service ORDER BY 2 DESC;\n```\n",
    "```bash\nkubectl -n payments rollout undo deploy/payments-api\n"
    "kubectl -n payments get pods -l app=payments-api\n```\n",
    "```\n2026-01-01T09:12:03Z ERROR payments-api pool exhausted (max=50)\n"
    "2026-01-01T09:12:04Z WARN checkout retry 3/5\n```\n",
]


def sentence(rnd: random.Random, cite: bool = True) -> str:
    words = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(8, 18)))
    stamp = (
        f" at §2026-01-0{rnd.randint(1, 9)}T09:{rnd.randint(10, 59)}Z§"
        if rnd.random() < 0.4
        else ""
    )
    marker = f" [[source:{rnd.randint(1, 45)}]]" if cite else ""
    return f"{words.capitalize()}{stamp}{marker}."


def answer(size: int, code: bool, seed: int = 7) -> str:
    """A markdown answer of about ``size`` characters: headings, paragraphs, lists, a table."""
    rnd = random.Random(seed)
    parts: list[str] = ["# Investigation summary\n\n"]
    section = 0
    while sum(map(len, parts)) < size:
        section += 1
        parts.append(f"## Finding {section}: **{rnd.choice(WORDS)} {rnd.choice(WORDS)}**\n\n")
        for _ in range(rnd.randint(1, 3)):
            text = " ".join(sentence(rnd, rnd.random() < 0.7) for _ in range(rnd.randint(2, 5)))
            if code and rnd.random() < 0.3:
                text += f" Run `kubectl describe pod {rnd.choice(WORDS)}-7f9c` to check."
            parts.append(text + "\n\n")
        for _ in range(rnd.randint(2, 5)):
            parts.append(f"- {sentence(rnd)}\n")
            if rnd.random() < 0.3:
                indent = rnd.choice(["  ", "    "])
                parts.append(f"{indent}- {sentence(rnd, False)}\n")
        parts.append("\n")
        if section % 4 == 0:
            parts.append("| service | error rate | source |\n|---|---:|---|\n")
            for _ in range(3):
                source = f"[[source:{rnd.randint(1, 40)}]]"
                parts.append(f"| {rnd.choice(WORDS)}-api | {rnd.randint(1, 99)}% | {source} |\n")
            parts.append("\n")
        if code and section % 2 == 0:
            parts.append(rnd.choice(CODE_SNIPPETS) + "\n")
    return "".join(parts)


CASES = {
    "plain-50k": answer(50_000, code=False),
    "plain-500k": answer(500_000, code=False),
    "code-50k": answer(50_000, code=True),
    "code-500k": answer(500_000, code=True),
}


def _throughput(benchmark, text: str) -> None:
    benchmark.extra_info["bytes"] = len(text.encode())
    median = benchmark.stats.stats.median
    benchmark.extra_info["MB/s (median)"] = round(len(text.encode()) / median / 1e6, 1)


@pytest.mark.parametrize("case", list(CASES))
def test_peer_re_sub(benchmark, case):
    benchmark.group = f"render-{case}"
    text = CASES[case]
    out = benchmark(PEER.sub, "", text)
    assert "§" not in out
    _throughput(benchmark, text)


@pytest.mark.parametrize("case", list(CASES))
def test_render_answer(benchmark, case):
    benchmark.group = f"render-{case}"
    text = CASES[case]
    result = benchmark(render_answer, text, SOURCES, sources_section=True)
    assert result.sources and "[[source:" not in result.content.split("Sources:")[0]
    assert ("```" in text) == case.startswith("code")
    _throughput(benchmark, text)
