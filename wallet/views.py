from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.models import User

from .errors import WalletError
from .selectors import bonus_claimed_today, ledger_for_user, user_account
from .services import daily_bonus_claim
from .templatetags.chips import chips


@login_required
def wallet_page(request: HttpRequest) -> HttpResponse:
    user: User = request.user  # type: ignore[assignment]
    page = Paginator(ledger_for_user(user), 20).get_page(request.GET.get("page"))
    return render(
        request,
        "wallet/wallet.html",
        {
            "account": user_account(user),
            "page": page,
            "bonus_claimed": bonus_claimed_today(user),
        },
    )


@login_required
@require_POST
def claim_bonus(request: HttpRequest) -> HttpResponse:
    user: User = request.user  # type: ignore[assignment]
    try:
        result = daily_bonus_claim(user=user)
    except WalletError as err:
        messages.error(request, err.message)
    else:
        amount = result.transaction.entries.filter(account__user=user).get().amount
        messages.success(
            request, _("Daily bonus claimed: +%(amount)s chips.") % {"amount": chips(amount)}
        )
    # The home page's welcome claims it too, and stays where it was.
    return redirect("home" if request.POST.get("back") == "home" else "wallet")
