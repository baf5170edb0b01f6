"""to_chat (mrkdwn, INTEGRATIONS.md section 6) and to_alt_card (Adaptive Card, section 7)."""

import json

import pytest

from sleuth_core.render import to_alt_card, to_chat
from sleuth_core.render.alt import MAX_CARD_BYTES

CHAT_CASES = [
    ("**bold** and __bold__", "*bold* and *bold*"),
    ("*it* and _it_", "_it_ and _it_"),
    ("~~gone~~", "~gone~"),
    ("[run 881](https://ci.example.com/run/881)", "<https://ci.example.com/run/881|run 881>"),
    ("<https://a.example/x>", "<https://a.example/x>"),
    ("[a|b](<https://a.example/x y>)", "<https://a.example/x%20y|a/b>"),
    ("# Root **cause**", "*Root cause*"),
    ("### Deep", "*Deep*"),
    ("- one\n- two", "• one\n• two"),
    ("3. three\n4. four", "3. three\n4. four"),
    ("- a\n  - b\n    - c", "• a\n    • b\n        • c"),
    ("x & y < z > w", "x &amp; y &lt; z &gt; w"),
    ("`a < b` kept", "`a &lt; b` kept"),
    ("```python\nif a < b:\n    pass\n```", "```\nif a &lt; b:\n    pass\n```"),
    ("    indented\n    code", "```\nindented\ncode\n```"),
    ("> quoted\n> more", "&gt; quoted\n&gt; more"),
    ("a\n\n---\n\nb", "a\n\n———\n\nb"),
    ("![graph](https://img.example/g.png)", "<https://img.example/g.png|graph>"),
    ("<b>raw</b>", "&lt;b&gt;raw&lt;/b&gt;"),
    ("line one\nline two", "line one\nline two"),
    ("", ""),
]


@pytest.mark.parametrize(("markdown", "expected"), CHAT_CASES)
def test_to_chat(markdown, expected):
    assert to_chat(markdown) == expected


def test_to_chat_table_becomes_code_block():
    table = "| service | rate |\n|---|---:|\n| payments-api | 7.2% |\n| search | 0.1% |"
    assert to_chat("Rates:\n\n" + table) == (
        "Rates:\n\n```\n"
        "service      | rate\n"
        "-------------+-----\n"
        "payments-api | 7.2%\n"
        "search       | 0.1%\n"
        "```"
    )


def test_to_chat_answer_with_sources():
    answer = "## Cause\n\nBad deploy [1].\n\nSources:\n[1] [Deploys](https://ci.example/r?a=1&b=2)"
    assert to_chat(answer) == (
        "*Cause*\n\nBad deploy [1].\n\nSources:\n[1] <https://ci.example/r?a=1&b=2|Deploys>"
    )


def _card(message):
    assert message["type"] == "message"
    (attachment,) = message["attachments"]
    assert attachment["contentType"] == "application/vnd.microsoft.card.adaptive"
    assert attachment["contentUrl"] is None
    content = attachment["content"]
    assert content["type"] == "AdaptiveCard"
    assert content["version"] == "1.4"
    assert content["$schema"] == "http://adaptivecards.io/schemas/adaptive-card.json"
    for element in content["body"]:
        if element["type"] == "TextBlock":
            assert element["wrap"] is True
    return content


def test_alt_card_shape():
    markdown = (
        "# Root cause\n\nLikely **bad deploy** of _payments_ ~~maybe~~, see [run](https://ci/881).\n\n"
        "- error rate 7.2%\n- started 09:12\n  1. first\n\n"
        "| Alert | High error rate |\n|---|---|\n| Started | 09:12 UTC |\n\n"
        "---\n\n> a quote\n\n```\nSELECT 1;\n```\n\n"
        "| a | b | c |\n|---|---|---|\n| 1 | 2 | 3 |"
    )
    content = _card(to_alt_card("Investigation finished", markdown, "https://app.example/inv/42"))
    body = content["body"]
    assert body[0] == {
        "type": "TextBlock",
        "text": "Investigation finished",
        "wrap": True,
        "weight": "Bolder",
        "size": "Medium",
    }
    assert body[1] == {"type": "TextBlock", "text": "Root cause", "wrap": True, "weight": "Bolder"}
    assert (
        body[2]["text"] == "Likely **bad deploy** of _payments_ maybe, see [run](https://ci/881)."
    )
    assert body[3]["text"] == "- error rate 7.2%\n- started 09:12\n  1. first"
    assert body[4]["text"] == "Alert — High error rate"
    assert body[5] == {"type": "FactSet", "facts": [{"title": "Started", "value": "09:12 UTC"}]}
    assert body[6]["text"] == "a quote" and body[6]["isSubtle"] is True
    assert body[6]["separator"] is True
    assert body[7]["text"] == "SELECT 1;" and body[7]["fontType"] == "Monospace"
    assert body[8]["fontType"] == "Monospace"
    assert body[8]["text"].splitlines() == ["a | b | c", "--+---+--", "1 | 2 | 3"]
    assert content["actions"] == [
        {"type": "Action.OpenUrl", "title": "Open in Sleuth", "url": "https://app.example/inv/42"}
    ]


def test_alt_card_without_url_has_no_actions():
    content = _card(to_alt_card("Digest", "Quiet day.", None))
    assert "actions" not in content
    assert [b["text"] for b in content["body"]] == ["Digest", "Quiet day."]


@pytest.mark.parametrize("url", [None, "https://app.example/inv/42"])
@pytest.mark.parametrize(
    "markdown",
    [
        "\n\n".join(f"Paragraph {i}: " + "lorem ipsum é " * 40 for i in range(200)),
        "one giant paragraph " * 5000,
        "\n\n".join(f"## Heading {i}\n\n- a\n- b" for i in range(2000)),
    ],
)
def test_alt_card_is_truncated_under_the_limit(markdown, url):
    message = to_alt_card("Big", markdown, url)
    content = _card(message)
    assert len(json.dumps(message)) <= MAX_CARD_BYTES
    assert len(json.dumps(message, ensure_ascii=False).encode()) <= MAX_CARD_BYTES
    note = content["body"][-1]
    assert note["text"].startswith("The message was truncated")
    assert ("open it in Sleuth" in note["text"]) == (url is not None)
    assert len(content["body"]) > 2  # kept as much as fits, not just the title
