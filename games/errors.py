"""Table refusals with stable codes and messages in the player's language.

Engine refusals (``RulesError``) keep their code; their message is looked up
here so that players read it in Vietnamese or English.
"""

from datetime import datetime
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.protocol import SUPPORTED, VERSION
from games.rules.errors import RulesError
from kernel.errors import ServiceError


class GameError(ServiceError):
    code = "game_error"


def _error(
    name: str, code: str, template: Any, status: int = 400, chip_params: tuple[str, ...] = ()
) -> type[GameError]:
    attrs = {"code": code, "template": template, "status": status, "chip_params": chip_params}
    return type(name, (GameError,), attrs)


TableNotFound = _error("TableNotFound", "table_not_found", _("That table does not exist."), 404)
RulesNotFound = _error(
    "RulesNotFound",
    "rules_not_found",
    _("There are no such rules: check the game and preset."),
    404,
)
TableClosed = _error("TableClosed", "table_closed", _("This table is closed."), 409)
SeatTaken = _error("SeatTaken", "seat_taken", _("That seat is taken."), 409)
NoSuchSeat = _error("NoSuchSeat", "no_such_seat", _("That seat does not exist."))
TableFull = _error("TableFull", "table_full", _("The table is full."), 409)
AlreadySeated = _error("AlreadySeated", "already_seated", _("You are already at this table."), 409)
# The account was deactivated (banned): the database says so on every action,
# even on a socket whose ban message was lost (it is then closed).
AccountInactive = _error(
    "AccountInactive", "account_banned", _("Your account is no longer active."), 403
)
NotSeated = _error("NotSeated", "not_seated", _("You are not seated at this table."), 409)
NotEnoughChips = _error(
    "NotEnoughChips",
    "not_enough_chips",
    _("You need at least %(needed)s chips to sit at this table."),
    409,
    chip_params=("needed",),
)
BadBuyIn = _error(
    "BadBuyIn",
    "bad_buy_in",
    _("Buy in between %(low)s and %(high)s chips."),
    400,
    chip_params=("low", "high"),
)
NoHand = _error("NoHand", "no_hand", _("No hand is being played."), 409)
StaleVersion = _error(
    "StaleVersion",
    "stale_version",
    _("The table changed before your move arrived. Look again and retry."),
    409,
)
BadAction = _error("BadAction", "bad_action", _("That action is not understood."))
BadTableSettings = _error("BadTableSettings", "bad_table_settings", _("%(problem)s"))
PrivateTable = _error(
    "PrivateTable", "private_table", _("This table is private: you need its invite link."), 403
)
NotTableOwner = _error(
    "NotTableOwner", "not_table_owner", _("Only the table's owner can do that."), 403
)
BadChat = _error("BadChat", "bad_chat", _("A chat message has 1 to 200 characters."))
HandInProgress = _error(
    "HandInProgress", "hand_in_progress", _("Wait for the current hand to end."), 409
)
BadLeave = _error("BadLeave", "bad_leave", _("Leave either now or after this hand."))
BadSwitch = _error("BadSwitch", "bad_switch", _("A switch is on (true) or off (false)."))
AlreadyLeft = _error(
    "AlreadyLeft",
    "already_left",
    _("You already left this hand: your seat frees when it is settled."),
    409,
)
NoBotSeat = _error("NoBotSeat", "no_bot_seat", _("There is no free seat for a bot."), 409)
BadClientSeed = _error(
    "BadClientSeed",
    "bad_client_seed",
    _("A seed is 1 to 64 characters of text."),
)
SeedReused = _error(
    "SeedReused",
    "seed_reused",
    _("You already used that seed in an earlier hand: send a new one."),
    409,
)
TooManyTables = _error(
    "TooManyTables",
    "too_many_tables",
    _("You already have %(limit)s open tables: close one or play at it first."),
    409,
)
TooManyBots = _error(
    "TooManyBots",
    "too_many_bots",
    _("You already have %(limit)s bots playing at your tables: no more for now."),
    409,
)
TooManyBotsAddress = _error(
    "TooManyBotsAddress",
    "too_many_bots_address",
    _("Players at your address already have %(limit)s bots playing: no more for now."),
    409,
)
NoBotAvailable = _error(
    "NoBotAvailable", "no_bot_available", _("No bot is free to play right now: try later."), 409
)


class IllegalMove(GameError):
    """A move the rules engine refused; keeps the engine's code when it is one of
    ``MESSAGES`` (``illegal_move`` otherwise)."""

    status = 409
    MESSAGES: dict[str, Any] = {
        "not_your_turn": _("It is not your turn."),
        "illegal_move": _("That move is not allowed now."),
        "hand_finished": _("This hand is over."),
        "bad_action": _("That action is not understood."),
        "unknown_card": _("Unknown card."),
        "duplicate_card": _("A card appears twice."),
        "wrong_card_count": _("Wrong number of cards."),
        "bad_cards": _("Choose cards from your hand."),
        "bad_arrangement": _("Put 5 cards in chi 1, 5 in chi 2 and 3 in chi 3."),
    }

    def __init__(self, err: RulesError) -> None:
        # One of the codes above (the API's enum for a move); any other refusal of
        # the rules is ``illegal_move``, the rules' words in ``details.rule``.
        self.code = err.code if err.code in self.MESSAGES else "illegal_move"
        self.rules_message = err.message
        self.details = {k: v for k, v in err.extra.items() if isinstance(v, int | str | bool)}
        super().__init__(self.MESSAGES.get(err.code, _("That move is not allowed now.")))

    def as_dict(self) -> dict[str, Any]:
        return {**super().as_dict(), "details": {"rule": self.rules_message, **self.details}}


