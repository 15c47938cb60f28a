from django.contrib import admin
from django.urls import include, path
from django.views.i18n import JavaScriptCatalog

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("accounts/", include("vipgame.accounts.urls")),
    path("wallet/", include("wallet.urls")),
    path("tables/", include("games.urls")),
    path("jsi18n/", JavaScriptCatalog.as_view(domain="djangojs"), name="javascript-catalog"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
]
