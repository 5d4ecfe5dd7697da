"""The login page: Django's, with the single sign-on button when OpenID Connect is on."""

from __future__ import annotations

from django.contrib.auth import views as auth

from otterweb.accounts import oidc


class LoginView(auth.LoginView):
    def get_context_data(self, **kwargs):
        return {**super().get_context_data(**kwargs), "single_sign_on": oidc.sign_in_option()}
