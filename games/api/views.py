"""Games API: tables (the lobby, create, the caller's view, sit, ready, leave,
act, bots, buy-in, close), the caller's tables (``me/tables``) and hands
(history, detail, replay, PHH), the leaderboard and the fairness check. Each
view validates its input and calls services or selectors: the same ones the
WebSocket consumer calls."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any

from django.db.models import QuerySet
from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import generics, serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import User
from games import rulebook, selectors, services
from games.errors import IllegalMove
from games.models import ChatFlag, HandPlayer, Table
from games.services.tables import NOTE_MAX
from kernel.api.idempotency import idempotent
from kernel.api.pagination import Cursor
from kernel.api.schema import errors
from kernel.api.strict import StrictIn
from kernel.net import client_ip

from . import serializers as s
from .filters import HandFilter, TableFilter

INVITE = OpenApiParameter(
    "invite",
    {"type": "string", "maxLength": 16},  # as TableStateQuery
    description="A private table's invite code.",
    required=False,
)
SINCE = OpenApiParameter(
    "since",
    {"type": "integer", "minimum": 0, "maximum": 2**62},  # as TableStateQuery
    description="The last version you saw: `events` lists what you missed of this hand.",
    required=False,
)
HAND_CODES = {"missing": ["hand_not_found"], "conflict": ["hand_not_finished"]}


def user_of(request: Request) -> User:
    user: User = request.user  # type: ignore[assignment]
    return user


def caller_state(request: Request, table_id: int, invite: str = "") -> dict[str, Any]:
    user = user_of(request) if request.user.is_authenticated else None
    return selectors.table_state(table_id=table_id, user=user, invite_code=invite)


# -- tables ------------------------------------------------------------------


class TablesView(generics.ListAPIView[Table]):
    permission_classes = [IsAuthenticatedOrReadOnly]
    serializer_class = s.TableOut
    filterset_class = TableFilter

    def get_queryset(self) -> QuerySet[Table]:
        user = user_of(self.request) if self.request.user.is_authenticated else None
        return selectors.open_tables(user)

    @extend_schema(
        operation_id="tables_list",
        summary="The lobby: open public tables, and your private ones",
        description=(
            "Anyone may look, logged in or not. With your token, the private tables you "
            "own, sit at or were invited to are listed too (`private`: true; never anyone "
            "else's; their invite code only in `GET /api/v1/me/tables`, to their owner). "
            "`players` name who sits, with their `user_id`. Ordered by game, stake and id."
        ),
        responses={200: s.TableOut(many=True), **errors(400, 404)},
        auth=[],
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        operation_id="tables_create",
        summary="Open a table",
        description=(
            "The caller owns it: they may add bots and close it, and enter it when "
            "private. A private table is in the lobby of its owner, its invited players and "
            "whoever sits there only; others need `invite_code`. "
            "Every number and rule option has a range (docs/tables.md): out of range is "
            "`invalid` with the field's allowed range in `details`. A player may have "
            "`MAX_OPEN_TABLES_PER_USER` open tables (`too_many_tables`)."
        ),
        request=s.TableCreateIn,
        responses={
            201: s.TableCreatedOut,
            **errors(
                400, 401, 403, 429, 503, bad=["bad_table_settings"], conflict=["too_many_tables"]
            ),
        },
    )
    @idempotent
    def post(self, request: Request) -> Response:
        data = s.TableCreateIn(data=request.data)
        data.is_valid(raise_exception=True)
        table = services.table_create(owner=user_of(request), **data.validated_data)
        body = {**s.TableCreatedOut(table).data, "invite_code": table.invite_code or None}
        return Response(body, status=status.HTTP_201_CREATED)


class TableView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="tables_state",
        summary="A table as the caller sees it",
        description=(
            "The WebSocket `state` message (docs/protocol.md): your seat's view only. "
            "Anyone may watch a public table; a private one needs its invite code "
            "(players seated there, its owner, its invited players and staff do not). "
            "Opening a private table with its code while logged in makes you one of its "
            "invited players: it is in your lobby and `GET /api/v1/me/tables` from then on."
        ),
        parameters=[INVITE, SINCE],
        responses={
            200: s.TableStateOut,
            **errors(400, 403, 404, forbidden=["private_table"], missing=["table_not_found"]),
        },
        auth=[],
    )
    def get(self, request: Request, table_id: int) -> Response:
        query = s.TableStateQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        user = user_of(request) if request.user.is_authenticated else None
        invite = query.validated_data["invite"]
        services.invite_redeem(table_id=table_id, user=user, invite_code=invite)
        state = selectors.table_state(
            table_id=table_id, user=user, invite_code=invite, since=query.validated_data["since"]
        )
        return Response(state)


# (503 busy: a table's write that kept losing to others at its rows, kernel.retry)
STATE_ERRORS = errors(
    400, 401, 403, 404, 429, 503, forbidden=["private_table"], missing=["table_not_found"]
)


class SitView(APIView):
    @extend_schema(
        operation_id="tables_sit",
        summary="Take a seat",
        description=(
            "Mậu Binh and Tiến Lên need `min_balance` chips in the wallet; Poker moves "
            "`buy_in` chips (default: the minimum) from the wallet to the seat. "
            "`auto_ready` (default: on at a table with bots): the server readies the "
            "seat for each hand after the first. Answers with your view of the table."
        ),
        request=s.SitIn,
        responses={
            200: s.TableStateOut,
            **STATE_ERRORS,
            **errors(
                bad=["no_such_seat", "bad_buy_in", "insufficient_chips"],
                conflict=[
                    "table_closed",
                    "seat_taken",
                    "table_full",
                    "already_seated",
                    "tournament_seat",
                    "not_enough_chips",
                    "too_many_bots",
                    "too_many_bots_address",
                    "no_bot_available",
                ],
            ),
        },
    )
    @idempotent
    def post(self, request: Request, table_id: int) -> Response:
        data = s.SitIn(data=request.data)
        data.is_valid(raise_exception=True)
        invite = data.validated_data["invite"]
        services.table_sit(
            table_id=table_id,
            user=user_of(request),
            position=data.validated_data["position"],
            buy_in=data.validated_data["buy_in"],
            invite_code=invite,
            auto_ready=data.validated_data["auto_ready"],
            address=client_ip(request._request),
        )
        return Response(caller_state(request, table_id, invite))


class ReadyView(APIView):
    @extend_schema(
        operation_id="tables_ready",
        summary="Ready for the next hand",
        description="The client seed feeds the provably fair shuffle (docs/fairness.md).",
        request=s.ReadyIn,
        responses={
            200: s.TableStateOut,
            **STATE_ERRORS,
            **errors(
                bad=["bad_client_seed"],
                conflict=[
                    "not_seated",
                    "table_closed",
                    "not_enough_chips",
                    "hand_in_progress",
                    "stale_commitment",
                    "seed_reused",
                ],
            ),
        },
    )
    def post(self, request: Request, table_id: int) -> Response:
        data = s.ReadyIn(data=request.data)
        data.is_valid(raise_exception=True)
        services.table_ready(
            table_id=table_id,
            user=user_of(request),
            client_seed=data.validated_data["client_seed"],
            commitment=data.validated_data["commitment"],
        )
        return Response(caller_state(request, table_id))


class SeedView(APIView):
    @extend_schema(
        operation_id="tables_seed",
        summary="Send your seed for the next hand",
        description=(
            "Send a new random seed as soon as you see a new `next_commitment` "
            "(docs/fairness.md): the next hand is dealt from the server seed and every "
            "player's seed. Sending again before the deal replaces it. A player who sent "
            "none gets one drawn by the server (`seed_sources`)."
        ),
        request=s.SeedIn,
        responses={
            200: s.SeedOut,
            **STATE_ERRORS,
            **errors(
                bad=["bad_client_seed"],
                conflict=["not_seated", "table_closed", "stale_commitment", "seed_reused"],
            ),
        },
    )
    def post(self, request: Request, table_id: int) -> Response:
        data = s.SeedIn(data=request.data)
        data.is_valid(raise_exception=True)
        result = services.table_seed(
            table_id=table_id,
            user=user_of(request),
            client_seed=data.validated_data["client_seed"],
            commitment=data.validated_data["commitment"],
        )
        return Response(result)


class LeaveView(APIView):
    @extend_schema(
        operation_id="tables_leave",
        summary="Leave the table",
        description=(
            "Between hands the seat frees at once (Poker: the stack goes back to the "
            "wallet). During a hand, `when` `now` (the default) plays the game's leave "
            "rule (what it costs: `GET .../leave-cost`) and `after_hand` plays the hand "
            "out; either way the seat frees once the hand is settled. Asking again "
            "changes nothing."
        ),
        request=s.LeaveIn,
        responses={
            204: None,
            **errors(
                400,
                401,
                403,
                404,
                429,
                503,
                missing=["table_not_found"],
                conflict=["not_seated", "tournament_seat"],
            ),
        },
    )
    def post(self, request: Request, table_id: int) -> Response:
        data = s.LeaveIn(data=request.data)
        data.is_valid(raise_exception=True)
        services.table_leave(
            table_id=table_id, user=user_of(request), when=data.validated_data["when"]
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class StayView(APIView):
    @extend_schema(
        operation_id="tables_stay",
        summary="Stay: cancel leaving after this hand",
        description=(
            "Undoes `leave` `after_hand` (nothing to undo changes nothing). A hand left "
            "with `leave` now cannot be taken back: `already_left`."
        ),
        request=None,
        responses={
            200: s.TableStateOut,
            **STATE_ERRORS,
            **errors(conflict=["not_seated", "already_left"]),
        },
    )
    def post(self, request: Request, table_id: int) -> Response:
        services.table_stay(table_id=table_id, user=user_of(request))
        return Response(caller_state(request, table_id))


class AutoReadyView(APIView):
    @extend_schema(
        operation_id="tables_auto_ready",
        summary="Mậu Binh, Tiến Lên: ready for every next hand by itself",
        description=(
            "On: the server readies your seat after each hand (while your socket is "
            "open and your wallet covers the table's minimum balance); switched on "
            "while the table waits, it readies you now. Your seed for each hand is the "
            "one you send for its commitment, else one the server draws "
            "(docs/fairness.md)."
        ),
        request=s.AutoReadyIn,
        responses={
            200: s.TableStateOut,
            **STATE_ERRORS,
            **errors(conflict=["not_seated", "table_closed", "not_enough_chips"]),
        },
    )
    def post(self, request: Request, table_id: int) -> Response:
        data = s.AutoReadyIn(data=request.data)
        data.is_valid(raise_exception=True)
        services.table_auto_ready(
            table_id=table_id, user=user_of(request), on=data.validated_data["on"]
        )
        return Response(caller_state(request, table_id))


class LeaveCostView(APIView):
    @extend_schema(
        operation_id="tables_leave_cost",
        summary="What leaving now would cost you",
        description=(
            "The chips leaving the hand now costs, as the game's rules tell it from "
            "what you may see (`WsLeaveCost`); null when it costs nothing (between "
            "hands, a hand you already left, folded or went all in). Changes nothing."
        ),
        responses={
            200: s.LeaveCostOut,
            **errors(401, 404, missing=["table_not_found"], conflict=["not_seated"]),
        },
    )
    def get(self, request: Request, table_id: int) -> Response:
        cost = selectors.leave_cost(table_id=table_id, user=user_of(request))
        return Response({"leave_cost": cost})


class ActView(APIView):
    @extend_schema(
        operation_id="tables_act",
        summary="Make a move",
        description=(
            "`action` as in docs/protocol.md. `id` makes it idempotent: a repeated id "
            "answers `duplicate: true` and is not applied again. With `v`, a move "
            "decided on an older state of the hand is refused (`stale_version`)."
        ),
        request=s.ActIn,
        responses={
            200: s.ActOut,
            **STATE_ERRORS,
            **errors(
                bad=["bad_action"],
                conflict=["not_seated", "no_hand", "stale_version", *IllegalMove.MESSAGES],
            ),
        },
    )
    @idempotent
    def post(self, request: Request, table_id: int) -> Response:
        data = s.ActIn(data=request.data)
        data.is_valid(raise_exception=True)
        result = services.table_act(
            table_id=table_id,
            user=user_of(request),
            action=data.validated_data["action"],
            client_id=data.validated_data["id"],
            version=data.validated_data["v"],
        )
        return Response({**result, "state": caller_state(request, table_id)})


class BotView(APIView):
    @extend_schema(
        operation_id="tables_add_bot",
        summary="Seat a bot",
        description=(
            "The table's owner or a player seated there may ask; staff may too at a "
            "public table. At a private table anyone else, staff included, gets "
            "`private_table` (403). A player may hold their share of the bot pool at "
            "open tables (`BOT_SHARE_PER_USER_PERCENT` of `BOT_POOL_SIZE`, at most "
            "`MAX_BOT_SEATS_PER_USER`: `too_many_bots`), the players of one client address "
            "together `BOT_SHARE_PER_ADDRESS_PERCENT` (`too_many_bots_address`); bots come "
            "from a pool of at most `BOT_POOL_SIZE` accounts and borrow their chips from "
            "the house (`no_bot_available` when none is free or the house is short)."
        ),
        request=s.BotIn,
        responses={
            200: s.TableStateOut,
            **STATE_ERRORS,
            **errors(
                bad=["no_such_seat"],
                conflict=[
                    "table_closed",
                    "no_bot_seat",
                    "tournament_seat",
                    "seat_taken",
                    "table_full",
                    "too_many_bots",
                    "too_many_bots_address",
                    "no_bot_available",
                ],
            ),
        },
    )
    @idempotent
    def post(self, request: Request, table_id: int) -> Response:
        data = s.BotIn(data=request.data)
        data.is_valid(raise_exception=True)
        services.table_add_bot(
            table_id=table_id,
            user=user_of(request),
            position=data.validated_data["position"],
            address=client_ip(request._request),
        )
        return Response(caller_state(request, table_id))


class CloseView(APIView):
    @extend_schema(
        operation_id="tables_close",
        summary="Close your table",
        description=(
            "Only its owner may (anyone else: `not_table_owner`, or `private_table` at a "
            "private table they may not open). The same as a moderator's force-close: a hand in "
            "play is voided (chips move only when a hand is settled, so every balance is "
            "what it was before it), a finished hand is settled first, every seat is "
            "freed and Poker stacks go back to the wallets; every socket at the table "
            "gets the closed `state` with its `closed_reason`. Closing a closed table "
            "changes nothing and answers the same. Answers with your view of the table."
        ),
        request=None,
        responses={
            200: s.TableStateOut,
            **errors(
                401,
                403,
                404,
                429,
                forbidden=["private_table", "not_table_owner"],
                missing=["table_not_found"],
            ),
        },
    )
    def post(self, request: Request, table_id: int) -> Response:
        services.table_close_own(table_id=table_id, user=user_of(request))
        return Response(caller_state(request, table_id))


class InviteIn(StrictIn):
    username = serializers.CharField(max_length=150, help_text="The invited player's log-in name.")


class InviteOut(serializers.Serializer[dict[str, Any]]):
    created = serializers.BooleanField(
        help_text="Whether the invitation is new (false: they were invited already)."
    )


class InviteView(APIView):
    @extend_schema(
        operation_id="tables_invite",
        summary="Invite a player to this table",
        description=(
            "The table's owner, or a player seated there, invites another player by log-in "
            "name: the table is theirs to find (`me/tables`, `invited`) and open, even a "
            "private one, their lobby sockets hear of it, and their devices get an "
            '`invite` push if they want it (docs/protocol.md "Push"). Inviting again '
            "pushes again; at most `INVITE_RATE` invitations per player "
            "(`invite_rate_limited`, with `details.wait`). Not yourself, a bot or someone "
            "seated here (`cannot_invite_player`)."
        ),
        request=InviteIn,
        responses={
            200: InviteOut,
            **errors(
                400,
                401,
                403,
                404,
                409,
                429,
                503,
                bad=["cannot_invite_player"],
                forbidden=["cannot_invite", "private_table"],
                missing=["table_not_found", "player_not_found"],
                conflict=["table_closed"],
                throttle=["invite_rate_limited"],
            ),
        },
    )
    @idempotent
    def post(self, request: Request, table_id: int) -> Response:
        data = InviteIn(data=request.data)
        data.is_valid(raise_exception=True)
        created = services.invite_send(
            table_id=table_id, by=user_of(request), username=data.validated_data["username"]
        )
        return Response(InviteOut({"created": created}).data)


class MyTablesView(APIView):
    @extend_schema(
        operation_id="me_tables",
        summary="Your tables: where you sit, what you own, where you were invited",
        description=(
            "Every open table you sit at, own or were invited to (you opened the private "
            "table with its invite code once: its link, `?invite=` on the socket, or "
            "`invite` here), each the lobby's entry with why it is listed: `seat` (your "
            "seat: its position, whether you were dealt into the hand in play, whether you "
            "are leaving), `owned`, `invited`, and your own private table's "
            "`invite_code`. The tables you sit at first, then those you own, then the "
            "others, the newest first in each. What an app reads after a restart to find "
            "its game again."
        ),
        responses={200: s.MyTableOut(many=True), **errors(401)},
    )
    def get(self, request: Request) -> Response:
        # (each a ``selectors.MyTable``: the table and why it is listed)
        mine: Any = selectors.my_tables(user=user_of(request))
        return Response(s.MyTableOut(mine, many=True).data)


class BuyInView(APIView):
    @extend_schema(
        operation_id="tables_buy_in",
        summary="Poker: add chips to your stack",
        description="Between hands, up to the table's maximum buy-in.",
        request=s.BuyInIn,
        responses={
            200: s.TableStateOut,
            **STATE_ERRORS,
            **errors(
                bad=["bad_action", "bad_buy_in", "insufficient_chips"],
                conflict=["not_seated", "hand_in_progress"],
            ),
        },
    )
    @idempotent
    def post(self, request: Request, table_id: int) -> Response:
        data = s.BuyInIn(data=request.data)
        data.is_valid(raise_exception=True)
        services.table_buy_in(
            table_id=table_id, user=user_of(request), amount=data.validated_data["amount"]
        )
        return Response(caller_state(request, table_id))


# -- hands -------------------------------------------------------------------


class HandPages(Cursor):
    ordering = ("-hand__ended_at", "-hand_id")  # newest first (hand_history's order)
    position = staticmethod(datetime.fromisoformat)


class HandsView(generics.ListAPIView[HandPlayer]):
    queryset = HandPlayer.objects.none()  # for the schema; the rows are the caller's
    serializer_class = s.HandListOut
    filterset_class = HandFilter
    pagination_class = HandPages

    def get_queryset(self) -> QuerySet[HandPlayer]:
        return selectors.hand_history(user=user_of(self.request))

    @extend_schema(
        operation_id="hands_list",
        summary="My finished hands, newest first",
        description="Paginated by cursor: follow `next` (a `page` parameter is `invalid`).",
        responses={200: s.HandListOut(many=True), **errors(400, 401, 404)},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


VIEWER_RULE = (
    " Its players and staff may look at any finished hand; anyone else only at hands "
    "of public tables (`private_table` otherwise)."
)


class HandView(APIView):
    @extend_schema(
        operation_id="hands_detail",
        summary="A finished hand and its itemised result",
        description="Each player's net chips and every payment the rules made." + VIEWER_RULE,
        responses={
            200: s.HandDetailOut,
            **errors(401, 403, 404, forbidden=["private_table"], **HAND_CODES),
        },
    )
    def get(self, request: Request, hand_id: int) -> Response:
        detail = selectors.hand_detail(hand_id=hand_id, user=user_of(request))
        return Response(s.HandDetailOut(detail).data)


class ReplayView(APIView):
    @extend_schema(
        operation_id="hands_replay",
        summary="Replay a finished hand",
        description=(
            "The hand's events as you could see them at the table: your own cards "
            "always, others' only where the table showed them (a showdown, a Mậu Binh "
            "reveal, Tiến Lên's cards left at the end); never a folded or unshown hand. "
            "Non-players get the public events only. Staff get every event (private "
            "ones marked with `to`, the player index) and the `deck`. The fairness "
            "block lets anyone check the deal." + VIEWER_RULE
        ),
        responses={
            200: s.ReplayOut,
            **errors(401, 403, 404, forbidden=["private_table"], **HAND_CODES),
        },
    )
    def get(self, request: Request, hand_id: int) -> Response:
        return Response(selectors.hand_replay(hand_id=hand_id, user=user_of(request)))


class ReplayStepsView(APIView):
    @extend_schema(
        operation_id="hands_replay_steps",
        summary="A finished hand step by step, for a visual replay",
        description=(
            "The hand dealt again from its seeds and each recorded change (a move, a "
            "time-out, a player leaving) applied again through the rules: after the "
            "deal and after each change, the events you could see, the game's view as "
            "you saw it then (a spectator's if you did not play; nothing dealt or shown "
            "later), and whose move it was. The result comes with the last step. A hand "
            "whose record the rules do not replay exactly is refused (`replay_mismatch`)."
            + VIEWER_RULE
        ),
        responses={
            200: s.ReplayStepsOut,
            **errors(
                401,
                403,
                404,
                forbidden=["private_table"],
                missing=["hand_not_found"],
                conflict=["hand_not_finished", "replay_mismatch"],
            ),
        },
    )
    def get(self, request: Request, hand_id: int) -> Response:
        return Response(selectors.hand_steps(hand_id=hand_id, user=user_of(request)))


class PhhView(APIView):
    @extend_schema(
        operation_id="hands_phh",
        summary="A Poker hand you played, in PHH",
        description=(
            "The Poker Hand History format (phh-std, TOML). Players get their own hole "
            "cards and those shown at the showdown; every other hand (folded, or won "
            "without a showdown) is written `????`. Staff may fetch any hand, with "
            "every card (`complete`)."
        ),
        responses={
            200: s.PhhOut,
            **errors(
                401,
                403,
                404,
                forbidden=["private_table", "not_in_hand"],
                missing=["hand_not_found"],
                conflict=["hand_not_finished", "phh_unavailable"],
            ),
        },
    )
    def get(self, request: Request, hand_id: int) -> Response:
        return Response(selectors.hand_phh(hand_id=hand_id, user=user_of(request)))


# -- leaderboard, fairness ----------------------------------------------------


class LeaderboardView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="leaderboard",
        summary="Net chips won, per game, this week or all time",
        description=(
            "People only: bots and deactivated accounts are left out. The week starts "
            "on Monday 00:00 Asia/Ho_Chi_Minh. Voided hands do not count. Anyone may look."
        ),
        parameters=[s.LeaderboardQuery],
        responses={200: s.LeaderboardOut, **errors(400)},
        auth=[],
    )
    def get(self, request: Request) -> Response:
        query = s.LeaderboardQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        board = selectors.leaderboard(**query.validated_data)
        return Response(s.LeaderboardOut(board).data)


class PlayerView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="player",
        summary="A player's card: name, avatar, hands played, net chips this week",
        description=(
            "What a tap on a seat shows, for people and bots alike. Anyone may look, "
            "but only at a player they could meet: one with a settled hand (the "
            "leaderboard's rule) or seated at an open public table, themselves, or one "
            "seated at a table where they sit. Staff, deactivated accounts and everyone "
            "else are `player_not_found`, exactly as an id that does not exist. Never "
            "the log-in name. Voided hands do not count."
        ),
        responses={200: s.PlayerOut, **errors(404, missing=["player_not_found"])},
        auth=[],
    )
    def get(self, request: Request, user_id: int) -> Response:
        viewer = request.user if isinstance(request.user, User) else None
        card = selectors.player_profile(user_id=user_id, viewer=viewer)
        return Response(s.PlayerOut(card).data)


class FairnessView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="fairness_verify",
        summary="Check a deal: seed, hand id and client seeds to the deck",
        description=(
            "The deck the algorithm of docs/fairness.md deals, the seed's sha256, and "
            "whether it matches the `commitment` you give (shown before the hand). "
            "Anyone may use it; it reads nothing from the database."
        ),
        request=s.FairnessIn,
        responses={200: s.FairnessVerifyOut, **errors(400, 429)},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        data = s.FairnessIn(data=request.data)
        data.is_valid(raise_exception=True)
        body = selectors.fairness_check(
            server_seed=data.validated_data["server_seed"],
            hand_id=data.validated_data["hand_id"],
            client_seeds=data.validated_data["client_seeds"],
            commitment=data.validated_data.get("commitment"),
        )
        return Response(s.FairnessVerifyOut(body).data)


# -- reporting a chat line --------------------------------------------------------


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
                503,
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
    @idempotent
    def post(self, request: Request, message_id: int) -> Response:
        data = ReportIn(data=request.data)
        data.is_valid(raise_exception=True)
        user: User = request.user  # type: ignore[assignment]
        services.chat_report(
            user=user,
            message_id=message_id,
            category=data.validated_data["category"],
            note=data.validated_data["note"],
            invite_code=data.validated_data["invite"],
        )
        body = {"message_id": message_id, "category": data.validated_data["category"]}
        return Response(body, status=status.HTTP_201_CREATED)


def _rules_out(request: Request, book: rulebook.RulesBook) -> dict[str, Any]:
    if book.table is None:
        page = reverse("rules-preset", args=[book.game, book.preset])
    else:
        page = reverse("table-rules", args=[book.table.pk])
    url = request.build_absolute_uri(page)
    return {
        "game": book.game,
        "preset": book.preset,
        "preset_label": book.preset_label,
        "url": url,
        "numbers": book.numbers,
        "sections": [
            {"id": anchor, "title": str(title), "contract": source, "url": f"{url}#{anchor}"}
            for anchor, title, source in book.plugin.rules_sections
        ],
        "table": None
        if book.table is None
        else {
            "id": book.table.pk,
            "differences": [dataclasses.asdict(d) for d in book.differences],
            "numbers": book.table_numbers,
        },
    }


class RulesView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="rules",
        summary="A game's rules under one preset: every number, and the page's sections",
        description=(
            'What the rules page (`/rules/<game>/<preset>/`, "Luật chơi") says, for apps: '
            "every field of the preset's ruleset (docs/rules.md names them) and the page's "
            "sections of prose with their URLs. Anyone may read it. A game or preset there "
            "is not is `rules_not_found`."
        ),
        responses={200: s.RulesOut, **errors(404, missing=["rules_not_found"])},
        auth=[],
    )
    def get(self, request: Request, game: str, preset: str) -> Response:
        book = rulebook.rules_book(game=game, preset=preset)
        return Response(s.RulesOut(_rules_out(request, book)).data)


class TableRulesView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="tables_rules",
        summary="A table's rules: its preset's with its own options, those that differ listed",
        description=(
            "The rules a table plays (its page: `/tables/<id>/rules/`): `numbers` with its own "
            "options applied, and `table.differences` from its preset. A private table's are "
            "for those who may open it (`private_table` otherwise; its invite code opens it)."
        ),
        parameters=[INVITE],
        responses={
            200: s.RulesOut,
            **errors(403, 404, forbidden=["private_table"], missing=["table_not_found"]),
        },
        auth=[],
    )
    def get(self, request: Request, table_id: int) -> Response:
        user = user_of(request) if request.user.is_authenticated else None
        book = rulebook.table_rules_book(
            table_id=table_id, user=user, invite_code=str(request.query_params.get("invite", ""))
        )
        return Response(s.RulesOut(_rules_out(request, book)).data)
