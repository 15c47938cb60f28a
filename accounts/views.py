from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from kernel.errors import ServiceError

from .avatars import FACES
from .errors import DeviceSessionUnknown
from .models import User
from .services import avatar_set, logout_everywhere
from .sessions import sessions_end, sessions_of


@login_required
@require_http_methods(["GET", "POST"])
def profile(request: HttpRequest) -> HttpResponse:
    """My profile: the avatar I pick among ``FACES``, and my devices."""
    user: User = request.user  # type: ignore[assignment]
    if request.method == "POST":
        try:
            avatar_set(user=user, avatar=request.POST.get("avatar"))
        except ServiceError as err:
            messages.error(request, err.message)
            return render(request, "accounts/profile.html", profile_context(user), status=400)
        messages.success(request, _("Your avatar is saved."))
        return redirect("profile")
    return render(request, "accounts/profile.html", profile_context(user))


def profile_context(user: User) -> dict[str, object]:
    return {"faces": FACES, "devices": sessions_of(user)}


@login_required
@require_POST
def device_logout(request: HttpRequest, session_id: int) -> HttpResponse:
    """Log one of my devices out (its tokens stop, its sockets close)."""
    user: User = request.user  # type: ignore[assignment]
    if sessions_end(user_id=user.pk, ids=[session_id]):
        messages.success(request, _("That device is logged out."))
    else:
        messages.error(request, str(DeviceSessionUnknown().message))
    return redirect("profile")


@login_required
@require_POST
def logout_all(request: HttpRequest) -> HttpResponse:
    """Log out every device and every browser, this one too."""
    logout_everywhere(request=request, user=request.user)  # type: ignore[arg-type]
    messages.success(request, _("You are logged out everywhere."))
    return redirect("login")
