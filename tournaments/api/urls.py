from django.urls import path

from . import views

urlpatterns = [
    path("tournaments", views.TournamentsView.as_view(), name="api-tournaments"),
    path("tournaments/<int:tournament_id>", views.TournamentView.as_view(), name="api-tournament"),
    path(
        "tournaments/<int:tournament_id>/register",
        views.RegisterView.as_view(),
        name="api-tournament-register",
    ),
    path(
        "tournaments/<int:tournament_id>/unregister",
        views.UnregisterView.as_view(),
        name="api-tournament-unregister",
    ),
]
