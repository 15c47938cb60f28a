"""Tournaments API: the Sit & Gos by game and buy-in, a player's new one, one
tournament, register and unregister. Each view calls the services or reads the models; the money
is the services' (tournaments.services)."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Exists, OuterRef, Prefetch, Q, QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.permissions import AllowAny, IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import User
from kernel.api.idempotency import idempotent
from kernel.api.schema import errors
from tournaments import services
from tournaments.errors import TournamentNotFound
from tournaments.models import Entry, Tournament

from .filters import TournamentFilter
from .serializers import TournamentCreateIn, TournamentDetailOut, TournamentOut

TAKEN = Q(entries__status__in=services.IN)
OPEN = (Tournament.Status.REGISTERING, Tournament.Status.RUNNING)


def _listed() -> QuerySet[Tournament]:
    return Tournament.objects.annotate(
        registered=Count("entries", filter=TAKEN, distinct=True)
    ).prefetch_related("tables")


def _detail(request: Request, tournament_id: int) -> dict[str, Any]:
    entries = Entry.objects.select_related("player").order_by("registered_at", "pk")
    found = (
        _listed().prefetch_related(Prefetch("entries", queryset=entries)).filter(pk=tournament_id)
    ).first()
    if found is None:
        raise TournamentNotFound()
    user = request.user if request.user.is_authenticated else None
    return TournamentDetailOut(found, context={"user": user}).data


class TournamentsView(generics.ListAPIView[Tournament]):
    permission_classes = [IsAuthenticatedOrReadOnly]
    serializer_class = TournamentOut
    filterset_class = TournamentFilter

    def get_queryset(self) -> QuerySet[Tournament]:
        found = _listed().order_by("game", "buy_in", "id")
        if self.request.user.is_authenticated:
            held = Entry.objects.filter(
                tournament=OuterRef("pk"), player=self.request.user, status__in=services.IN
            )
            found = found.annotate(is_mine=Exists(held))
        if "status" not in self.request.query_params:
            found = found.filter(
                status__in=[Tournament.Status.REGISTERING, Tournament.Status.RUNNING]
            )
        return found

    @extend_schema(
        operation_id="tournaments_list",
        summary="The Sit & Gos: registering and running, by game and buy-in",
        description=(
            "Anyone may look. Without `status`: those open for registration and those "
            "running. Ordered by game, buy-in and id. `registered`: the places taken; "
            "a Sit & Go starts when `registered` reaches `seats`. `mine` (with your "
            "token): you hold a place in it."
        ),
        responses={200: TournamentOut(many=True), **errors(400, 404)},
        auth=[],
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        operation_id="tournaments_create",
        summary="Create a Sit & Go, and take its first place",
        description=(
            "A player's Sit & Go has no fee. You are registered in the same "
            "transaction: `buy_in` chips go from your wallet to its prize pool "
            "(`insufficient_chips` without them: nothing is created). A game without "
            "Sit & Gos, a table size it does not offer or a number out of range is "
            "`bad_tournament`, with the range in its message. One of yours may be registering at a "
            "time (`too_many_tournaments`). Answers with the tournament."
        ),
        request=TournamentCreateIn,
        responses={
            201: TournamentDetailOut,
            **errors(
                400,
                401,
                403,
                429,
                503,
                bad=["bad_tournament", "insufficient_chips"],
                forbidden=["account_banned"],
                conflict=["too_many_tournaments"],
            ),
        },
    )
    @idempotent
    def post(self, request: Request) -> Response:
        data = TournamentCreateIn(data=request.data)
        data.is_valid(raise_exception=True)
        user: User = request.user  # type: ignore[assignment]
        tournament = services.tournament_create_and_register(by=user, **data.validated_data)
        return Response(_detail(request, tournament.pk), status=status.HTTP_201_CREATED)


class TournamentView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="tournaments_detail",
        summary="One tournament: its levels, prizes and entries",
        responses={200: TournamentDetailOut, **errors(404, missing=["tournament_not_found"])},
        auth=[],
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        return Response(_detail(request, tournament_id))


class RegisterView(APIView):
    @extend_schema(
        operation_id="tournaments_register",
        summary="Take a place",
        description=(
            "`buy_in` + `fee` chips go from your wallet to the tournament's prize pool "
            "(`insufficient_chips` without them). The last place taken starts the Sit & "
            "Go. Answers with the tournament."
        ),
        request=None,
        responses={
            201: TournamentDetailOut,
            **errors(
                401,
                403,
                404,
                429,
                503,
                bad=["insufficient_chips"],
                forbidden=["account_banned"],
                missing=["tournament_not_found"],
                conflict=[
                    "already_registered",
                    "tournament_full",
                    "tournament_started",
                    "tournament_over",
                ],
            ),
        },
    )
    @idempotent
    def post(self, request: Request, tournament_id: int) -> Response:
        user: User = request.user  # type: ignore[assignment]
        services.tournament_register(tournament_id=tournament_id, user=user)
        return Response(_detail(request, tournament_id), status=status.HTTP_201_CREATED)


class UnregisterView(APIView):
    @extend_schema(
        operation_id="tournaments_unregister",
        summary="Give your place back before the start",
        description=(
            "Your buy-in and fee come back to your wallet, exactly. After the start: "
            "`tournament_started`. Answers with the tournament."
        ),
        request=None,
        responses={
            200: TournamentDetailOut,
            **errors(
                401,
                403,
                404,
                429,
                503,
                forbidden=["account_banned"],
                missing=["tournament_not_found"],
                conflict=["not_registered", "tournament_started", "tournament_over"],
            ),
        },
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        user: User = request.user  # type: ignore[assignment]
        services.tournament_unregister(tournament_id=tournament_id, user=user)
        return Response(_detail(request, tournament_id))
