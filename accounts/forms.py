from collections.abc import Callable

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from .models import User
from .names import NameRefused, display_name_check, username_check


class SignupForm(UserCreationForm):
    display_name = forms.CharField(
        label=_("Display name"),
        max_length=40,
        help_text=_("The name other players see at the table."),
    )
    email = forms.EmailField(
        label=_("E-mail address (optional)"),
        required=False,
        help_text=_(
            "Only to reset your password if you forget it. We mail you a link to confirm it."
        ),
    )
    field_order = ["username", "display_name", "email"]

    class Meta(UserCreationForm.Meta):  # type: ignore[name-defined]
        model = User
        fields = ("username", "display_name")

    def clean_username(self) -> str:
        username = super().clean_username()  # None: Django's own "taken" error is added
        return username and name_field(username_check, username=username)

    def clean_display_name(self) -> str:
        name = self.cleaned_data["display_name"].strip()
        if not name:
            raise forms.ValidationError(_("Enter a display name."))
        return name_field(display_name_check, name=name)


def name_field(check: Callable[..., str], **value: str) -> str:
    """A name rule's refusal as the form field's error (its code kept)."""
    try:
        return check(**value)
    except NameRefused as err:
        raise forms.ValidationError(err.message, code=err.code) from None


# Django 5.2 words the too-short password message with %d and its Vietnamese
# catalog has only the older wording: translated in ours (locale/vi).
PASSWORD_TOO_SHORT = ngettext_lazy(
    "This password is too short. It must contain at least %d character.",
    "This password is too short. It must contain at least %d characters.",
    "min_length",
)


class ResetRequestForm(forms.Form):
    login = forms.CharField(
        label=_("Your e-mail address or log-in name"),
        max_length=254,
        help_text=_("The address must be one you confirmed on your profile."),
    )


class EmailForm(forms.Form):
    """The profile's address form: empty removes the address."""

    email = forms.EmailField(
        label=_("E-mail address"),
        required=False,
        help_text=_("Leave it empty to remove your address (then no password reset)."),
    )
    password = forms.CharField(
        label=_("Your current password"),
        strip=False,
        max_length=128,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )
