from django.contrib import admin
from django.urls import URLPattern, URLResolver, include, path, re_path
from django.views.i18n import JavaScriptCatalog
from drf_spectacular.views import SpectacularSwaggerSplitView

from accounts import api as accounts_api
from games import views as game_views
from games.api import asyncapi
from kernel.api.schema_view import SchemaView
from vipgame.api import documents
from vipgame.api import views as api_views

from . import pwa, signup, views

api_v1: list[URLPattern | URLResolver] = [
    path("auth/login", accounts_api.LoginView.as_view(), name="api-login"),
    path("auth/logout", accounts_api.LogoutView.as_view(), name="api-logout"),
    path("auth/logout-all", accounts_api.LogoutAllView.as_view(), name="api-logout-all"),
    path("auth/refresh", accounts_api.RefreshView.as_view(), name="api-refresh"),
    path("auth/signup", signup.SignupView.as_view(), name="api-signup"),
    path("auth/password", accounts_api.PasswordView.as_view(), name="api-password"),
    path(
        "auth/password-reset", accounts_api.PasswordResetView.as_view(), name="api-password-reset"
    ),
    path(
        "auth/password-reset/confirm",
        accounts_api.PasswordResetConfirmView.as_view(),
        name="api-password-reset-confirm",
    ),
    path("auth/email/verify", accounts_api.EmailVerifyView.as_view(), name="api-email-verify"),
    path("me", accounts_api.MeView.as_view(), name="api-me"),
    path("me/avatar", accounts_api.MyAvatarView.as_view(), name="api-me-avatar"),
    path("me/email", accounts_api.MyEmailView.as_view(), name="api-me-email"),
    path("me/email/resend", accounts_api.MyEmailResendView.as_view(), name="api-me-email-resend"),
    path("me/sessions", accounts_api.SessionsView.as_view(), name="api-me-sessions"),
    path(
        "me/sessions/<int:session_id>",
        accounts_api.SessionView.as_view(),
        name="api-me-session",
    ),
    path(
        "me/browser-sessions/<int:session_id>",
        accounts_api.BrowserSessionView.as_view(),
        name="api-me-browser-session",
    ),
    path("", include("wallet.api.urls")),
    path("", include("games.api.urls")),
    path("", include("push.urls")),
    path("", include("tournaments.api.urls")),
]

urlpatterns = [
    path("", views.home, name="home"),
    # Installable (vipgame/pwa.py): the service worker at the root (its scope: the site).
    path("sw.js", pwa.service_worker, name="service-worker"),
    path("manifest.webmanifest", pwa.manifest, name="manifest"),
    path("offline/", pwa.offline, name="offline"),
    path("accounts/signup/", signup.signup, name="signup"),
    path("accounts/", include("accounts.urls")),
    path("wallet/", include("wallet.urls")),
    path("tables/", include("games.urls")),
    path("tournaments/", include("tournaments.urls")),
    path("rules/", game_views.rules_index, name="rules"),
    path("rules/<str:game>/", game_views.rules_game, name="rules-game"),
    path("rules/<str:game>/<str:preset>/", game_views.rules_preset, name="rules-preset"),
    path("jsi18n/", JavaScriptCatalog.as_view(domain="djangojs"), name="javascript-catalog"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
    path("api/v1/", include(api_v1)),
    path("api/schema/", SchemaView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    # The documents the API's descriptions cite (docs/<name>.md: vipgame.api.documents).
    path("api/<slug:name>.md", documents.document, name="api-document"),
    path("api/asyncapi.json", asyncapi.asyncapi_json, name="api-asyncapi"),
    path("api/asyncapi.yaml", asyncapi.asyncapi_yaml, name="api-asyncapi-yaml"),
    re_path(r"^api/", api_views.not_found),
]

handler500 = "vipgame.api.views.server_error"
