"""OpenID Connect single sign-on (mozilla-django-oidc), on when OTTERWEB_OIDC_ISSUER is set
(otterweb.accounts.directory_settings reads the rest; docs/logins.md).

The login page offers "Sign in with <provider>": the authorization code flow with PKCE, a state
and a nonce. The provider's endpoints come from its discovery document unless set one by one. The
ID token's signature (the provider's JWKS), issuer, audience and expiry are checked; the user's
claims come from the userinfo endpoint. The username is the OTTERWEB_OIDC_USERNAME_CLAIM claim
(preferred_username); the first login makes the account, every login refreshes its name, e-mail,
staff and superuser flags, and the Django groups that OTTERWEB_OIDC_GROUPS maps the groups claim's
values to (otterweb.accounts.groups).

As with LDAP, a local account with a password of its own is never taken over by a provider's user
of the same name: that login fails and is logged."""

from __future__ import annotations

import logging
import threading
from typing import Any

import requests
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.exceptions import SuspiciousOperation, ValidationError
from django.http import Http404, HttpResponseRedirect
from django.urls import reverse
from django.views import View
from mozilla_django_oidc.auth import OIDCAuthenticationBackend
from mozilla_django_oidc.views import (
    OIDCAuthenticationCallbackView,
    OIDCAuthenticationRequestView,
)

from otterweb.accounts.groups import sync_groups

logger = logging.getLogger(__name__)

# mozilla-django-oidc's setting -> the discovery document's key
ENDPOINTS = {
    "OIDC_OP_AUTHORIZATION_ENDPOINT": "authorization_endpoint",
    "OIDC_OP_TOKEN_ENDPOINT": "token_endpoint",
    "OIDC_OP_USER_ENDPOINT": "userinfo_endpoint",
    "OIDC_OP_JWKS_ENDPOINT": "jwks_uri",
}


class ProviderUnavailable(Exception):
    """The provider's discovery document could not be had, or does not describe the issuer."""


_discovered: dict[str, dict] = {}
_discovered_lock = threading.Lock()


def enabled() -> bool:
    return bool(settings.OTTERWEB_OIDC_ISSUER)


def oidc_setting(name: str) -> Any:
    """A setting that directory_settings.oidc_settings makes, only while single sign-on is on
    (so the settings module does not declare it)."""
    return getattr(settings, name)


def discovery(issuer: str) -> dict:
    """The provider's discovery document, fetched once per process (again after a failure)."""
    with _discovered_lock:
        if issuer in _discovered:
            return _discovered[issuer]
    url = f"{issuer}/.well-known/openid-configuration"
    try:
        response = requests.get(
            url, timeout=oidc_setting("OIDC_TIMEOUT"), verify=oidc_setting("OIDC_VERIFY_SSL")
        )
        response.raise_for_status()
        document = response.json()
    except (requests.RequestException, ValueError) as error:
        raise ProviderUnavailable(f"{url}: {error}") from error
    if not isinstance(document, dict) or str(document.get("issuer", "")).rstrip("/") != issuer:
        found = document.get("issuer") if isinstance(document, dict) else None
        raise ProviderUnavailable(f"{url} describes the issuer {found!r}, not {issuer!r}")
    with _discovered_lock:
        _discovered[issuer] = document
    return document


def endpoint(name: str) -> str:
    """One of the provider's endpoints (a key of ENDPOINTS): as set, or discovered."""
    value = getattr(settings, name, "")
    if value:
        return value
    found = discovery(settings.OTTERWEB_OIDC_ISSUER).get(ENDPOINTS[name])
    if not found:
        raise ProviderUnavailable(f"the provider's discovery document has no {ENDPOINTS[name]}")
    return found


def sign_in_option() -> dict | None:
    """What the login page shows for single sign-on: the provider's name and the address that
    starts it; None when it is off."""
    if not enabled():
        return None
    return {
        "name": oidc_setting("OTTERWEB_OIDC_PROVIDER_NAME"),
        "url": reverse("oidc_authentication_init"),
    }


def _failed(request, reason: str) -> HttpResponseRedirect:
    messages.error(
        request, f"Signing in with {oidc_setting('OTTERWEB_OIDC_PROVIDER_NAME')} failed: {reason}"
    )
    return HttpResponseRedirect(reverse("login"))


class SignInView(OIDCAuthenticationRequestView):
    """Sends the browser to the provider's authorization endpoint."""

    def __init__(self, **kwargs) -> None:
        View.__init__(self, **kwargs)  # the endpoint is looked up on a request, not before

    def get(self, request):
        if not enabled():
            raise Http404("single sign-on is off")
        try:
            self.OIDC_OP_AUTH_ENDPOINT = endpoint("OIDC_OP_AUTHORIZATION_ENDPOINT")
        except ProviderUnavailable as error:
            logger.warning("OIDC sign-in not started: %s", error)
            return _failed(request, "the provider could not be reached. Try again later.")
        self.OIDC_RP_CLIENT_ID = oidc_setting("OIDC_RP_CLIENT_ID")
        return super().get(request)


