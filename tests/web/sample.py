"""One of everything, for the tests that send the whole API requests (tests/web/test_fuzz.py,
tests/web/api/test_schema_conformance.py): an environment, a role, a server in both, a
variable, a credential, a raft with a script item of two versions, a job template with a prompt,
and an execution that ran on the server."""

from __future__ import annotations

from types import SimpleNamespace

from otterweb.executions.models import JobTemplate, JobTemplatePrompt
from otterweb.executions.runner import run_execution
from otterweb.executions.services import create_job
from otterweb.inventory import services as inventory
from otterweb.inventory.models import Credential, Environment, Role, Server
from otterweb.rafts import services as rafts
from otterweb.rafts.models import Raft, RaftItem


def sample_inventory(*, server: str, worker: str) -> SimpleNamespace:
    made = SimpleNamespace(
        environment=Environment.objects.create(name="production"),
        role=Role.objects.create(name="web"),
        server=Server.objects.create(name=server),
        credential=Credential.objects.create(name="deploy", username="ops"),
        raft=Raft.objects.create(name="main"),
    )
    made.server.roles.add(made.role)
    made.server.environments.add(made.environment)
    made.variable = inventory.set_variable(name="Port", value="8080", server=made.server)
    made.item = rafts.save_item(
        raft=made.raft, name="deploy", kind=RaftItem.Kind.SCRIPT, content="Log-Information hi;"
    )
    rafts.save_item(
        raft=made.raft, name="deploy", kind=RaftItem.Kind.SCRIPT, content="Log-Warning two;"
    )
    made.template = JobTemplate.objects.create(
        name="deploy", raft_item=made.item, targeting="servers"
    )
    made.template.servers.add(made.server)
    JobTemplatePrompt.objects.create(
        template=made.template, name="Version", type="number", default="1"
    )
    made.execution = create_job(script="Log-Information one;\nLog-Warning two;", servers=[server])
    run_execution(made.execution.pk, worker=worker)
    return made
