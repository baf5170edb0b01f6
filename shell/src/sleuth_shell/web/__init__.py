"""The web app: HTML pages, one module per subject (:mod:`.routes` serves every module with
``ROUTES``), their guard, row lookups and filters, the server-side sessions, the Jinja templates
and the rendering helpers. The JSON API is :mod:`sleuth_shell.api`; pages call the same services
and query modules it does."""
