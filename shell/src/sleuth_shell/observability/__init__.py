"""The embedded observability store: log ingestion (``ingest``) and queries (``store``)."""
