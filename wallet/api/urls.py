from django.urls import path

from . import views

urlpatterns = [
    path("wallet", views.WalletView.as_view(), name="api-wallet"),
    path("wallet/ledger", views.LedgerView.as_view(), name="api-wallet-ledger"),
    path("wallet/bonus", views.BonusView.as_view(), name="api-wallet-bonus"),
]
