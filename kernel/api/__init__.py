"""What every endpoint under ``/api/`` shares: one error shape, authentication,
throttles, pagination and the schema helpers (docs/api.md)."""
