"""The one rule for the names scripts use (servers, roles, environments, credentials, rafts): the
rule, its help and its message, said the same in the forms, the API and the admin (addresses
carry such names: otterweb.addresses)."""

from __future__ import annotations

from django.core.validators import RegexValidator

NAME_RULE = "letters, digits, '-', '_' and '.', with one letter, digit or '_' at least"
NAME_HELP = f"{NAME_RULE[0].upper()}{NAME_RULE[1:]}; it is how scripts name it."
NAME_PATTERN = r"[-A-Za-z0-9_.]+"

# not "." or "..", which a browser takes out of an address, nor "-", the rafts pages' separator
validate_name = RegexValidator(
    rf"\A(?=.*[A-Za-z0-9_]){NAME_PATTERN}\Z",
    message=f"Use only {NAME_RULE} (no spaces): scripts name it so.",
    code="invalid_name",
)
