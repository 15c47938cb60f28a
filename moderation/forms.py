from typing import Any

from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _

from .selectors import Thresholds
from .services import MAX_MUTE_MINUTES


class ReasonForm(forms.Form):
    reason = forms.CharField(
        label=_("Reason"),
        max_length=200,
        error_messages={"required": _("Give a reason for this action.")},
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text=_("Kept in the audit log, and shown to the players concerned."),
    )

    def clean_reason(self) -> str:
        reason = str(self.cleaned_data["reason"]).strip()
        if not reason:
            raise forms.ValidationError(_("Give a reason for this action."))
        return reason


class MuteForm(ReasonForm):
    minutes = forms.IntegerField(
        label=_("Minutes"), min_value=1, max_value=MAX_MUTE_MINUTES, initial=60
    )


class IntegrityForm(forms.Form):
    days = forms.IntegerField(label=_("Days"), min_value=1, max_value=3650, required=False)
    min_hands = forms.IntegerField(
        label=_("Hands together at least"), min_value=1, max_value=1_000_000, required=False
    )
    min_chips = forms.IntegerField(
        label=_("Net chips one way at least"), min_value=0, max_value=10**15, required=False
    )
    min_share = forms.IntegerField(
        label=_("One-way share at least (%)"), min_value=0, max_value=100, required=False
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """The page opens with the defaults (settings) in the fields; an
        emptied field falls back to its default."""
        kwargs.setdefault("initial", self.defaults())
        super().__init__(*args, **kwargs)

    @staticmethod
    def defaults() -> dict[str, int]:
        return {
            "days": settings.INTEGRITY_DAYS,
            "min_hands": settings.INTEGRITY_MIN_HANDS,
            "min_chips": settings.INTEGRITY_MIN_CHIPS,
            "min_share": settings.INTEGRITY_MIN_SHARE_PERCENT,
        }

    def thresholds(self) -> Thresholds:
        data = self.cleaned_data if self.is_valid() else {}

        defaults = self.defaults()

        def pick(name: str) -> int:
            value = data.get(name)
            return defaults[name] if value is None else int(value)

        return Thresholds(
            days=pick("days"),
            min_hands=pick("min_hands"),
            min_chips=pick("min_chips"),
            min_share=pick("min_share") / 100,
        )
