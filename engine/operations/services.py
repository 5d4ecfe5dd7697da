"""systemd services of a Linux server, with its own systemctl: a unit running (or not) and
enabled at boot (or not), and restarted on demand. A unit file changed on disk (by an Ensure-File
of the same run, say) is reloaded before the unit is started or restarted, so that the change
takes effect. A server that does not run systemd is told apart at once, with a clear error, and a
unit that fails to start is reported with the last lines of its journal."""

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


async def unit_state(run, unit: str) -> dict[str, str]:
    """The properties of ``unit`` that the operations read, as systemctl shows them."""
    shown = await must_run(
        run,
        [
            "systemctl",
            "show",
            "--property=LoadState,ActiveState,UnitFileState,NeedDaemonReload",
            "--",
            unit,
        ],
    )
    return dict(line.partition("=")[::2] for line in shown.splitlines())


async def reload_if_changed(run, unit: str, state: dict[str, str]) -> None:
    """``systemctl daemon-reload`` when the unit's file changed since systemd read it."""
    if state.get("NeedDaemonReload") == "yes":
        await must_run(run, ["systemctl", "daemon-reload"])
        run.info(f"Reloaded systemd's units: the file of {unit} changed.")


async def change(run, verb: str, unit: str) -> None:
    """``systemctl <verb> <unit>``; when it fails, the error says why in the unit's own words:
    systemctl's message and the last lines of the unit's journal."""
    code, output, errors = await output_of(run, ["systemctl", verb, "--", unit])
    if code == 0:
        return
    said = " ".join(errors or output.splitlines())[:500]
    _, journal, _ = await output_of(
        run, ["journalctl", "--unit", unit, "--lines", "10", "--no-pager", "--quiet"]
    )
    lines = [line for line in journal.splitlines() if line.strip()]
    raise ValueError(
        f"systemctl {verb} {unit} failed on {run.server}: {said}"
        + ("\nIts journal ends with:\n" + "\n".join(lines) if lines else "")
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
        return running_and_enabled(await unit_state(run, unit))

    async def execute(self, run) -> None:
        await require_systemd(run)
        unit = unit_name(self.name)
        state = await unit_state(run, unit)
        found = running_and_enabled(state)
        enable = self.enabled is not None and found["Enabled"] != self.enabled
        if not (enable or found["Running"] != self.running):
            return
        if state.get("LoadState") == "not-found":
            raise ValueError(
                f"server {run.server} has no unit {unit}: systemd found no file for it"
            )
        await reload_if_changed(run, unit, state)
        if enable:
            await change(run, "enable" if self.enabled else "disable", unit)
            run.info(f"{'Enabled' if self.enabled else 'Disabled'} {unit}.")
        if found["Running"] != self.running:
            await change(run, "start" if self.running else "stop", unit)
            run.info(f"{'Started' if self.running else 'Stopped'} {unit}.")


def running_and_enabled(state: dict[str, str]) -> dict:
    """Running and Enabled, from a unit's properties (a unit systemd does not know is neither)."""
    return {
        "Running": state.get("ActiveState") in ACTIVE,
        "Enabled": state.get("UnitFileState", "").startswith("enabled"),
    }


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
        await reload_if_changed(run, unit, await unit_state(run, unit))
        await change(run, "restart", unit)
        run.info(f"Restarted {unit}.")
