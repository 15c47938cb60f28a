"""What a deploy's ``collectstatic`` collects and compresses."""

from django.apps import apps
from django.conf import settings
from django.contrib.staticfiles.apps import StaticFilesConfig
from django.contrib.staticfiles.finders import get_finders
from whitenoise.compress import Compressor


def collected() -> set[str]:
    """The paths ``collectstatic`` copies, found as the command finds them."""
    config = apps.get_app_config("staticfiles")
    assert isinstance(config, StaticFilesConfig)
    ignore = config.ignore_patterns
    return {path for finder in get_finders() for path, _ in finder.list(ignore)}


def test_the_swagger_ui_is_collected_and_redoc_is_not():
    paths = collected()

    swagger = "drf_spectacular_sidecar/swagger-ui-dist/"
    for name in ("swagger-ui-bundle.js", "swagger-ui.css", "swagger-ui-bundle.js.map"):
        assert swagger + name in paths
    assert "admin/css/base.css" in paths  # the admin's own, still there
    assert "js/cards.js" in paths  # and the site's
    assert not [p for p in paths if p.startswith("drf_spectacular_sidecar/redoc/")]


def test_source_maps_are_kept_plain_and_scripts_are_compressed():
    compressor = Compressor(extensions=settings.WHITENOISE_SKIP_COMPRESS_EXTENSIONS, quiet=True)

    assert not compressor.should_compress("swagger-ui-bundle.js.map")
    assert compressor.should_compress("swagger-ui-bundle.js")
    assert compressor.should_compress("swagger-ui.css")
    assert not compressor.should_compress("favicon-32x32.png")  # whitenoise's own list kept
