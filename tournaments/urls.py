from django.urls import path

from . import views

urlpatterns = [
    path("<int:tournament_id>/", views.tournament_page, name="tournament"),
]
