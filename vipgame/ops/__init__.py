"""Running it for real, the site's part: health probes, ``/metrics`` (scrape-time
figures read from every app), the request log context, retention, Celery's
hooks (docs/observability.md; the pieces the apps use: ``kernel.ops``)."""
