"""The knowledge catalog: documents the agent searches and cites (``search``, ``documents``)."""