class CallbackView(OIDCAuthenticationCallbackView):
    """Where the provider sends the browser back: signs in, or back to the login page with a
    message."""

    def get(self, request):
        if not enabled():
            raise Http404("single sign-on is off")
        return super().get(request)

    def login_failure(self):
        if self.request.GET.get("error"):
            logger.info(
                "OIDC sign-in ended by the provider: %s", self.request.GET.get("error")[:100]
            )
        return _failed(self.request, "you are not signed in. Try again, or log in here.")


class SingleSignOnBackend(OIDCAuthenticationBackend):
    def __init__(self, *args, **kwargs) -> None:
        # Django makes a backend for every login and every request of a signed-in user: the
        # provider's endpoints are looked up only when a sign-in comes back (authenticate).
        self.UserModel = get_user_model()

    def authenticate(self, request, **kwargs):
        # only the callback (CallbackView) passes a nonce: a password login is not for us
        if not enabled() or request is None or not kwargs.get("nonce"):
            return None
        try:
            self.OIDC_OP_TOKEN_ENDPOINT = endpoint("OIDC_OP_TOKEN_ENDPOINT")
            self.OIDC_OP_USER_ENDPOINT = endpoint("OIDC_OP_USER_ENDPOINT")
            self.OIDC_OP_JWKS_ENDPOINT = endpoint("OIDC_OP_JWKS_ENDPOINT")
        except ProviderUnavailable as error:
            logger.warning("OIDC sign-in failed: %s", error)
            return None
        self.OIDC_RP_CLIENT_ID = oidc_setting("OIDC_RP_CLIENT_ID")
        self.OIDC_RP_CLIENT_SECRET = oidc_setting("OIDC_RP_CLIENT_SECRET")
        self.OIDC_RP_SIGN_ALGO = oidc_setting("OIDC_RP_SIGN_ALGO")
        self.OIDC_RP_IDP_SIGN_KEY = None
        try:
            return super().authenticate(request, **kwargs)
        except (requests.RequestException, SuspiciousOperation) as error:
            logger.warning("OIDC sign-in failed: %s", error)
            return None

    def verify_token(self, token, **kwargs):
        """The signature and nonce (mozilla-django-oidc), the expiry (PyJWT), and the issuer and
        audience, which mozilla-django-oidc leaves unchecked."""
        payload = super().verify_token(token, **kwargs)
        if str(payload.get("iss", "")).rstrip("/") != settings.OTTERWEB_OIDC_ISSUER:
            raise SuspiciousOperation(f"the ID token's issuer is {payload.get('iss')!r}")
        audience = payload.get("aud")
        audiences = audience if isinstance(audience, list) else [audience]
        if oidc_setting("OIDC_RP_CLIENT_ID") not in audiences:
            raise SuspiciousOperation(f"the ID token is for {audience!r}, not this client")
        return payload

    def username(self, claims) -> str:
        return str(claims.get(oidc_setting("OTTERWEB_OIDC_USERNAME_CLAIM")) or "").strip()

    def directory_groups(self, claims) -> list[str]:
        found = claims.get(oidc_setting("OTTERWEB_OIDC_GROUPS_CLAIM")) or []
        if isinstance(found, str):
            found = [found]
        return [str(group) for group in found if isinstance(group, (str, int))]

    def describe_user_by_claims(self, claims):
        return f"username {self.username(claims)!r}"

    def verify_claims(self, claims):
        username = self.username(claims)
        try:
            self.UserModel.username_validator(username)
        except ValidationError:
            logger.warning(
                "OIDC sign-in refused: the %s claim %r is not a username",
                oidc_setting("OTTERWEB_OIDC_USERNAME_CLAIM"),
                username[:150],
            )
            return False
        required = oidc_setting("OTTERWEB_OIDC_REQUIRE_GROUP")
        if required and required not in self.directory_groups(claims):
            logger.warning(
                "OIDC sign-in of %s refused: not in the required group %r", username, required
            )
            return False
        return True

    def filter_users_by_claims(self, claims):
        username = self.username(claims)
        users = self.UserModel.objects.filter(**{"username__iexact": username})
        for user in users:
            if user.has_usable_password():
                logger.warning(
                    "OIDC sign-in of %s refused: a local account with a password of its own has "
                    "this username; an administrator may turn it into a directory account by "
                    "removing its password",
                    username,
                )
                raise SuspiciousOperation("a local account has this username")
        return users

    def create_user(self, claims):
        user = self.UserModel(username=self.username(claims))
        user.set_unusable_password()
        logger.info("OIDC sign-in makes the account %s", user.get_username())
        return self.update_user(user, claims)

    def update_user(self, user, claims):
        user.email = str(claims.get("email") or user.email)[:254]
        user.first_name = str(claims.get("given_name") or user.first_name)[:150]
        user.last_name = str(claims.get("family_name") or user.last_name)[:150]
        member_of = self.directory_groups(claims)
        for flag, groups in (
            ("is_staff", oidc_setting("OTTERWEB_OIDC_STAFF_GROUPS")),
            ("is_superuser", oidc_setting("OTTERWEB_OIDC_SUPERUSER_GROUPS")),
        ):
            if groups:
                setattr(user, flag, any(group in member_of for group in groups))
        user.save()
        sync_groups(
            user=user,
            mapping=oidc_setting("OTTERWEB_OIDC_GROUPS"),
            member_of=member_of,
            source="OIDC",
        )
        logger.info("OIDC sign-in of %s", user.get_username())
        return user
