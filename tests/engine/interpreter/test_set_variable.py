"""Set-Variable (Otter's, also Set-OtterVariables): a run hands the host a configuration
variable as an OtterScript literal, at one scope."""

from __future__ import annotations

from engine.interpreter import Level
from engine.values import literal_value


async def test_set_variable_hands_the_host_a_literal_at_one_scope(run, host, monkeypatch) -> None:
    kept: list[tuple] = []

    async def set_variable(name, literal, **scope):
        kept.append((name, literal, scope))

    monkeypatch.setattr(host, "set_variable", set_variable)
    ran = await run(
        "set @Pool = @(web1, 'web 2, east');\n"
        "Set-OtterVariables (Name: Pool, Value: @Pool, Role: web);\n"
        "Otter::Set-Variable (Name: Limits, Value: %(cpu: 2, mem: 4G));\n"
        "Set-Variable (Name: Token, Value: s3cr3t-token, Server: db1, Sensitive: true);\n"
        "Log-Information token s3cr3t-token;"
    )
    assert ran.status == "normal", ran.messages()
    assert [(name, literal_value(literal), scope) for name, literal, scope in kept] == [
        (
            "Pool",
            ["web1", "web 2, east"],
            {"server": None, "role": "web", "environment": None, "sensitive": False},
        ),
        (
            "Limits",
            {"cpu": "2", "mem": "4G"},
            {"server": None, "role": None, "environment": None, "sensitive": False},
        ),
        (
            "Token",
            "s3cr3t-token",
            {"server": "db1", "role": None, "environment": None, "sensitive": True},
        ),
    ]
    assert "Set the variable Pool on role web." in ran.info
    assert "token ********" in ran.info  # the sensitive value is masked from then on


async def test_set_variable_refuses_two_scopes_and_says_what_the_host_said(run) -> None:
    ran = await run("Set-Variable (Name: A, Value: 1, Server: db1, Role: web);")
    assert any("at one scope, not server db1 and role web" in m for m in ran.messages(Level.ERROR))
    ran = await run("Set-Variable (Name: A, Value: 1);")
    assert any("keeps no configuration variables" in m for m in ran.messages(Level.ERROR))
