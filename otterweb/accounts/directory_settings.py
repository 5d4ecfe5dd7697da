"""Directory logins' settings, read from the environment (docs/logins.md): LDAP / Active Directory
through django-auth-ldap, OpenID Connect through mozilla-django-oidc. Each is off unless its
variable is set (OTTERWEB_LDAP_URI, OTTERWEB_OIDC_ISSUER): then nothing here changes Django's
settings. Local accounts keep working beside both.

The settings modules call `ldap_settings` and `oidc_settings` and add what they return; this
module imports no Django app (settings are read before apps are ready), and python-ldap only
when LDAP is on: it is the optional `ldap` extra."""

from __future__ import annotations

import json
from collections.abc import Mapping

from django.core.exceptions import ImproperlyConfigured

LDAP_BACKEND = "otterweb.accounts.directory.DirectoryBackend"
OIDC_BACKEND = "otterweb.accounts.oidc.SingleSignOnBackend"

# OTTERWEB_LDAP_GROUP_TYPE -> django-auth-ldap's class (in django_auth_ldap.config)
LDAP_GROUP_TYPES = {
    "groupOfNames": "GroupOfNamesType",
    "nestedGroupOfNames": "NestedGroupOfNamesType",
    "groupOfUniqueNames": "GroupOfUniqueNamesType",
    "posixGroup": "PosixGroupType",
    "activeDirectory": "NestedActiveDirectoryGroupType",
}
LDAP_GROUP_FILTERS = {
    "groupOfNames": "(objectClass=groupOfNames)",
    "nestedGroupOfNames": "(objectClass=groupOfNames)",
    "groupOfUniqueNames": "(objectClass=groupOfUniqueNames)",
    "posixGroup": "(objectClass=posixGroup)",
    "activeDirectory": "(objectClass=group)",
}


def _flag(env: Mapping[str, str], name: str, default: bool = False) -> bool:
    value = env.get(name, "1" if default else "0").strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off", ""):
        return False
    raise ImproperlyConfigured(f"{name} must be 1 or 0, not {value!r}")


def _json_object(env: Mapping[str, str], name: str, default: dict | None = None) -> dict:
    text = env.get(name, "").strip()
    if not text:
        return dict(default or {})
    try:
        value = json.loads(text)
    except ValueError as error:
        raise ImproperlyConfigured(f"{name} is not valid JSON: {error}") from None
    if not isinstance(value, dict):
        raise ImproperlyConfigured(f"{name} must be a JSON object, not {type(value).__name__}")
    return value


def group_mapping(env: Mapping[str, str], name: str) -> dict[str, tuple[str, ...]]:
    """A JSON object from directory group (an LDAP DN, an OIDC claim value) to the name of a
    Django group, or a list of them: {"cn=ops,ou=groups,dc=example,dc=org": "Operators"}."""
    mapping = {}
    for directory_group, django_groups in _json_object(env, name).items():
        names = (django_groups,) if isinstance(django_groups, str) else django_groups
        if (
            not isinstance(names, (list, tuple))
            or not names
            or not all(isinstance(group, str) and group.strip() for group in names)
        ):
            raise ImproperlyConfigured(
                f"{name}: {directory_group!r} must map to a group name or a list of them"
            )
        mapping[directory_group] = tuple(group.strip() for group in names)
    return mapping


def _names(env: Mapping[str, str], name: str) -> list[str]:
    """A list of values separated by ';' (DNs hold commas)."""
    return [part.strip() for part in env.get(name, "").split(";") if part.strip()]


