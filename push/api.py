"""Push API: the server's VAPID public key, a player's subscriptions (a
browser's Web Push subscription, an app's FCM or APNs device token) and their
preferences (docs/api.md "Push", docs/protocol.md "Push")."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils import translation
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.api import request_device
from accounts.models import User
from kernel.api.idempotency import idempotent
from kernel.api.schema import errors
from kernel.api.strict import StrictIn

from .models import Preferences, Subscription
from .services import (
    preferences_of,
    push_preferences_set,
    push_subscribe,
    push_subscriptions,
    push_unsubscribe,
)


class KeyOut(serializers.Serializer[dict[str, Any]]):
    vapid_public_key = serializers.CharField(
        help_text=(
            "The server's VAPID public key (base64url, an uncompressed P-256 point): "
            "`applicationServerKey` of the browser's `pushManager.subscribe`."
        )
    )
    sender = serializers.ChoiceField(
        choices=["webpush", "logging", "off"],
        help_text=(
            "How this server delivers: `webpush` (browsers through their push service), "
            "`logging` (development: logged, never sent), `off`."
        ),
    )


class KeysIn(StrictIn):
    p256dh = serializers.CharField(max_length=200)
    auth = serializers.CharField(max_length=100)


class SubscriptionIn(StrictIn):
    kind = serializers.ChoiceField(
        choices=Subscription.Kind.choices,
        help_text="`web` (a browser's Web Push), `fcm` (Android) or `apns` (iOS).",
    )
    endpoint = serializers.CharField(
        max_length=1024,
        required=False,
        help_text="`web`: the subscription's `endpoint` (https://).",
    )
    keys = KeysIn(required=False, help_text="`web`: the subscription's `keys`.")
    expirationTime = serializers.IntegerField(
        required=False,
        allow_null=True,
        help_text="`web`: ignored (so that `PushSubscription.toJSON()` can be sent as it is).",
    )
    token = serializers.CharField(
        max_length=1024,
        required=False,
        help_text="`fcm`/`apns`: the device's registration token.",
    )


class SubscriptionOut(serializers.ModelSerializer[Subscription]):
    current = serializers.SerializerMethodField()

    class Meta:
        model = Subscription
        fields = (
            "id",
            "kind",
            "endpoint",
            "language",
            "session",
            "created",
            "last_sent",
            "current",
        )
        read_only_fields = fields

    def get_current(self, subscription: Subscription) -> bool:
        """Whether it belongs to the caller's device session (apps)."""
        return subscription.session_id is not None and subscription.session_id == self.context.get(
            "session"
        )


class PushPreferences(StrictIn):
    turn = serializers.BooleanField(
        required=False, help_text="My turn (a move, or my cards to arrange)."
    )
    hand = serializers.BooleanField(
        required=False, help_text="A hand is about to start at my table (the ready clock)."
    )
    invite = serializers.BooleanField(required=False, help_text="A player invited me to a table.")


def _prefs(prefs: Preferences) -> dict[str, bool]:
    return {"turn": prefs.turn, "hand": prefs.hand, "invite": prefs.invite}


class PushKeyView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="push_key",
        summary="The server's VAPID public key",
        auth=[],
        responses={200: KeyOut, **errors(429)},
    )
    def get(self, request: Request) -> Response:
        body = {"vapid_public_key": settings.PUSH_VAPID_PUBLIC_KEY, "sender": settings.PUSH_SENDER}
        return Response(KeyOut(body).data)


class SubscriptionsView(APIView):
    @extend_schema(
        operation_id="me_push_subscriptions",
        summary="My push subscriptions",
        description="Every browser and app device of mine that gets pushes, newest first.",
        responses={200: SubscriptionOut(many=True), **errors(401)},
    )
    def get(self, request: Request) -> Response:
        user: User = request.user  # type: ignore[assignment]
        rows = SubscriptionOut(
            push_subscriptions(user=user), many=True, context={"session": request_device(request)}
        )
        return Response(rows.data)

    @extend_schema(
        operation_id="me_push_subscribe",
        summary="Subscribe this browser, or register this app's device, for pushes",
        description=(
            "A browser sends its `PushSubscription.toJSON()` with `kind: web` (subscribed "
            "with the key of `GET /api/v1/push/key`); an app its FCM or APNs token with "
            "`kind: fcm` or `apns` (tied to the device session that sends it: logging that "
            "device out ends it). The same endpoint or token again updates it. The "
            "notices are written in the request's language. `invalid_subscription`: an "
            "endpoint that is not https://, keys that are not a P-256 key and a 16-byte "
            "secret, a token of the wrong form."
        ),
        request=SubscriptionIn,
        responses={201: SubscriptionOut, **errors(400, 401, 429, bad=["invalid_subscription"])},
    )
    @idempotent
    def post(self, request: Request) -> Response:
        data = SubscriptionIn(data=request.data)
        data.is_valid(raise_exception=True)
        given = data.validated_data
        user: User = request.user  # type: ignore[assignment]
        keys = given.get("keys") or {}
        web = given["kind"] == Subscription.Kind.WEB
        subscription = push_subscribe(
            user=user,
            kind=given["kind"],
            endpoint=given.get("endpoint", "") if web else given.get("token", ""),
            p256dh=keys.get("p256dh", ""),
            auth=keys.get("auth", ""),
            language=translation.get_language() or settings.LANGUAGE_CODE,
            session_id=request_device(request),
        )
        out = SubscriptionOut(subscription, context={"session": request_device(request)})
        return Response(out.data, status=status.HTTP_201_CREATED)


class SubscriptionView(APIView):
    @extend_schema(
        operation_id="me_push_unsubscribe",
        summary="Stop pushes to one of my devices",
        request=None,
        responses={204: None, **errors(401, 404, 429, missing=["subscription_not_found"])},
    )
    def delete(self, request: Request, subscription_id: int) -> Response:
        user: User = request.user  # type: ignore[assignment]
        push_unsubscribe(user=user, subscription_id=subscription_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class PreferencesView(APIView):
    @extend_schema(
        operation_id="me_push_preferences",
        summary="What I want pushed",
        description="Each notice on or off (all on until changed).",
        responses={200: PushPreferences, **errors(401)},
    )
    def get(self, request: Request) -> Response:
        user: User = request.user  # type: ignore[assignment]
        return Response(_prefs(preferences_of(user.pk)))

    @extend_schema(
        operation_id="me_push_preferences_set",
        summary="Turn push notices on or off",
        description="Only the notices named change.",
        request=PushPreferences,
        responses={200: PushPreferences, **errors(400, 401, 429)},
    )
    def patch(self, request: Request) -> Response:
        data = PushPreferences(data=request.data)
        data.is_valid(raise_exception=True)
        user: User = request.user  # type: ignore[assignment]
        return Response(_prefs(push_preferences_set(user=user, **data.validated_data)))
