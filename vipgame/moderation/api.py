"""Moderation API for players: report a chat line."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from vipgame.accounts.models import User
from vipgame.api.schema import errors
from vipgame.api.strict import StrictIn

from .models import ChatFlag
from .services import NOTE_MAX, chat_report


# The service checks both (``bad_report``, as the socket's ``report`` does); the
# schema says what it accepts.
@extend_schema_field({"type": "string", "enum": list(ChatFlag.Category.values)})
class CategoryField(serializers.CharField):
    pass


@extend_schema_field({"type": "string", "maxLength": NOTE_MAX})
class NoteField(serializers.CharField):
    pass


class ReportIn(StrictIn):
    category = CategoryField(
        required=False,
        default=ChatFlag.Category.ABUSE,
        help_text="Why: " + ", ".join(f"`{c}`" for c in ChatFlag.Category.values) + ".",
    )
    note = NoteField(
        required=False, default="", allow_blank=True, help_text="Up to 200 characters."
    )
    invite = serializers.CharField(
        required=False,
        default="",
        allow_blank=True,
        help_text="A private table's invite code, for a line read there without sitting down.",
    )


class ReportOut(serializers.Serializer[dict[str, Any]]):
    message_id = serializers.IntegerField(help_text="The chat line reported.")
    category = serializers.CharField()


class ChatReportView(APIView):
    @extend_schema(
        operation_id="chat_report",
        summary="Report a chat line",
        description=(
            "The line (a `chat` message's `id`) goes to the moderators' queue. Anyone "
            "who could read it may report it: at a public table every logged-in player "
            "(spectators see its chat), at a private one whoever may open the table or "
            "played there (else `chat_line_not_found`). Not your own line "
            "(`cannot_report_own`), not a bot's (`cannot_report_bot`), not one older "
            "than `CHAT_REPORT_MAX_AGE_HOURS` (`chat_line_too_old`), once per line "
            "(`already_reported`), at most `CHAT_REPORT_RATE` reports per player, "
            "socket included (`report_rate_limited`, with `details.wait`). The same "
            "as the socket's `report` message."
        ),
        request=ReportIn,
        responses={
            201: ReportOut,
            **errors(
                400,
                401,
                bad=["bad_report"],
                missing=["chat_line_not_found"],
                conflict=[
                    "cannot_report_own",
                    "cannot_report_bot",
                    "chat_line_too_old",
                    "already_reported",
                ],
                throttle=["report_rate_limited"],
            ),
        },
    )
    def post(self, request: Request, message_id: int) -> Response:
        data = ReportIn(data=request.data)
        data.is_valid(raise_exception=True)
        user: User = request.user  # type: ignore[assignment]
        chat_report(
            user=user,
            message_id=message_id,
            category=data.validated_data["category"],
            note=data.validated_data["note"],
            invite_code=data.validated_data["invite"],
        )
        body = {"message_id": message_id, "category": data.validated_data["category"]}
        return Response(body, status=status.HTTP_201_CREATED)
