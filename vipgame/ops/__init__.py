"""Running it for real: health probes, metrics, structured logs, error
reporting and retention (docs/observability.md)."""
