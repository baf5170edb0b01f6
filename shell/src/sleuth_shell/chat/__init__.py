"""Chat in: messages the chat bot sees run chat alert agents and chat triggers.

- :mod:`.service` - one message (from ``POST /chat/events`` or the platform's own signed
  deliveries to ``POST /webhooks/CHAT/{remote_id}``) -> investigations and a queued reply.
- :mod:`.triggers` - the ``chat.trigger`` job: the filter agent's decision and the reply.
"""

from sleuth_shell.chat.service import (
    ChatOutcome,
    IncomingMessage,
    handle_message,
    message_from_event,
    message_from_request,
)
from sleuth_shell.chat.triggers import TRIGGER_KIND, register_chat_jobs, tip_text

__all__ = [
    "TRIGGER_KIND",
    "ChatOutcome",
    "IncomingMessage",
    "handle_message",
    "message_from_event",
    "message_from_request",
    "register_chat_jobs",
    "tip_text",
]
