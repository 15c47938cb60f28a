from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from vipgame.errors import ServiceError

from .avatars import FACES
from .forms import SignupForm
from .limits import TooManyAttempts, signup_take, too_many
from .models import User
from .services import avatar_set, user_register


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    form = SignupForm(request.POST or None)
    next_url = _next_url(request)
    if request.method == "POST" and form.is_valid():
        try:
            signup_take(request)
        except TooManyAttempts as err:
            return too_many(request, err.params["wait"])
        user = user_register(
            username=form.cleaned_data["username"],
            display_name=form.cleaned_data["display_name"],
            password=form.cleaned_data["password1"],
        )
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect(next_url or "home")
    return render(request, "registration/signup.html", {"form": form, "next": next_url})


def _next_url(request: HttpRequest) -> str:
    """Where to go after signing up: ``next`` when it is a page of this site."""
    wanted = request.POST.get("next") or request.GET.get("next") or ""
    safe = url_has_allowed_host_and_scheme(
        wanted, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return wanted if safe else ""


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
