"""The site's own configuration of Django's static files."""

from django.contrib.staticfiles.apps import StaticFilesConfig


class StaticFiles(StaticFilesConfig):
    """``collectstatic`` leaves out what the site never serves.

    The API's documentation is Swagger UI (``/api/docs/``); the sidecar also
    ships Redoc (a 1.1 MB bundle and its 3.9 MB source map), which no page
    loads. Leaving it out spares every deploy copying, hashing and compressing
    it.
    """

    ignore_patterns = [*StaticFilesConfig.ignore_patterns, "drf_spectacular_sidecar/redoc/*"]
