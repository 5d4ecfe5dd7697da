"""What django-auditlog tracks: every model a person changes through pages, the API or the
admin, with the fields that are bookkeeping (timestamps, what checks and firings write) left
out and secrets masked (a change shows as "(changed)", never a value or a ciphertext).

To track another model, add one line to TRACKED (a model not installed is skipped), e.g.
``"privileges.Grant": {}``; or have its app call ``track`` from its AppConfig.ready, when the app
knows best what of it the trail leaves out (inventory: what its server checks write)."""

from __future__ import annotations

from collections.abc import Collection

from auditlog.registry import auditlog
from django.apps import apps

TIMESTAMPS = ["created", "updated"]

# "app_label.Model": exclude (fields not recorded), mask (secrets: only that they changed),
# m2m (many-to-many fields recorded as objects added and removed)
TRACKED: dict[str, dict[str, list[str]]] = {
    "inventory.Environment": {"exclude": TIMESTAMPS},
    "inventory.Role": {"exclude": TIMESTAMPS, "m2m": ["dependencies"]},
    # inventory.Server: tracked by inventory (its AppConfig.ready)
    "inventory.Variable": {"exclude": TIMESTAMPS, "mask": ["encrypted_value"]},
    "inventory.Credential": {
        "exclude": TIMESTAMPS,
        "mask": ["encrypted_secret", "encrypted_passphrase"],
        "m2m": ["environments"],
    },
    "rafts.Raft": {"exclude": ["created"]},
    # an item's content is recorded as its new version's number (RaftItemVersion), never a
    # second copy of the script; drafts (the editor's autosave) are not changes of anything
    "rafts.RaftItem": {"exclude": ["content", "updated"]},
    "rafts.RaftItemVersion": {"exclude": ["content", "created"]},
    "executions.JobTemplate": {"exclude": TIMESTAMPS, "m2m": ["servers", "roles", "environments"]},
    "executions.JobTemplatePrompt": {},
    "schedules.Schedule": {
        "exclude": [*TIMESTAMPS, "next_run", "last_fired", "last_execution", "last_error"],
    },
    "schedules.Trigger": {
        "exclude": ["created", "last_used", "last_execution", "last_error"],
        "mask": ["token_digest", "encrypted_secret"],
    },
    "auth.User": {
        "exclude": ["last_login", "date_joined"],
        "mask": ["password"],
        "m2m": ["groups", "user_permissions"],
    },
    "auth.Group": {"m2m": ["permissions"]},
    # privileges (otterweb.privileges): the roles, their permissions, and who holds them where
    "privileges.Role": {"m2m": ["permissions"]},
    "privileges.Grant": {"exclude": ["created"]},
    # API keys (otterweb.accounts): the knox token they point at is a digest, masked anyway;
    # their use (last_used, last_address) is not a change
    "accounts.ApiKey": {"exclude": ["last_used", "last_address"], "mask": ["token"]},
    "accounts.ServiceAccount": {"exclude": ["created"]},
}


def hidden(value: str) -> str:
    """django-auditlog's mask for secrets: whether there is one, nothing of it."""
    return "(secret)" if value not in ("", "None") else ""


def register_all() -> list[str]:
    """Have django-auditlog track every installed model of TRACKED; their labels."""
    return [label for label, options in TRACKED.items() if track(label, **options)]


def track(
    label: str,
    *,
    exclude: Collection[str] = (),
    mask: Collection[str] = (),
    m2m: Collection[str] = (),
) -> bool:
    """Have django-auditlog track the model ``label`` ("app_label.Model"): its own columns but
    those of ``exclude``, secrets (``mask``) only as changed, many-to-many fields (``m2m``) as
    objects added and removed. False when the model is not installed."""
    app_label, _, name = label.partition(".")
    try:
        model = apps.get_model(app_label, name)
    except LookupError:  # an app or model not (yet) installed
        return False
    field_names = {field.name for field in model._meta.get_fields()}
    auditlog.register(
        model,
        # the model's own columns only: django-auditlog reads every field of a new object,
        # reverse relations too, and reading a missing one-to-one caches it as missing
        include_fields=[f.name for f in model._meta.concrete_fields if f.name not in exclude],
        mask_fields=[f for f in mask if f in field_names],
        mask_callable="otterweb.audit.registry.hidden",
        m2m_fields={f for f in m2m if f in field_names},
    )
    return True
