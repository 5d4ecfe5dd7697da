"""Text templates (Apply-Template's full syntax), rule by rule of Inedo's text templating page.
Each template is read from a file, so it reaches the template engine exactly as written; a
template given as a Literal argument reaches it the same way, escapes included."""

from __future__ import annotations

import pytest

from engine.interpreter import Level

# Inedo's e-mail example, as the page gives it.
EMAIL = """<p>Hi $HtmlEncode($name)!</p>
<p>
Just letting you know that the $HtmlEncode($EnvironmentName)
environment contains these servers:
</p>
<% if $ListCount(@ServersInEnvironment) = 0 { %>
<p>none</p>
<% } else { %>
<ul>
<% foreach $s in @ServersInEnvironment { %>
<li>$HtmlEncode($s)</li>
<% } %>
</ul>
<% } %>
<p>Hope you find this useful!</p>"""

EMAIL_RESULT = """<p>Hi Steve &amp; Co!</p>
<p>
Just letting you know that the Production
environment contains these servers:
</p>

<ul>

<li>localhost</li>

<li>db1</li>

</ul>

<p>Hope you find this useful!</p>"""

# (template, what it gives) with $name = Steve and @servers = @(a, b)
RESULTS = [
    # the simple syntax: variables and functions, as in any OtterScript text
    ("Hi $name, $ToUpper($name) $(@servers) $ListCount(@servers)", "Hi Steve, STEVE @(a, b) 2"),
    # tags: an iteration block and a predicate statement, nested, with else if
    (
        "<% foreach $s in @servers { %><% if $s == a { %>A<% } else if $s == b { %>B<% } else { %>?<% } %><% } %>",
        "AB",
    ),
    ("<% if $name != Steve { %>no<% } else { %>yes<% } %>", "yes"),
    ("<%if true{%>tight<%}%>", "tight"),
    # Inedo's example compares with a single =; inside quotes or arguments = stays itself
    ("<% if $ListCount(@servers) = 2 { %>two<% } %>", "two"),
    ("<% if $name = 'a=b' { %>x<% } else { %>y<% } %>", "y"),
    ("<% if $Compare($ListCount(@servers), =, 2) { %>same<% } %>", "same"),
    # escapes: <`% is an opening tag as text, %> needs none and %`> is also %>
    ("<`% not a tag %>", "<% not a tag %>"),
    ("$ToUpper(<`%)", "<%"),
    ("50 %> 40 and 50 %`> 40", "50 %> 40 and 50 %> 40"),
    ("`$name costs `$5, `` is a grave", "$name costs $5, ` is a grave"),
    ("line`nbreak", "line\nbreak"),
    # text around tags is kept as it is, line breaks included
    ("a\n<% if true { %>\nb\n<% } %>\nc", "a\n\nb\n\nc"),
    ("", ""),
]


async def apply(run, tmp_path, template: str):
    (tmp_path / "template.txt").write_text(template)
    return await run(
        "set $name = Steve;\nset @servers = @(a, b);\n"
        f"Apply-Template (InputFile: {tmp_path}/template.txt, OutputVariable => $out);\n"
        "Log-Information >>[$out]>>;"
    )


@pytest.mark.parametrize(("template", "expected"), RESULTS, ids=[r[0] for r in RESULTS])
async def test_templates_render(run, tmp_path, template, expected) -> None:
    ran = await apply(run, tmp_path, template)
    assert ran.status == "normal", ran.messages(Level.ERROR)
    assert ran.info[-1] == f"[{expected}]"


# (Literal argument as the script writes it, what it gives): the template gets the text with
# its escapes, and expands it itself
LITERALS = [
    ('"<`% not a tag %>"', "<% not a tag %>"),
    ('"`$name costs `$5, `` is a grave"', "$name costs $5, ` is a grave"),
    ("'Hi $name, $ToUpper($name)'", "Hi Steve, STEVE"),
    (">>`$name`nis <% if $name == Steve { %>Steve<% } %>>>", "$name\nis Steve"),
    ("<`% x %> $name", "<% x %> Steve"),
]


@pytest.mark.parametrize(("literal", "expected"), LITERALS, ids=[r[0] for r in LITERALS])
async def test_templates_render_a_literal_with_its_escapes(run, literal, expected) -> None:
    ran = await run(
        "set $name = Steve;\n"
        f"Apply-Template (Literal: {literal}, OutputVariable => $out);\n"
        "Log-Information >>[$out]>>;"
    )
    assert ran.status == "normal", ran.messages(Level.ERROR)
    assert ran.info[-1] == f"[{expected}]"


async def test_templates_render_inedos_email_example(run, tmp_path) -> None:
    (tmp_path / "email.txt").write_text(EMAIL)
    ran = await run(
        f"Apply-Template (InputFile: {tmp_path}/email.txt, AdditionalVariables: %(name: Steve & Co), "
        "OutputVariable => $out);\nLog-Information $out;"
    )
    assert ran.info[-1] == EMAIL_RESULT


# (template, the start of the error it gives)
ERRORS = [
    # tags are found first: one inside a function's arguments ends them
    ("$ToUpper(<% x %>)", "line 1: unexpected end"),
    ("<% set $x = 1; %>", "line 1: templates allow only if, else and foreach tags"),
    ("a\n<% if true { %>open", "a <% if %> or <% foreach %> tag is never closed"),
    ("<% } %>", "line 1: '<% } %>' closes nothing"),
    ("x\n<% foreach $s in @servers { %><% } else { %><% } %>", "line 2: '<% } else { %>' has no"),
    ("<% foreach $s in $name { %>$s<% } %>", "foreach in a template needs a list"),
]


@pytest.mark.parametrize(("template", "message"), ERRORS, ids=[e[0] for e in ERRORS])
async def test_templates_errors(run, tmp_path, template, message) -> None:
    ran = await apply(run, tmp_path, template)
    assert ran.status == "error"
    assert message in ran.messages(Level.ERROR)[0], ran.messages(Level.ERROR)
