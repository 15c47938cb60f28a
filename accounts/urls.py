from django.contrib.auth import views as auth_views
from django.urls import path

from . import views
from .limits import SlotPasswordChangeForm

urlpatterns = [
    path("profile/", views.profile, name="profile"),
    path("devices/<int:session_id>/logout/", views.device_logout, name="device_logout"),
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
]
