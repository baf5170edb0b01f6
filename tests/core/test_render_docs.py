"""docs/core.md: the Render, Credits and Settings examples run and give what they show."""

import doctest
import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "core.md"
SECTIONS = ["Render", "Credits", "Settings"]


def _section(name: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    match = re.search(rf"^## {name}\n(.*?)(?=^## |\Z)", text, flags=re.M | re.S)
    assert match, f"docs/core.md has no '## {name}' section"
    return match.group(1)


@pytest.mark.parametrize("name", SECTIONS)
def test_section_examples(name):
    body = _section(name)
    parser = doctest.DocTestParser()
    test = parser.get_doctest(body, {}, f"docs/core.md#{name}", str(DOC), 0)
    assert test.examples, f"section {name} has no examples"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0


@pytest.mark.parametrize(
    ("name", "module", "functions"),
    [
        ("Render", "render", ["RenderedAnswer", "render_answer", "to_chat", "to_alt_card"]),
        (
            "Credits",
            "credits",
            ["UsageEvent", "parse_usage_range", "aggregate_usage", "round_credits"],
        ),
        ("Settings", "settings", ["validate_advanced_settings", "triggered_assignments"]),
    ],
)
def test_every_public_function_is_documented(name, module, functions):
    import importlib

    mod = importlib.import_module(f"sleuth_core.{module}")
    assert set(functions) <= set(mod.__all__)
    body = _section(name)
    for function in mod.__all__:
        if callable(getattr(mod, function)) and function != "SourceId":
            assert f"`{function}" in body and f"{function}(" in body, function
