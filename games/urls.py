from django.urls import path

from . import views

urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("new/", views.table_new, name="table-new"),
    path("quick/", views.quick_join, name="quick-join"),
    path("play/<str:game>/", views.play_now, name="play-now"),
    path("<int:table_id>/", views.table_page, name="table"),
    path("<int:table_id>/rules/", views.table_rules, name="table-rules"),
    path("<int:table_id>/close/", views.table_close, name="table-close"),
    path("history/", views.history, name="history"),
    path("leaderboard/", views.leaderboard, name="leaderboard"),
    path("history/<int:hand_id>/", views.replay, name="replay"),
]
