"""Fixtures of the schedules app's tests: a job template with prompts, on the server "here"."""

from __future__ import annotations

import pytest

from otterweb.executions import services
from otterweb.executions.models import JobTemplate
from otterweb.rafts.models import Raft
from otterweb.rafts.services import save_item

PROMPTS = [
    {"name": "Version", "type": "text", "default": "1.0", "required": True},
    {"name": "Verbose", "type": "boolean", "default": "false"},
    {"name": "Channel", "type": "choice", "default": "stable", "choices": ["stable", "beta"]},
]


@pytest.fixture
def deploy(here) -> JobTemplate:
    """A template that runs on "here" and asks for Version, Verbose and Channel."""
    raft = Raft.objects.create(name="main")
    item = save_item(raft=raft, name="deploy", content="Log-Information $Version;\n")
    return services.save_job_template(
        name="Deploy",
        raft_item=item,
        targeting="servers",
        servers=[here],
        prompts=[{"required": False, "choices": [], "description": "", **p} for p in PROMPTS],
    )


def owner():
    """The superuser "owner": the schedules and triggers of the tests run on its behalf (one
    without an owner runs nothing)."""
    from django.contrib.auth import get_user_model

    User = get_user_model()
    return User.objects.filter(username="owner").first() or User.objects.create_superuser(
        "owner", password="owner-pw-1"
    )


@pytest.fixture
def no_schedules(db):
    """No schedule but the test's own: the migration's global configuration check is gone."""
    from otterweb.schedules.models import Schedule

    Schedule.objects.all().delete()
