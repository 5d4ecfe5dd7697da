"""Otter's own operations: a run changes the inventory it runs in, within the privileges of
whoever started it."""

from __future__ import annotations

from engine.registry import Kind, Operation, ParamType, operation, param
from engine.values import literal_text, to_text


@operation(
    "Set-Variable",
    "Set-OtterVariables",
    namespace="Otter",
    kind=Kind.EXECUTE,
    description="Creates or changes a configuration variable of a server, a role, an environment "
    "or the whole inventory, with the privileges of whoever started the run.",
)
class SetVariable(Operation):
    name = param("Name", required=True, description="The variable's name, without its sigil.")
    value = param(
        "Value", ParamType.ANY, required=True, description="Its value: text, a list or a map."
    )
    server = param("Server", description="The server it is set on.")
    role = param("Role", description="The role it is set on.")
    environment = param("Environment", description="The environment it is set on.")
    sensitive = param(
        "Sensitive",
        ParamType.BOOLEAN,
        default=False,
        description="Masked in logs and never shown again (its text values masked in this run too).",
    )

    def summary(self) -> str:
        return f"Set-Variable {self.name} on {self.where()}"

    def where(self) -> str:
        scopes = [
            f"{kind} {value}"
            for kind, value in (
                ("server", self.server),
                ("role", self.role),
                ("environment", self.environment),
            )
            if value
        ]
        if len(scopes) > 1:
            raise ValueError(f"a variable is set at one scope, not {' and '.join(scopes)}")
        return scopes[0] if scopes else "the whole inventory"

    async def execute(self, run) -> None:
        where = self.where()
        if self.sensitive:
            for text in _texts(self.value):
                run.add_secret(text)
        await run.host.set_variable(
            self.name.strip().lstrip("$@%"),
            literal_text(self.value),
            server=self.server or None,
            role=self.role or None,
            environment=self.environment or None,
            sensitive=self.sensitive,
        )
        run.info(f"Set the variable {self.name} on {where}.")


def _texts(value) -> list[str]:
    if isinstance(value, list):
        return [t for item in value for t in _texts(item)]
    if isinstance(value, dict):
        return [t for item in value.values() for t in _texts(item)]
    return [to_text(value)] if to_text(value) else []
