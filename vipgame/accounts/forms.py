from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from .models import User


class SignupForm(UserCreationForm):
    display_name = forms.CharField(
        label=_("Display name"),
        max_length=40,
        help_text=_("The name other players see at the table."),
    )

    class Meta(UserCreationForm.Meta):  # type: ignore[name-defined]
        model = User
        fields = ("username", "display_name")

    def clean_display_name(self) -> str:
        name = self.cleaned_data["display_name"].strip()
        if not name:
            raise forms.ValidationError(_("Enter a display name."))
        return str(name)


# Django 5.2 words the too-short password message with %d and its Vietnamese
# catalog has only the older wording: translated in ours (locale/vi).
PASSWORD_TOO_SHORT = ngettext_lazy(
    "This password is too short. It must contain at least %d character.",
    "This password is too short. It must contain at least %d characters.",
    "min_length",
)
