from __future__ import annotations

from typing import Any


class RulesError(ValueError):
    """A refused input: a stable ``code`` and an English ``message``.

    ``extra`` carries machine-readable details (for example the index of an
    illegal action); the service layer translates ``code`` for the player.
    """

    def __init__(self, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra = extra

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, **self.extra}
