"""systemd services of a Linux server, with its own systemctl: a unit running (or not) and
enabled at boot (or not), and restarted on demand. A server that does not run systemd is told
apart at once, with a clear error."""

from __future__ import annotations

from engine.operations.process import must_run, output_of
from engine.registry import Kind, Operation, ParamType, operation, param

ACTIVE = ("active", "activating", "reloading")


def unit_name(name: str) -> str:
    """``nginx`` is ``nginx.service``; a name with a unit suffix is kept."""
    name = name.strip()
    return name if "." in name else f"{name}.service"


async def require_systemd(run) -> None:
    """A ValueError unless the server in context runs systemd (sd_booted's test)."""
    code, _, _ = await output_of(run, ["test", "-d", "/run/systemd/system"])
    if code != 0:
        raise ValueError(
            f"server {run.server} does not run systemd (it has no /run/systemd/system): its "
            "services cannot be managed with systemctl"
        )


class ServiceOperation(Operation):
    name = param(
        "Name", positional=True, required=True, description="The unit: nginx, or nginx.service."
    )

    def summary(self) -> str:
        return f"{self.spec.name} {unit_name(self.name)}"


@operation(
    "Ensure-Service",
    namespace="Linux",
    kind=Kind.ENSURE,
    description="Ensures a systemd service is running (or stopped) and enabled at boot (or not).",
)
class EnsureService(ServiceOperation):
    running = param(
        "Running", ParamType.BOOLEAN, default=True, description="Whether it should be running."
    )
    enabled = param(
        "Enabled",
        ParamType.BOOLEAN,
        default=None,
        description="Whether it should start at boot (left as it is when not set).",
    )

    def desired(self) -> dict:
        wanted: dict = {"Running": self.running}
        if self.enabled is not None:
            wanted["Enabled"] = self.enabled
        return wanted

    async def collect(self, run) -> dict:
        await require_systemd(run)
        unit = unit_name(self.name)
        shown = await must_run(
            run,
            ["systemctl", "show", "--property=LoadState,ActiveState,UnitFileState", "--", unit],
        )
        state = dict(line.partition("=")[::2] for line in shown.splitlines())
        if state.get("LoadState") == "not-found":
            if self.running or self.enabled:
                raise ValueError(f"server {run.server} has no unit {unit}")
            return {"Running": False, "Enabled": False}
        return {
            "Running": state.get("ActiveState") in ACTIVE,
            "Enabled": state.get("UnitFileState", "").startswith("enabled"),
        }

    async def execute(self, run) -> None:
        actual = await self.collect(run)
        unit = unit_name(self.name)
        if self.enabled is not None and actual["Enabled"] != self.enabled:
            await must_run(run, ["systemctl", "enable" if self.enabled else "disable", "--", unit])
            run.info(f"{'Enabled' if self.enabled else 'Disabled'} {unit}.")
        if actual["Running"] != self.running:
            await must_run(run, ["systemctl", "start" if self.running else "stop", "--", unit])
            run.info(f"{'Started' if self.running else 'Stopped'} {unit}.")


@operation(
    "Restart-Service",
    namespace="Linux",
    kind=Kind.EXECUTE,
    description="Restarts a systemd service. In collect-execute mode it runs when something in "
    "its block drifted: beside the Ensure-File of the service's configuration, only when that "
    "file changed.",
)
class RestartService(ServiceOperation):
    async def execute(self, run) -> None:
        await require_systemd(run)
        unit = unit_name(self.name)
        await must_run(run, ["systemctl", "restart", "--", unit])
        run.info(f"Restarted {unit}.")