def ldap_settings(env: Mapping[str, str]) -> dict:
    """django-auth-ldap's AUTH_LDAP_* settings and OtterWeb's OTTERWEB_LDAP_* ones; {} when
    OTTERWEB_LDAP_URI is not set."""
    uri = env.get("OTTERWEB_LDAP_URI", "").strip()
    if not uri:
        return {}
    try:
        import ldap
        from django_auth_ldap import config
    except ImportError as error:
        raise ImproperlyConfigured(
            "OTTERWEB_LDAP_URI is set but python-ldap or django-auth-ldap is missing: install "
            "the ldap extra (pip install -e '.[ldap]', which needs Debian's libldap2-dev and "
            f"libsasl2-dev); see docs/logins.md ({error})"
        ) from None

    timeout = float(env.get("OTTERWEB_LDAP_TIMEOUT_SECONDS", "10"))
    connection_options: dict[int, object] = {
        ldap.OPT_NETWORK_TIMEOUT: timeout,
        ldap.OPT_TIMEOUT: timeout,
        ldap.OPT_REFERRALS: 0,  # Active Directory's referrals need a bind of their own
    }
    found = {
        "AUTH_LDAP_SERVER_URI": uri,
        "AUTH_LDAP_BIND_DN": env.get("OTTERWEB_LDAP_BIND_DN", ""),
        "AUTH_LDAP_BIND_PASSWORD": env.get("OTTERWEB_LDAP_BIND_PASSWORD", ""),
        "AUTH_LDAP_START_TLS": _flag(env, "OTTERWEB_LDAP_START_TLS"),
        "AUTH_LDAP_CONNECTION_OPTIONS": connection_options,
        "AUTH_LDAP_USER_ATTR_MAP": _json_object(
            env,
            "OTTERWEB_LDAP_USER_ATTRS",
            {"first_name": "givenName", "last_name": "sn", "email": "mail"},
        ),
        "AUTH_LDAP_ALWAYS_UPDATE_USER": True,
    }
    ca_file = env.get("OTTERWEB_LDAP_CA_FILE", "").strip()
    if ca_file:
        found["AUTH_LDAP_GLOBAL_OPTIONS"] = {ldap.OPT_X_TLS_CACERTFILE: ca_file}
        connection_options[ldap.OPT_X_TLS_NEWCTX] = 0

    template = env.get("OTTERWEB_LDAP_USER_DN_TEMPLATE", "").strip()
    base = env.get("OTTERWEB_LDAP_USER_SEARCH_BASE", "").strip()
    if template:
        found["AUTH_LDAP_USER_DN_TEMPLATE"] = template
    elif base:
        user_filter = env.get("OTTERWEB_LDAP_USER_FILTER", "").strip() or "(uid=%(user)s)"
        found["AUTH_LDAP_USER_SEARCH"] = config.LDAPSearch(base, ldap.SCOPE_SUBTREE, user_filter)
    else:
        raise ImproperlyConfigured(
            "OTTERWEB_LDAP_URI is set: set OTTERWEB_LDAP_USER_SEARCH_BASE (users are searched "
            "for) or OTTERWEB_LDAP_USER_DN_TEMPLATE (their DN is made from the username)"
        )

    groups = group_mapping(env, "OTTERWEB_LDAP_GROUPS")
    flags = {
        flag: dns
        for flag, dns in (
            ("is_staff", _names(env, "OTTERWEB_LDAP_STAFF_GROUPS")),
            ("is_superuser", _names(env, "OTTERWEB_LDAP_SUPERUSER_GROUPS")),
        )
        if dns
    }
    required = env.get("OTTERWEB_LDAP_REQUIRE_GROUP", "").strip()
    group_base = env.get("OTTERWEB_LDAP_GROUP_SEARCH_BASE", "").strip()
    if (groups or flags or required) and not group_base:
        raise ImproperlyConfigured(
            "OTTERWEB_LDAP_GROUPS, _STAFF_GROUPS, _SUPERUSER_GROUPS and _REQUIRE_GROUP need "
            "OTTERWEB_LDAP_GROUP_SEARCH_BASE: where the directory's groups are"
        )
    if group_base:
        kind = env.get("OTTERWEB_LDAP_GROUP_TYPE", "").strip() or "groupOfNames"
        if kind not in LDAP_GROUP_TYPES:
            raise ImproperlyConfigured(
                f"OTTERWEB_LDAP_GROUP_TYPE must be one of {', '.join(LDAP_GROUP_TYPES)}, "
                f"not {kind!r}"
            )
        group_filter = env.get("OTTERWEB_LDAP_GROUP_FILTER", "").strip() or LDAP_GROUP_FILTERS[kind]
        found["AUTH_LDAP_GROUP_SEARCH"] = config.LDAPSearch(
            group_base, ldap.SCOPE_SUBTREE, group_filter
        )
        found["AUTH_LDAP_GROUP_TYPE"] = getattr(config, LDAP_GROUP_TYPES[kind])()
    if flags:
        found["AUTH_LDAP_USER_FLAGS_BY_GROUP"] = flags
    if required:
        found["AUTH_LDAP_REQUIRE_GROUP"] = required
    found["OTTERWEB_LDAP_GROUPS"] = groups
    return found


