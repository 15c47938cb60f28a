from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from kernel.errors import ServiceError

from .avatars import FACES
from .models import User
from .services import avatar_set


@login_required
@require_http_methods(["GET", "POST"])
def profile(request: HttpRequest) -> HttpResponse:
    """My profile: the avatar I pick among ``FACES``."""
    user: User = request.user  # type: ignore[assignment]
    if request.method == "POST":
        try:
            avatar_set(user=user, avatar=request.POST.get("avatar"))
        except ServiceError as err:
            messages.error(request, err.message)
            return render(request, "accounts/profile.html", {"faces": FACES}, status=400)
        messages.success(request, _("Your avatar is saved."))
        return redirect("profile")
    return render(request, "accounts/profile.html", {"faces": FACES})
