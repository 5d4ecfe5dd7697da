from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth
from django.urls import include, path

from otterweb import views
from otterweb.accounts import oidc
from otterweb.accounts import views as accounts_views

# Signing in and out and changing one's password. No password reset by e-mail: OtterWeb sends
# no mail; an administrator sets a forgotten password (admin, or `manage.py changepassword`).
accounts = [
    path("login/", accounts_views.LoginView.as_view(), name="login"),
    path("logout/", auth.LogoutView.as_view(), name="logout"),
    path("password_change/", auth.PasswordChangeView.as_view(), name="password_change"),
    path(
        "password_change/done/",
        auth.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
]

if settings.OTTERWEB_OIDC_ISSUER:  # OpenID Connect single sign-on (docs/logins.md)
    accounts += [
        path("oidc/authenticate/", oidc.SignInView.as_view(), name="oidc_authentication_init"),
        path("oidc/callback/", oidc.CallbackView.as_view(), name="oidc_authentication_callback"),
    ]

urlpatterns = [
    path("", views.HomeView.as_view(), name="home"),
    path("", include("otterweb.executions.urls")),
    path("", include("otterweb.execution_logs.urls")),
    path("", include("otterweb.rafts.urls")),
    path("", include("otterweb.inventory.urls")),
    path("", include("otterweb.configuration.urls")),
    path("", include("otterweb.schedules.urls")),
    path("", include("otterweb.privileges.urls")),
    path("", include("otterweb.audit.urls")),
    path("", include("otterweb.retention.urls")),
    path("", include("otterweb.accounts.page_urls")),
    path("api/auth/", include("otterweb.accounts.urls")),
    path("api/", include("otterweb.api.urls")),
    path("accounts/", include(accounts)),
    # browsers ask for it on pages that are not HTML (JSON, a download)
    path("favicon.ico", views.favicon),
    path("admin/", admin.site.urls),
]

handler400 = "otterweb.views.bad_request"
handler403 = "otterweb.views.permission_denied"
handler404 = "otterweb.views.page_not_found"
handler500 = "otterweb.views.server_error"
