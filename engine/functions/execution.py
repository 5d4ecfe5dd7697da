"""What the execution knows about itself and its servers, through the host."""

from __future__ import annotations

from engine.registry import REGISTRY, FunctionSpec, function
from engine.values import kind, to_text


@function("ExecutionId", returns="$", description="The id of this execution.")
def execution_id(call):
    return call.host.execution_id


@function(
    "ExecutionState",
    returns="$",
    description="The execution's status so far: normal, warning or error.",
)
def execution_state(call):
    return call.context.strand.status.label


@function(
    "WorkingDirectory",
    "CurrentDirectory",
    returns="$",
    description="The working directory in context.",
)
def working_directory(call):
    return call.context.directory


@function("ServerName", returns="$", description="The server in context.")
def server_name(call):
    return call.context.server


@function("RoleName", returns="$", description="The server role in context (empty outside a role).")
def role_name(call):
    return call.context.role or ""


@function("EnvironmentName", returns="$", description="The environment of the server in context.")
def environment_name(call):
    return call.host.environment_of(call.context.server) or ""


@function(
    "EnvironmentVariable",
    returns="$",
    params=("EnvironmentVariableName",),
    description="An environment variable of the server in context, as its processes see it "
    "(empty when unset).",
)
async def environment_variable(call, name):
    variables = await (await call.agent()).environment_variables()
    return variables.get(to_text(name), "")


@function(
    "IsVariableDefined",
    returns="$",
    params=("name", "type"),
    optional=1,
    description="true when a variable of that name (and type: any, scalar, vector or map) is "
    "defined, or a function that needs no arguments ($IsVariableDefined(ServerName)).",
)
def is_variable_defined(call, name, kind_name="any"):
    sigil = _wanted(kind_name)
    value = call.variable(to_text(name))
    if value is not None:
        return "true" if sigil is None or kind(value) == sigil else "false"
    return "true" if _bare_function(to_text(name), sigil) is not None else "false"


@function(
    "GetVariableValue",
    returns=None,
    params=("name", "type"),
    optional=1,
    description="The value of a variable named at run time (or of a function that needs no "
    "arguments); empty when there is none of that name and type.",
)
async def get_variable_value(call, name, kind_name="any"):
    sigil = _wanted(kind_name)
    value = call.variable(to_text(name))
    if value is not None:
        return value if sigil is None or kind(value) == sigil else EMPTY[call.sigil]
    spec = _bare_function(to_text(name), sigil)
    if spec is None:
        return EMPTY[call.sigil]
    result = spec.implementation(call)
    return await result if spec.is_async else result


EMPTY = {"$": "", "@": [], "%": {}}
KINDS = {"any": None, "scalar": "$", "vector": "@", "map": "%"}


def _wanted(kind_name) -> str | None:
    """The sigil a type argument asks for; None for any."""
    wanted = to_text(kind_name).strip().lower() or "any"
    if wanted not in KINDS:
        raise ValueError("type must be any, scalar, vector or map")
    return KINDS[wanted]


def _bare_function(name: str, sigil: str | None) -> FunctionSpec | None:
    """The function ``$name`` would call without arguments, when it returns that kind."""
    spec = REGISTRY.find_function(name.lstrip("$@%")) if name.strip() else None
    if spec is None or len(spec.params) > spec.optional:
        return None
    return spec if sigil is None or spec.returns in (None, sigil) else None


@function(
    "IsSimulation",
    returns="$",
    description="true when the execution is a simulation (no operation changes anything).",
)
def is_simulation(call):
    return "true" if call.simulate else "false"


@function(
    "AllServers", returns="@", params=("includeInactive",), optional=1, description="Every server."
)
def all_servers(call, include_inactive="false"):
    return list(call.host.servers())


@function("AllRoles", returns="@", description="Every server role.")
def all_roles(call):
    return list(call.host.roles())


@function("AllEnvironments", returns="@", description="Every environment.")
def all_environments(call):
    return list(call.host.environments())


@function(
    "ServersInRole",
    returns="@",
    params=("roleName", "includeInactive"),
    optional=2,
    description="The servers with a role (the role in context by default).",
)
def servers_in_role(call, role=None, include_inactive="false"):
    name = to_text(role) if role is not None else call.context.role
    if not name:
        raise ValueError("no role was given and none is in context")
    return list(call.host.servers_in_role(name))


@function(
    "ServersInEnvironment",
    returns="@",
    params=("environmentName", "includeInactive"),
    optional=2,
    description="The servers in an environment (the current one by default).",
)
def servers_in_environment(call, environment=None, include_inactive="false"):
    name = (
        to_text(environment)
        if environment is not None
        else call.host.environment_of(call.context.server)
    )
    if not name:
        raise ValueError("no environment was given and the server in context has none")
    return list(call.host.servers_in_environment(name))


@function(
    "ServersInRoleAndEnvironment",
    returns="@",
    params=("roleName", "environmentName", "includeInactive"),
    optional=3,
    description="The servers with a role in an environment.",
)
def servers_in_role_and_environment(call, role=None, environment=None, include_inactive="false"):
    in_role = servers_in_role(call, role)
    in_environment = {s.casefold() for s in servers_in_environment(call, environment)}
    return [s for s in in_role if s.casefold() in in_environment]


@function("PythonPath", returns="$", description="The Python interpreter scripts run with.")
def python_path(call):
    return "python3"