class ChatMuted(GameError):
    """A moderator muted the player: until when and why."""

    code = "chat_muted"
    status = 403
    template = _("You are muted in chat until %(until)s. Reason: %(reason)s")

    def __init__(self, *, until: datetime, reason: str) -> None:
        self.until, self.reason = until, reason
        super().__init__(until=timezone.localtime(until).strftime("%H:%M %d/%m/%Y"), reason=reason)

    @property
    def details(self) -> dict[str, Any]:
        return {"until": int(self.until.timestamp() * 1000), "reason": self.reason}

    def as_dict(self) -> dict[str, Any]:
        return {**super().as_dict(), "details": self.details}


PlayerNotFound = _error("PlayerNotFound", "player_not_found", _("That player does not exist."), 404)
HandNotFound = _error("HandNotFound", "hand_not_found", _("That hand does not exist."), 404)
HandNotFinished = _error(
    "HandNotFinished", "hand_not_finished", _("This hand is still being played."), 409
)
NotInHand = _error(
    "NotInHand", "not_in_hand", _("Only the players of this hand can have its history."), 403
)
HandNotReplayable = _error(
    "HandNotReplayable",
    "replay_mismatch",
    _(
        "This hand cannot be shown step by step: replaying its record through the "
        "rules does not give the same hand."
    ),
    409,
)
PhhUnavailable = _error(
    "PhhUnavailable",
    "phh_unavailable",
    _("PHH hand histories exist for finished Poker hands only."),
    409,
)


class StaleCommitment(GameError):
    """A seed sent for a commitment that is not the table's next one (an older
    hand's, or none): refused; ``details.commitment`` is the one to answer."""

    code = "stale_commitment"
    status = 409
    template = _(
        "That seed answers a commitment that is not the next hand's: "
        "send a new seed for commitment %(commitment)s."
    )

    def __init__(self, *, commitment: str) -> None:
        self.commitment = commitment
        super().__init__(commitment=commitment)

    def as_dict(self) -> dict[str, Any]:
        return {**super().as_dict(), "details": {"commitment": self.commitment}}


# -- reporting a chat line (the moderators' queue reads the reports) --


class BadReport(GameError):
    code = "bad_report"
    template = _(
        "Say why you report this line (%(categories)s) and keep the note under 200 characters."
    )


class ChatLineNotFound(GameError):
    code = "chat_line_not_found"
    template = _("That chat line does not exist.")
    status = 404


class ChatLineTooOld(GameError):
    code = "chat_line_too_old"
    template = _("Lines older than %(hours)s hours can no longer be reported.")
    status = 409


class CannotReportOwn(GameError):
    code = "cannot_report_own"
    template = _("You cannot report your own line.")
    status = 409


class CannotReportBot(GameError):
    code = "cannot_report_bot"
    template = _("Bots' lines are the room's own: they cannot be reported.")
    status = 409


class AlreadyReported(GameError):
    code = "already_reported"
    template = _("You have already reported this line: a moderator will look at it.")
    status = 409


class TooFast(GameError):
    """A limit on how often: ``details.wait`` says in how many seconds again."""

    status = 429

    def __init__(self, *, wait: int) -> None:
        self.wait = wait
        super().__init__(wait=wait)

    def as_dict(self) -> dict[str, Any]:
        return {**super().as_dict(), "details": {"wait": self.wait}}


class ReportTooFast(TooFast):
    code = "report_rate_limited"
    template = _("You are reporting too fast: wait %(wait)s seconds.")


CannotInvite = _error(
    "CannotInvite",
    "cannot_invite",
    _("Only the table's owner or a player seated there may invite someone to it."),
    403,
)
CannotInviteThem = _error(
    "CannotInviteThem",
    "cannot_invite_player",
    _("That player cannot be invited: not yourself, a bot, or someone already seated here."),
    400,
)


class InviteTooFast(TooFast):
    code = "invite_rate_limited"
    template = _("You are sending invitations too fast: wait %(wait)s seconds.")


class UnsupportedProtocol(GameError):
    """The socket's ``?protocol=`` is a version the server does not speak
    (closed with 4426 after it: games.consumers)."""

    code = "unsupported_protocol"
    template = _(
        "This version of the app is not supported any more (protocol %(supported)s): "
        "please update it."
    )
    status = 400

    def as_dict(self) -> dict[str, Any]:
        details = {"supported": list(SUPPORTED), "current": VERSION}
        return {**super().as_dict(), "details": details}
