from django.conf import settings
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_http_methods, require_POST

from kernel.errors import ServiceError
from kernel.net import client_ip

from .avatars import FACES
from .errors import DeviceSessionUnknown
from .forms import EmailForm, ResetRequestForm
from .limits import TooManyAttempts, too_many
from .models import BrowserSession, User
from .recovery import (
    email_set,
    email_verify,
    password_reset_request,
    verification_resend,
    verification_user,
)
from .services import avatar_set, logout_everywhere
from .sessions import browser_sessions_end, sessions_end, sessions_listed


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
            context = profile_context(request, user)
            return render(request, "accounts/profile.html", context, status=400)
        messages.success(request, _("Your avatar is saved."))
        return redirect("profile")
    return render(request, "accounts/profile.html", profile_context(request, user))


def profile_context(
    request: HttpRequest, user: User, email_form: EmailForm | None = None
) -> dict[str, object]:
    """The page's avatars, address form and sessions: the apps' and the
    browsers', ``this_browser`` the one showing the page."""
    form = email_form or EmailForm(initial={"email": user.email_pending or user.email})
    return {
        "faces": FACES,
        "devices": sessions_listed(user),
        "this_browser": request.session.session_key,
        "email_form": form,
    }


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
def browser_logout(request: HttpRequest, session_id: int) -> HttpResponse:
    """Log one of my browsers out (its session ends, its sockets close): this
    one too, then to the log-in page."""
    user: User = request.user  # type: ignore[assignment]
    this = request.session.session_key
    ended = BrowserSession.objects.filter(user=user, pk=session_id, session_id=this).exists()
    if not browser_sessions_end(user_id=user.pk, ids=[session_id]):
        messages.error(request, str(DeviceSessionUnknown().message))
    elif ended:
        logout(request)
        return redirect("login")
    else:
        messages.success(request, _("That browser is logged out."))
    return redirect("profile")


@login_required
@require_POST
def logout_all(request: HttpRequest) -> HttpResponse:
    """Log out every device and every browser, this one too."""
    logout_everywhere(request=request, user=request.user)  # type: ignore[arg-type]
    messages.success(request, _("You are logged out everywhere."))
    return redirect("login")


# -- e-mail address and password reset (accounts.recovery) ----------------------------


@sensitive_post_parameters("password")
@login_required
@require_POST
def email_change(request: HttpRequest) -> HttpResponse:
    """The profile's address form: checked with the current password, then
    pending until the link mailed to it is opened."""
    user: User = request.user  # type: ignore[assignment]
    form = EmailForm(request.POST)
    if form.is_valid():
        try:
            email_set(
                user=user,
                email=form.cleaned_data["email"],
                password=form.cleaned_data["password"],
                language=request.LANGUAGE_CODE,
            )
        except TooManyAttempts as err:
            return too_many(request, err.params["wait"])
        except ServiceError as err:
            form.add_error("password" if err.code == "wrong_password" else None, err.message)
        else:
            if user.email_pending:
                messages.success(
                    request,
                    _("We mailed a link to %(address)s: open it to confirm the address.")
                    % {"address": user.email_pending},
                )
            elif user.email:
                messages.success(request, _("Your e-mail address is saved."))
            else:
                messages.success(request, _("Your account has no e-mail address now."))
            return redirect("/accounts/profile/#email")
    context = profile_context(request, user, email_form=form)
    return render(request, "accounts/profile.html", context, status=400)


@login_required
@require_POST
def email_resend(request: HttpRequest) -> HttpResponse:
    user: User = request.user  # type: ignore[assignment]
    try:
        verification_resend(user=user, language=request.LANGUAGE_CODE)
    except TooManyAttempts as err:
        return too_many(request, err.params["wait"])
    except ServiceError as err:
        messages.error(request, err.message)
    else:
        messages.success(
            request,
            _("We mailed a link to %(address)s: open it to confirm the address.")
            % {"address": user.email_pending},
        )
    return redirect("/accounts/profile/#email")


@never_cache
@require_http_methods(["GET", "POST"])
def email_verify_page(request: HttpRequest, token: str) -> HttpResponse:
    """The link of a verification mail: the address and a button (a mail
    scanner that opens the link verifies nothing); the button verifies it."""
    try:
        if request.method == "POST":
            user = email_verify(token)
            return render(request, "accounts/email_verified.html", {"address": user.email})
        user = verification_user(token)
    except ServiceError as err:
        context = {"error": err.message}
        return render(request, "accounts/email_verify.html", context, status=err.status)
    return render(request, "accounts/email_verify.html", {"address": user.email_pending})


@require_http_methods(["GET", "POST"])
def password_reset(request: HttpRequest) -> HttpResponse:
    """Forgot the password: one field (the address or the log-in name); the
    same page follows whether or not an account has it."""
    form = ResetRequestForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        login = form.cleaned_data["login"]
        try:
            password_reset_request(
                email=login,
                username=login,
                address=client_ip(request),
                language=request.LANGUAGE_CODE,
            )
        except TooManyAttempts as err:
            return too_many(request, err.params["wait"])
        return redirect("password_reset_sent")
    return render(request, "registration/password_reset_form.html", {"form": form})


def password_reset_sent(request: HttpRequest) -> HttpResponse:
    context = {"reset_minutes": settings.PASSWORD_RESET_MINUTES}
    return render(request, "registration/password_reset_sent.html", context)
