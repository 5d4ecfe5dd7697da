"""Hypothesis strategies for well-formed OtterScript syntax trees (as the parser builds them:
no empty or adjacent text parts)."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import strategies as st

from engine import ast
from engine.formatter import format_statement
from engine.keywords import KEYWORDS

TEXT_ALPHABET = st.sampled_from(
    [*list("abcXYZ019 _-.,;:()[]{}<>\"'$@%#/\\`!=&|*?+~^\t\n\r"), "é", "€", "日"]
)

names = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,8}", fullmatch=True)
dashed_names = st.from_regex(r"[A-Za-z][A-Za-z0-9_\-]{0,8}", fullmatch=True).filter(
    lambda n: n.lower() not in KEYWORDS and not n.lower().startswith("log-")
)
variable_names = st.one_of(
    names, st.from_regex(r"[A-Za-z][A-Za-z0-9_ .\-]{0,8}[A-Za-z0-9]", fullmatch=True)
)
tokens = st.from_regex(r"[A-Za-z][A-Za-z0-9]{0,6}", fullmatch=True)
map_keys = st.from_regex(r"[A-Za-z][A-Za-z0-9_.]{0,6}", fullmatch=True)
texts = st.text(TEXT_ALPHABET, min_size=1, max_size=12)
comment_words = st.text(st.sampled_from(list("abc XYZ 123 ,.;:()$@%`'\"")), max_size=20).map(
    str.strip
)


@st.composite
def comments(draw, multiline: bool = True) -> str:
    kind = draw(st.sampled_from(["#", "//", "/*"]))
    words = draw(comment_words)
    if kind == "/*":
        if multiline and draw(st.booleans()):
            words = words + "\n" + draw(comment_words)
        return f"/* {words} */"
    text = f"{kind} {words}".rstrip()
    return text if not text.startswith("##") else "# " + words


def variable(sigils: str = "$@%"):
    return st.builds(
        lambda sigil, name: ast.VariableRef(sigil=sigil, name=name),
        st.sampled_from(list(sigils)),
        variable_names,
    )


def _normalize(parts: list) -> tuple:
    merged: list = []
    for part in parts:
        if isinstance(part, ast.Text) and merged and isinstance(merged[-1], ast.Text):
            merged[-1] = ast.Text(value=merged[-1].value + part.value)
        else:
            merged.append(part)
    return tuple(merged)


def expressions(depth: int = 2):
    leaf = scalars(0)
    if depth <= 0:
        return st.one_of(leaf, variable("@%"))
    inner = expressions(depth - 1)
    return st.one_of(
        scalars(depth),
        variable("@%"),
        st.builds(lambda items: ast.Vector(items=tuple(items)), st.lists(inner, max_size=3)),
        st.builds(
            lambda entries: ast.Map(
                entries=tuple(ast.MapEntry(key=k, value=v) for k, v in entries)
            ),
            st.lists(st.tuples(map_keys, inner), max_size=3),
        ),
        st.builds(
            lambda sigil, name, args: ast.FunctionCall(sigil=sigil, name=name, args=tuple(args)),
            st.sampled_from(["@", "%"]),
            names,
            st.lists(inner, max_size=2),
        ),
        st.builds(
            lambda target, key, dotted: ast.Index(target=target, key=key, dotted=dotted),
            st.one_of(
                variable("@%"),
                st.builds(lambda i: ast.Vector(items=tuple(i)), st.lists(leaf, max_size=2)),
            ),
            scalars(0),
            st.booleans(),
        ),
    )


def scalars(depth: int = 1):
    part_options = [st.builds(ast.Text, value=texts), variable("$")]
    if depth > 0:
        part_options.append(
            st.builds(
                lambda name, args: ast.FunctionCall(sigil="$", name=name, args=tuple(args)),
                names,
                st.lists(expressions(depth - 1), max_size=2),
            )
        )
        part_options.append(
            st.builds(
                ast.Interpolation, expression=st.one_of(variable("@%"), expressions(depth - 1))
            )
        )
    style = st.sampled_from(["implicit", "double", "single", "swim"])
    return st.builds(
        lambda parts, s: ast.Scalar(parts=_normalize(parts), style=s),
        st.lists(st.one_of(*part_options), max_size=4),
        style,
    )


def predicates(depth: int = 2):
    atom = st.one_of(
        st.builds(ast.IsTrue, operand=st.one_of(scalars(1), variable("@%"))),
        st.builds(
            lambda left, op, right: ast.Compare(left=left, operator=op, right=right),
            scalars(1),
            st.sampled_from(["==", "!="]),
            scalars(1),
        ),
    )
    if depth <= 0:
        return atom
    inner = predicates(depth - 1)
    return st.one_of(
        atom,
        st.builds(ast.Not, operand=inner),
        st.builds(
            lambda ops: ast.And(operands=tuple(ops)), st.lists(inner, min_size=2, max_size=3)
        ),
        st.builds(lambda ops: ast.Or(operands=tuple(ops)), st.lists(inner, min_size=2, max_size=3)),
    )


def call_arguments():
    argument = st.one_of(
        st.builds(
            lambda n, v, c, t: ast.Argument(name=n, value=v, comments=tuple(c), trailing_comment=t),
            dashed_names,
            expressions(1),
            st.lists(comments(), max_size=1),
            st.none() | comments(multiline=False),
        ),
        st.builds(
            lambda n, v, c, t: ast.OutputArgument(
                name=n, variable=v, comments=tuple(c), trailing_comment=t
            ),
            dashed_names,
            variable(),
            st.lists(comments(), max_size=1),
            st.none() | comments(multiline=False),
        ),
    )
    return st.lists(argument, max_size=3).map(tuple)


DIRECTIVES = st.sampled_from(
    [
        ("async", None),
        ("async", "Build1"),
        ("lock", "Deploy"),
        ("lock", "!Shared"),
        ("retry", "3"),
        ("timeout", "30"),
        ("executionPolicy", "always"),
        ("isolation", None),
        ("credentials", "DeployUser"),
    ]
)


def statements(depth: int = 2):
    simple = st.one_of(
        st.builds(
            lambda ns, name, pos, args: ast.OperationCall(
                namespace=ns, name=name, positional=pos, arguments=args
            ),
            st.none() | dashed_names,
            dashed_names,
            st.none() | expressions(1),
            call_arguments(),
        ),
        st.builds(
            lambda scope, var, idx, value: ast.SetVariable(
                scope=scope, variable=var, indexes=tuple(idx), value=value
            ),
            st.sampled_from([None, "local", "global"]),
            variable(),
            st.lists(scalars(0), max_size=2),
            expressions(1),
        ),
        st.builds(
            lambda var, value: ast.GlobalDeclaration(variable=var, value=value),
            variable(),
            st.none() | expressions(1),
        ),
        st.builds(
            lambda level, m: ast.Log(level=level, message=m),
            st.sampled_from(["debug", "information", "warning", "error"]),
            expressions(1),
        ),
        st.builds(ast.Await, token=st.none() | tokens),
        st.builds(ast.Throw, message=st.none() | scalars(1)),
        st.builds(ast.Warn, force=st.booleans()),
        st.sampled_from(
            [ast.Fail(), ast.Error(), ast.ForceNormal(), ast.Break(), ast.Continue(), ast.Return()]
        ),
        st.builds(
            lambda raft, name, args: ast.CallModule(raft=raft, name=name, arguments=args),
            st.none() | dashed_names,
            dashed_names,
            call_arguments(),
        ),
        st.builds(
            lambda lines: ast.Comment(lines=tuple(lines)),
            st.lists(comments(), min_size=1, max_size=2),
        ),
    )
    if depth <= 0:
        return decorated(simple)
    body = bodies(depth - 1)
    compound = st.one_of(
        st.builds(ast.Block, body=body),
        st.builds(
            lambda c, b, e, eb: ast.If(condition=c, body=b, else_ifs=tuple(e), else_body=eb),
            predicates(1),
            body,
            st.lists(st.builds(ast.ElseIf, condition=predicates(1), body=body), max_size=2),
            st.none() | body,
        ),
        st.builds(
            lambda v, s, b: ast.ForEach(variable=v, source=s, body=b),
            variable(),
            expressions(1),
            body,
        ),
        st.builds(
            lambda c, s, b: ast.ContextIteration(context=c, source=s, body=b),
            st.sampled_from(["server", "role", "directory"]),
            expressions(1),
            body,
        ),
        st.builds(
            lambda c, v, b: ast.SetContext(context=c, value=v, body=b),
            st.sampled_from(["server", "role", "directory"]),
            scalars(1),
            body,
        ),
        st.builds(
            lambda ds, b: ast.With(
                directives=tuple(ast.Directive(name=n, value=v) for n, v in ds), body=b
            ),
            st.lists(DIRECTIVES, min_size=1, max_size=3),
            body,
        ),
        st.builds(ast.Try, body=body, catch_body=body),
        st.builds(
            lambda name, params, b: ast.ModuleDeclaration(
                name=name, parameters=tuple(params), body=b
            ),
            dashed_names,
            st.lists(
                st.builds(
                    lambda v, d, o: ast.ModuleParameter(variable=v, default=d, output=o),
                    variable(),
                    st.none() | scalars(0),
                    st.booleans(),
                ),
                max_size=3,
            ),
            body,
        ),
    )
    return decorated(st.one_of(simple, compound))


def decorated(statement_strategy):
    """Add descriptions and trailing comments (a Comment node takes neither)."""

    def apply(statement, description, trailing):
        if isinstance(statement, ast.Comment):
            return statement
        return type(statement)(
            **{
                **_fields(statement),
                "description": tuple(description),
                "trailing_comment": trailing,
            }
        )

    return st.builds(
        apply,
        statement_strategy,
        st.lists(comments(), max_size=2),
        st.none() | comments(multiline=False),
    )


def _fields(node) -> dict:
    from dataclasses import fields

    return {f.name: getattr(node, f.name) for f in fields(node) if f.name != "span"}


def bodies(depth: int = 2):
    return st.lists(statements(depth), max_size=3).map(tuple)


scripts = st.builds(
    lambda headers, body: ast.Script(headers=tuple(headers), body=body),
    st.lists(st.from_regex(r"##AH:[A-Za-z]{1,12}", fullmatch=True), max_size=2),
    bodies(2),
)


# ---- scripts laid out as people write them --------------------------------------------------

BODY_MARK = ast.Comment(lines=("#@@BODY@@",))


def _frame(statement: ast.Statement) -> list[str]:
    """The canonical text around a statement's bodies: up to its first ``{``, between a ``}``
    and the next ``{``, from its last ``}``."""
    mark = (BODY_MARK,)
    if isinstance(statement, ast.If):
        marked: ast.Statement = replace(
            statement,
            body=mark,
            else_ifs=tuple(replace(clause, body=mark) for clause in statement.else_ifs),
            else_body=None if statement.else_body is None else mark,
        )
    elif isinstance(statement, ast.Try):
        marked = replace(statement, body=mark, catch_body=mark)
    else:
        marked = replace(statement, body=mark)  # type: ignore[call-arg]
    return format_statement(marked).rstrip("\n").split("\n    #@@BODY@@\n")


@st.composite
def laid_out(draw, script: ast.Script) -> str:
    """A text of ``script`` laid out otherwise than the formatter does: indented by tabs or two
    spaces (or not at all), some lines ending in blanks, blank lines here and there, and
    statements written canonically at the start of their first line (their other lines as at
    the top). It parses to ``script``."""
    unit = draw(st.sampled_from(["\t", "  ", "    ", ""]))

    def gap(depth: int, previous: ast.Statement | None) -> str:
        blanks = draw(st.sampled_from(["", "", " ", "\t"]))
        breaks = 2 if isinstance(previous, ast.Comment) else draw(st.sampled_from([1, 1, 1, 2, 3]))
        return blanks + "\n" * breaks + unit * depth

    def body(statements: ast.Body, depth: int) -> str:
        out = []
        previous = None
        for statement in statements:
            out.append(gap(depth, previous))
            bodies = ast.bodies(statement)
            if bodies:
                pieces = _frame(statement)
                out.append(pieces[0])
                for number, inner in enumerate(bodies):
                    out.append(body(inner, depth + 1))
                    out.append(pieces[number + 1])
            else:
                out.append(format_statement(statement).rstrip("\n"))
            previous = statement
        out.append("\n" + unit * (depth - 1) if depth else "\n")
        return "".join(out)

    return "\n".join(script.headers) + body(script.body, 0)
