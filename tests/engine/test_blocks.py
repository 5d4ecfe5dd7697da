"""AST <-> Blockly workspace JSON."""

from __future__ import annotations

import copy
import json

import pytest

from engine import OtterSyntaxError, ast, format_script, from_blocks, parse, to_blocks
from engine.blocks import STATEMENT_TYPES, BlocksError, block_type


def first_block(data: dict) -> dict:
    return data["blocks"]["blocks"][0]


def test_blocks_type_per_statement_kind_is_otter_snake_name() -> None:
    assert block_type(ast.OperationCall) == "otter_operation_call"
    assert block_type(ast.ForceNormal) == "otter_force_normal"
    statements = {cls for cls in ast.node_types() if issubclass(cls, ast.Statement)}
    assert set(STATEMENT_TYPES.values()) == statements


def test_blocks_operation_is_one_generic_block_with_data() -> None:
    block = first_block(to_blocks(parse("IIS::Ensure-Site HDars (Path: c:\\web, Result => $r);")))
    assert block["type"] == "otter_operation_call"
    assert block["fields"] == {"NAMESPACE": "IIS", "NAME": "Ensure-Site", "POSITIONAL": "HDars"}
    assert block["extraState"]["arguments"] == [
        {"name": "Path", "value": "c:\\web"},
        {"name": "Result", "output": "$r"},
    ]


def test_blocks_statements_chain_with_next_and_nest_in_inputs() -> None:
    data = to_blocks(parse("Log-Debug a;\ntry { Log-Debug b; } catch { Log-Debug c; }"))
    top = first_block(data)
    assert top["type"] == "otter_log" and (top["x"], top["y"]) == (20, 20)
    tried = top["next"]["block"]
    assert tried["type"] == "otter_try"
    assert tried["inputs"]["BODY"]["block"]["fields"]["MESSAGE"] == "b"
    assert tried["inputs"]["CATCH"]["block"]["fields"]["MESSAGE"] == "c"


def test_blocks_if_uses_else_if_count_and_has_else() -> None:
    block = first_block(to_blocks(parse("if a { } else if b == c { } else { fail; }")))
    assert block["extraState"]["elseIfCount"] == 1 and block["extraState"]["hasElse"] is True
    assert block["fields"]["IF1"] == "b == c"
    assert block["inputs"]["ELSE"]["block"]["type"] == "otter_fail"


def test_blocks_expression_field_holds_canonical_text_in_its_place() -> None:
    block = first_block(to_blocks(parse("Log-Information Went wrong, but continuing;")))
    assert block["fields"]["MESSAGE"] == "Went wrong, but continuing"
    assert format_script(
        from_blocks(to_blocks(parse("Log-Information Went wrong, but continuing;")))
    ) == ("Log-Information Went wrong, but continuing;\n")


def test_blocks_round_trip_keeps_comments_and_headers() -> None:
    source = "##AH:UseTextMode\n\n# Deploy\n// the site\nExec x # now\n(\n    # why\n    A: b # trailing\n);\n\n# standalone\n"
    script = parse(source)
    data = json.loads(json.dumps(to_blocks(script)))
    assert from_blocks(data) == script
    assert format_script(from_blocks(data)) == format_script(script)


def test_blocks_description_is_the_comment_icon_and_an_edit_wins() -> None:
    data = to_blocks(parse("# Deploy the site\n// carefully\nExec x;"))
    block = first_block(data)
    assert block["icons"]["comment"]["text"] == "Deploy the site\ncarefully"
    edited = copy.deepcopy(data)
    first_block(edited)["icons"]["comment"]["text"] = "Deploy it\nnow"
    assert from_blocks(edited).body[0].description == ("# Deploy it", "# now")
    removed = copy.deepcopy(data)
    del first_block(removed)["icons"]
    assert from_blocks(removed).body[0].description == ()


def test_blocks_raw_block_keeps_statement_text() -> None:
    data = {
        "blocks": {
            "languageVersion": 0,
            "blocks": [{"type": "otter_raw", "fields": {"TEXT": "Log-Debug a;\nfail;"}}],
        }
    }
    assert from_blocks(data).body == (
        ast.Log(level="debug", message=ast.Scalar(parts=(ast.Text(value="a"),))),
        ast.Fail(),
    )


def test_blocks_bad_field_is_a_syntax_error_naming_the_block() -> None:
    data = to_blocks(parse("set $x = 1;"))
    first_block(data)["fields"]["VALUE"] = "$F(unclosed"
    with pytest.raises(OtterSyntaxError) as raised:
        from_blocks(data)
    assert "block b1 (otter_set_variable): VALUE" in raised.value.diagnostics[0].message


@pytest.mark.parametrize(
    "data", [[], {"blocks": {"blocks": [{"type": "nope"}]}}, {"blocks": {"blocks": ["x"]}}]
)
def test_blocks_not_a_workspace_raises_blocks_error(data) -> None:
    with pytest.raises(BlocksError):
        from_blocks(data)


def test_blocks_empty_workspace_is_empty_script() -> None:
    assert from_blocks({}) == ast.Script()
    assert to_blocks(ast.Script())["blocks"]["blocks"] == []


def test_blocks_index_key_is_read_back_where_it_stands_so_its_quoting_stays() -> None:
    """An index key is written and read in its own place, where a ',' or ')' needs no quotes."""
    script = parse("set %Map[a, (b)] = x;\n")
    block = first_block(to_blocks(script))
    assert block["extraState"]["indexes"] == ["a, (b)"]
    assert format_script(from_blocks(to_blocks(script))) == "set %Map[a, (b)] = x;\n"
