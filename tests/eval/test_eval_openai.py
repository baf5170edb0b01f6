"""The ``openai`` agent's answers scored by the evaluation's own checks (`evals.run.score`: source,
facts, abstention, every citation supporting its sentence), on the evaluation's corpora, with a
local stand-in for a cloud LLM (`tests/shell/llm_standin.py`) that calls the tools and then writes
its answer from the tool results it received (quoting them, citing the ids they carried)."""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
for path in (ROOT, ROOT / "tests" / "shell"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from llm_standin import standin_llm, tool_calls  # noqa: E402

from evals import run as evaluation  # noqa: E402
from sleuth_shell.agents.openai import OpenAIAgent  # noqa: E402


def _answer(text: str) -> tuple[int, dict[str, Any]]:
    """A final answer; the endpoint reports no token usage (so credits are the tools' alone)."""
    return 200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]}


def _results(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [json.loads(m["content"]) for m in body["messages"] if m["role"] == "tool"]


def _quote_best_passage(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    (found,) = _results(body)
    doc = found["results"][0]
    return _answer(f"{doc['passages'][0]['text']} [[source:{doc['source_id']}]]")


def _report_top_message(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    (top,) = _results(body)
    m = top["messages"][0]
    return _answer(
        f"**{m['service']}** logged `{m['message']}` {m['count']} times "
        f"[[source:{top['source_id']}]]."
    )


def test_openai_answers_pass_the_evaluation_checks() -> None:
    questions = {q["id"]: q for q in evaluation.load_questions("tune")}
    fact, logs, unanswerable = questions["t01"], questions["t08"], questions["t12"]
    window = logs["logs"]

    async def go() -> list[evaluation.Outcome]:
        with standin_llm() as llm, tempfile.TemporaryDirectory() as directory:
            llm.replies += [
                tool_calls(("search_knowledge", {"query": fact["question"]}), tokens=0),
                _quote_best_passage,
                tool_calls(
                    (
                        "log_top_messages",
                        {
                            "start": window["start"],
                            "end": window["end"],
                            "services": [window["service"]],
                            "levels": ["ERROR", "CRITICAL"],
                        },
                    ),
                    tokens=0,
                ),
                _report_top_message,
                tool_calls(("search_knowledge", {"query": unanswerable["question"]}), tokens=0),
                _answer("Reset them in the loyalty admin panel."),
            ]
            agent = OpenAIAgent(base_url=llm.url, model="stand-in-model")
            corpora, engine = await evaluation.build_corpora(Path(directory))
            try:
                return await evaluation.evaluate(corpora, agent, [fact, logs, unanswerable])
            finally:
                await corpora.services.aclose()
                await engine.dispose()

    outcomes = asyncio.run(go())
    for outcome in outcomes:
        failed = {m: v for m, v in outcome.verdicts.items() if v is False}
        assert not failed, (outcome.question["id"], failed, outcome.problems, outcome.result)
    fact_out, logs_out, abstain_out = outcomes
    assert fact_out.verdicts["source"] and fact_out.verdicts["facts"]
    assert logs_out.verdicts["source"] and logs_out.verdicts["support"]
    assert abstain_out.verdicts["abstain"] is True
    assert abstain_out.result.markdown.startswith("I could not find anything about")
