"""Apply-Template."""

from __future__ import annotations

from engine.registry import Kind, Operation, ParamType, operation, param
from engine.templates import compile_template, render


@operation(
    "Apply-Template",
    namespace="InedoCore",
    kind=Kind.EXECUTE,
    description="Fills in a text template (variables, functions, <% if %> and <% foreach %>).",
)
class ApplyTemplate(Operation):
    asset = param(
        "Asset",
        positional=True,
        default=None,
        description="A template kept in the raft (raft::name for another raft).",
    )
    literal = param(
        "Literal",
        expand=False,
        default=None,
        description="The template text itself; its variables are expanded by the template, not before.",
    )
    input_file = param(
        "InputFile", default=None, description="A template file on the server in context."
    )
    output_file = param(
        "OutputFile",
        default=None,
        description="Where to write the result on the server in context.",
    )
    output_variable = param(
        "OutputVariable", output=True, description="The result, for OutputVariable => $variable."
    )
    additional = param(
        "AdditionalVariables",
        ParamType.MAP,
        default=None,
        description="Variables the template can use besides those in scope.",
    )
    new_lines = param(
        "NewLines", default="Auto", description="Auto (as written), Windows or Linux line breaks."
    )

    def summary(self) -> str:
        source = self.asset or self.input_file or "literal template"
        return f"Apply-Template {source}"

    async def execute(self, run) -> None:
        sources = [s for s in (self.asset, self.literal, self.input_file) if s is not None]
        if len(sources) != 1:
            raise ValueError(
                "Apply-Template needs exactly one of Asset (positional), Literal or InputFile"
            )
        if self.literal is not None:
            text = self.literal
        elif self.input_file is not None:
            text = (await (await run.agent()).read_file(run.resolve(self.input_file))).decode(
                "utf-8"
            )
        else:
            raft, _, name = self.asset.rpartition("::")
            found = await run.host.raft_item(raft or None, name, "template")
            if found is None:
                raise ValueError(f"template '{self.asset}' was not found in the raft")
            text = found
        extra = {key.casefold(): (key, value) for key, value in (self.additional or {}).items()}
        result = await render(
            compile_template(text), evaluate=run.evaluate, test=run.test, variables=extra
        )
        mode = (self.new_lines or "Auto").lower()
        if mode == "windows":
            result = result.replace("\r\n", "\n").replace("\n", "\r\n")
        elif mode == "linux":
            result = result.replace("\r\n", "\n")
        elif mode != "auto":
            raise ValueError(f"NewLines is Auto, Windows or Linux, not '{self.new_lines}'")
        self.output_variable = result
        if self.output_file:
            path = run.resolve(self.output_file)
            await (await run.agent()).write_file(path, result.encode())
            run.info(f"Wrote the template's result to {path} ({len(result)} characters).")
        else:
            run.debug(f"Applied the template ({len(result)} characters).")
