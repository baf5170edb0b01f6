"""Notifications: result callbacks, alt webhook cards and chat messages, each a durable job.

- :mod:`~sleuth_shell.notify.urls`: which outbound URLs are allowed (no private addresses unless
  ``SLEUTH_ALLOW_PRIVATE_URLS``), checked on submission and again right before each POST.
- :mod:`~sleuth_shell.notify.http`: the outbound HTTP seam (:class:`HttpPoster`).
- :mod:`~sleuth_shell.notify.signing`: ``X-Service-Signature`` (HMAC-SHA256 of the body).
- :mod:`~sleuth_shell.notify.chat`: the chat client seam: the embedded outbox, the Web API.
- :mod:`~sleuth_shell.notify.delivery`: the ``notify.web``, ``notify.alt`` and ``notify.chat`` jobs.
"""
