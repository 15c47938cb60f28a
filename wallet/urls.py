from django.urls import path

from . import views

urlpatterns = [
    path("", views.wallet_page, name="wallet"),
    path("bonus/", views.claim_bonus, name="wallet-bonus"),
]
