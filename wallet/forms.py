from django import forms
from django.utils.translation import gettext_lazy as _


class AdjustBalanceForm(forms.Form):
    """Amount and reason only: the idempotency key is made on the server."""

    amount = forms.IntegerField(
        label=_("Amount"),
        help_text=_("Chips to add (positive) or remove (negative)."),
        min_value=-(10**12),
        max_value=10**12,
    )
    reason = forms.CharField(
        label=_("Reason"), max_length=1000, widget=forms.Textarea(attrs={"rows": 3})
    )

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
