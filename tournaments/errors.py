"""Tournament refusals: a stable code and a message in the player's language."""

from django.utils.translation import gettext_lazy as _

from kernel.errors import ServiceError


class TournamentError(ServiceError):
    code = "tournament_error"


class TournamentNotFound(TournamentError):
    code = "tournament_not_found"
    template = _("That tournament does not exist.")
    status = 404


class BadTournament(TournamentError):
    """A tournament the game does not offer (its table sizes, its levels) or
    whose numbers are out of range."""

    code = "bad_tournament"
    template = _("This game has no such tournament: %(why)s")


class TournamentFull(TournamentError):
    code = "tournament_full"
    template = _("This tournament is full.")
    status = 409


class AlreadyRegistered(TournamentError):
    code = "already_registered"
    template = _("You are already registered for this tournament.")
    status = 409


class NotRegistered(TournamentError):
    code = "not_registered"
    template = _("You are not registered for this tournament.")
    status = 409


class TournamentStarted(TournamentError):
    """Registering or unregistering after the start."""

    code = "tournament_started"
    template = _("This tournament has already started.")
    status = 409


class TournamentOver(TournamentError):
    """Finished or cancelled: nothing more can happen to it."""

    code = "tournament_over"
    template = _("This tournament is over.")
    status = 409


class TournamentSeat(TournamentError):
    """Sitting down at, or leaving, a tournament's table: its seats are its
    players', who stay until they are out (away, they are played for)."""

    code = "tournament_seat"
    template = _(
        "This is a tournament's table: nobody sits down or leaves. While you are "
        "away, your turns are played for you when your clock runs out."
    )
    status = 409


class TournamentRunning(TournamentError):
    """Closing a running tournament's table (a moderator cancels the
    tournament instead: every entry is refunded and its tables close)."""

    code = "tournament_running"
    template = _("This table's tournament is running: cancel the tournament to close it.")
    status = 409


class NotPlaying(TournamentError):
    """A result for a player who is not (or no longer) playing in it."""

    code = "not_playing"
    template = _("That player is not playing in this tournament.")
    status = 409


class TooManyTournaments(TournamentError):
    """A player creates one Sit & Go at a time: theirs still registering
    must start (or be cancelled) before they create another."""

    code = "too_many_tournaments"
    template = _("You already have a Sit & Go waiting for players: it must start first.")
    status = 409
