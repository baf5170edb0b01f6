"""Rendering of agent output (DESIGN section 4 "Rendering of agent output", INTEGRATIONS 6-7).

- :func:`render_answer` - source markers -> numbered citations, ``§`` removed, code verbatim, and
  the ``Sources:`` section of investigation and digest results (:mod:`.citations`).
- :func:`to_chat` - the chat platform's mrkdwn (:mod:`.chat`).
- :func:`to_alt_card` - the alt webhook's Adaptive Card message (:mod:`.alt`).
"""

from sleuth_core.render.alt import to_alt_card
from sleuth_core.render.chat import to_chat
from sleuth_core.render.citations import RenderedAnswer, SourceId, render_answer

__all__ = ["RenderedAnswer", "SourceId", "render_answer", "to_alt_card", "to_chat"]
