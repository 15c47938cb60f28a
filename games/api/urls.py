from django.urls import path

from . import views

urlpatterns = [
    path("tables", views.TablesView.as_view(), name="api-tables"),
    path("tables/<int:table_id>", views.TableView.as_view(), name="api-table"),
    path("tables/<int:table_id>/sit", views.SitView.as_view(), name="api-table-sit"),
    path("tables/<int:table_id>/ready", views.ReadyView.as_view(), name="api-table-ready"),
    path("tables/<int:table_id>/seed", views.SeedView.as_view(), name="api-table-seed"),
    path("tables/<int:table_id>/leave", views.LeaveView.as_view(), name="api-table-leave"),
    path("tables/<int:table_id>/stay", views.StayView.as_view(), name="api-table-stay"),
    path(
        "tables/<int:table_id>/auto-ready",
        views.AutoReadyView.as_view(),
        name="api-table-auto-ready",
    ),
    path(
        "tables/<int:table_id>/leave-cost",
        views.LeaveCostView.as_view(),
        name="api-table-leave-cost",
    ),
    path("tables/<int:table_id>/actions", views.ActView.as_view(), name="api-table-act"),
    path("tables/<int:table_id>/bots", views.BotView.as_view(), name="api-table-bots"),
    path("tables/<int:table_id>/buy-in", views.BuyInView.as_view(), name="api-table-buy-in"),
    path("tables/<int:table_id>/close", views.CloseView.as_view(), name="api-table-close"),
    path("tables/<int:table_id>/rules", views.TableRulesView.as_view(), name="api-table-rules"),
    path("rules/<str:game>/<str:preset>", views.RulesView.as_view(), name="api-rules"),
    path("tables/<int:table_id>/invitations", views.InviteView.as_view(), name="api-table-invite"),
    path("me/tables", views.MyTablesView.as_view(), name="api-me-tables"),
    path("hands", views.HandsView.as_view(), name="api-hands"),
    path("hands/<int:hand_id>", views.HandView.as_view(), name="api-hand"),
    path("hands/<int:hand_id>/replay", views.ReplayView.as_view(), name="api-hand-replay"),
    path(
        "hands/<int:hand_id>/replay/steps",
        views.ReplayStepsView.as_view(),
        name="api-hand-replay-steps",
    ),
    path("hands/<int:hand_id>/phh", views.PhhView.as_view(), name="api-hand-phh"),
    path("leaderboard", views.LeaderboardView.as_view(), name="api-leaderboard"),
    path("players/<int:user_id>", views.PlayerView.as_view(), name="api-player"),
    path("fairness/verify", views.FairnessView.as_view(), name="api-fairness-verify"),
    path("chat/<int:message_id>/report", views.ChatReportView.as_view(), name="api-chat-report"),
]
