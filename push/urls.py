from django.urls import path

from . import api

urlpatterns = [
    path("push/key", api.PushKeyView.as_view(), name="api-push-key"),
    path("me/push/subscriptions", api.SubscriptionsView.as_view(), name="api-push-subscriptions"),
    path(
        "me/push/subscriptions/<int:subscription_id>",
        api.SubscriptionView.as_view(),
        name="api-push-subscription",
    ),
    path("me/push/preferences", api.PreferencesView.as_view(), name="api-push-preferences"),
]
