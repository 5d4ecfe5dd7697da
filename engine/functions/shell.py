"""Shell scripts on the server in context, for what they print."""

from __future__ import annotations

from engine.operations.process import shell_output
from engine.registry import function
from engine.values import to_text


@function(
    "SHEval",
    returns="$",
    params=("script",),
    description="What a shell script prints on the server in context (its last line break "
    'dropped): $SHEval(uname -r), $SHEval("date +%Y"). The script reads, it is not meant to '
    "change anything: it runs in simulations too. An exit code other than 0 is an error.",
)
async def sh_eval(call, script):
    code, output, errors = await shell_output(call, to_text(script), [])
    if code != 0:
        said = f": {' '.join(errors)[:500]}" if errors else ""
        raise ValueError(f"$SHEval's script exited with code {code} on {call.server}{said}")
    return output
