"""LDAP / Active Directory logins (django-auth-ldap), on when OTTERWEB_LDAP_URI is set
(otterweb.accounts.directory_settings reads the rest; docs/logins.md).

A person signs in on the usual login page with their directory username and password. The first
login makes their OtterWeb account (with no password of its own: the directory checks it each
time); every login refreshes their name, e-mail, staff and superuser flags
(OTTERWEB_LDAP_STAFF_GROUPS, OTTERWEB_LDAP_SUPERUSER_GROUPS) and the Django groups that
OTTERWEB_LDAP_GROUPS maps their directory groups to (otterweb.accounts.groups).

A local account, one with a password of its own, is never taken over by a directory user of the
same name: that login is refused and logged. Wrong passwords go through Django's
`authenticate`, so django-axes counts them and locks out as it does for local accounts."""

from __future__ import annotations

import logging

import ldap
import ldap.dn
from django.conf import settings
from django_auth_ldap.backend import LDAPBackend

from otterweb.accounts.groups import sync_groups

logger = logging.getLogger(__name__)


def dn_key(dn: str) -> object:
    """What makes two DNs the same: their parts, ignoring case and spacing around them."""
    try:
        return tuple(
            tuple((name.lower(), value.lower()) for name, value, _kind in rdn)
            for rdn in ldap.dn.str2dn(dn)
        )
    except ldap.DECODING_ERROR:
        return dn.strip().lower()


class DirectoryBackend(LDAPBackend):
    def get_or_build_user(self, username, ldap_user):
        user, built = super().get_or_build_user(username, ldap_user)
        if not built and user.has_usable_password():
            logger.warning(
                "LDAP login of %s (%s) refused: a local account with a password of its own has "
                "this username; an administrator may turn it into a directory account by "
                "removing its password",
                username,
                ldap_user.dn,
            )
            raise ldap_user.AuthenticationFailed("a local account has this username")
        return user, built

    def authenticate_ldap_user(self, ldap_user, password):
        user = super().authenticate_ldap_user(ldap_user, password)
        if user is None:
            return None
        if settings.OTTERWEB_LDAP_GROUPS:
            sync_groups(
                user=user,
                mapping=settings.OTTERWEB_LDAP_GROUPS,
                member_of=ldap_user.group_dns,
                source="LDAP",
                key=dn_key,
            )
        logger.info("LDAP login of %s (%s)", user.get_username(), ldap_user.dn)
        return user