def oidc_settings(env: Mapping[str, str]) -> dict:
    """mozilla-django-oidc's OIDC_* settings and OtterWeb's OTTERWEB_OIDC_* ones; {} when
    OTTERWEB_OIDC_ISSUER is not set. The provider's endpoints come from its discovery document
    ({issuer}/.well-known/openid-configuration) unless they are set one by one."""
    issuer = env.get("OTTERWEB_OIDC_ISSUER", "").strip().rstrip("/")
    if not issuer:
        return {}
    client_id = env.get("OTTERWEB_OIDC_CLIENT_ID", "").strip()
    if not client_id:
        raise ImproperlyConfigured("OTTERWEB_OIDC_ISSUER is set: set OTTERWEB_OIDC_CLIENT_ID too")
    scopes = env.get("OTTERWEB_OIDC_SCOPES", "").strip() or "openid email profile"
    if "openid" not in scopes.split():
        raise ImproperlyConfigured(f"OTTERWEB_OIDC_SCOPES must include openid, not {scopes!r}")
    return {
        "OTTERWEB_OIDC_ISSUER": issuer,
        "OTTERWEB_OIDC_PROVIDER_NAME": env.get("OTTERWEB_OIDC_PROVIDER_NAME", "").strip()
        or "single sign-on",
        "OTTERWEB_OIDC_USERNAME_CLAIM": env.get("OTTERWEB_OIDC_USERNAME_CLAIM", "").strip()
        or "preferred_username",
        "OTTERWEB_OIDC_GROUPS_CLAIM": env.get("OTTERWEB_OIDC_GROUPS_CLAIM", "").strip() or "groups",
        "OTTERWEB_OIDC_GROUPS": group_mapping(env, "OTTERWEB_OIDC_GROUPS"),
        "OTTERWEB_OIDC_STAFF_GROUPS": _names(env, "OTTERWEB_OIDC_STAFF_GROUPS"),
        "OTTERWEB_OIDC_SUPERUSER_GROUPS": _names(env, "OTTERWEB_OIDC_SUPERUSER_GROUPS"),
        "OTTERWEB_OIDC_REQUIRE_GROUP": env.get("OTTERWEB_OIDC_REQUIRE_GROUP", "").strip(),
        "OIDC_RP_CLIENT_ID": client_id,
        "OIDC_RP_CLIENT_SECRET": env.get("OTTERWEB_OIDC_CLIENT_SECRET", ""),
        "OIDC_RP_SIGN_ALGO": env.get("OTTERWEB_OIDC_SIGN_ALGO", "").strip() or "RS256",
        "OIDC_RP_SCOPES": scopes,
        # "" means: from the discovery document (otterweb.accounts.oidc.endpoint)
        "OIDC_OP_AUTHORIZATION_ENDPOINT": env.get("OTTERWEB_OIDC_AUTHORIZATION_ENDPOINT", ""),
        "OIDC_OP_TOKEN_ENDPOINT": env.get("OTTERWEB_OIDC_TOKEN_ENDPOINT", ""),
        "OIDC_OP_USER_ENDPOINT": env.get("OTTERWEB_OIDC_USERINFO_ENDPOINT", ""),
        "OIDC_OP_JWKS_ENDPOINT": env.get("OTTERWEB_OIDC_JWKS_ENDPOINT", ""),
        "OIDC_USE_PKCE": True,
        "OIDC_USE_NONCE": True,
        "OIDC_CREATE_USER": True,
        "OIDC_TIMEOUT": float(env.get("OTTERWEB_OIDC_TIMEOUT_SECONDS", "10")),
        "OIDC_VERIFY_SSL": _flag(env, "OTTERWEB_OIDC_VERIFY_TLS", default=True),
    }


def backends(found: Mapping[str, object]) -> list[str]:
    """The authentication backends the directory settings add, after Django's own (a local
    account's password is checked first; a wrong one then goes to the directory)."""
    return [
        backend
        for backend, on in (
            (LDAP_BACKEND, "AUTH_LDAP_SERVER_URI" in found),
            (OIDC_BACKEND, "OTTERWEB_OIDC_ISSUER" in found),
        )
        if on
    ]
