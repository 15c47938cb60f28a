import uuid

from django import forms
from django.utils.translation import gettext_lazy as _


class AdjustBalanceForm(forms.Form):
    amount = forms.IntegerField(
        label=_("Amount"),
        help_text=_("Chips to add (positive) or remove (negative)."),
    )
    reason = forms.CharField(label=_("Reason"), widget=forms.Textarea(attrs={"rows": 3}))
    key = forms.CharField(widget=forms.HiddenInput, initial=lambda: f"adjust:{uuid.uuid4()}")

    def clean_amount(self) -> int:
        amount = self.cleaned_data["amount"]
        if amount == 0:
            raise forms.ValidationError(_("The amount cannot be zero."))
        return int(amount)

    def clean_reason(self) -> str:
        reason = self.cleaned_data["reason"].strip()
        if not reason:
            raise forms.ValidationError(_("Give a reason for this change."))
        return str(reason)
