from django.contrib.auth import views as auth_views
from django.urls import path, reverse_lazy

from . import views
from .limits import SlotPasswordChangeForm

urlpatterns = [
    path("profile/", views.profile, name="profile"),
    path("devices/<int:session_id>/logout/", views.device_logout, name="device_logout"),
    path("browsers/<int:session_id>/logout/", views.browser_logout, name="browser_logout"),
    path("devices/logout-all/", views.logout_all, name="logout_all"),
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "password/",
        auth_views.PasswordChangeView.as_view(
            success_url="/accounts/password/done/", form_class=SlotPasswordChangeForm
        ),
        name="password_change",
    ),
    path(
        "password/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    # Account recovery (accounts.recovery): the address, and the reset by mail.
    path("email/", views.email_change, name="email_change"),
    path("email/resend/", views.email_resend, name="email_resend"),
    path("email/verify/<str:token>/", views.email_verify_page, name="email_verify"),
    path("password/reset/", views.password_reset, name="password_reset"),
    path("password/reset/sent/", views.password_reset_sent, name="password_reset_sent"),
    # Django's own: the link's token checked, kept in the session and taken out of
    # the address (no Referer carries it), the new password through the validators.
    path(
        "reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(
            success_url=reverse_lazy("password_reset_complete")
        ),
        name="password_reset_confirm",
    ),
    path(
        "reset/done/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
]
