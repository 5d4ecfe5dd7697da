"""The inventory pages' forms. They check what people typed; the services save it."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.http import QueryDict
from django.utils.text import normalize_newlines

from otterweb.inventory import selectors, services
from otterweb.inventory.models import Credential, Environment, Role, Server, Variable
from otterweb.rafts.models import RaftItem

KEEP_SENSITIVE = "Sensitive: the stored value is never shown. Leave empty to keep it."


def name_errors(kind: str) -> dict:
    """A name's errors for people: which kind of thing already has it (the rule's own message
    is otterweb.names')."""
    return {"name": {"unique": f"There is already {kind} of that name."}}


def add_errors(form: forms.BaseForm, error: ValidationError) -> None:
    """A service's refusal on the form: beside the field it names, else above the fields."""
    if not hasattr(error, "error_dict"):
        form.add_error(None, error)
        return
    for field, errors in error.error_dict.items():
        form.add_error(field if field in form.fields else None, errors)


class EnvironmentForm(forms.ModelForm):
    class Meta:
        model = Environment
        error_messages = name_errors("an environment")
        fields = ["name", "parent", "description"]
        widgets = {"description": forms.Textarea(attrs={"rows": 3})}
        help_texts = {"parent": "Servers in this environment are also in its parent."}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk:  # neither itself nor anything inside it can be its parent
            inside = [e.pk for e in selectors.descendants(environment=self.instance)]
            parent = self.fields["parent"]
            assert isinstance(parent, forms.ModelChoiceField)
            parent.queryset = Environment.objects.exclude(pk__in=[self.instance.pk, *inside])


class RoleForm(forms.ModelForm):
    class Meta:
        model = Role
        error_messages = name_errors("a role")
        fields = ["name", "dependencies", "configuration", "remediation", "description"]
        widgets = {"description": forms.Textarea(attrs={"rows": 3})}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        dependencies, configuration = self.fields["dependencies"], self.fields["configuration"]
        assert isinstance(dependencies, forms.ModelMultipleChoiceField)
        assert isinstance(configuration, forms.ModelChoiceField)
        if self.instance.pk:
            dependencies.queryset = Role.objects.exclude(pk=self.instance.pk)
        self.fields["remediation"].required = False  # report, when left out
        configuration.queryset = RaftItem.objects.filter(kind=RaftItem.Kind.SCRIPT).select_related(
            "raft"
        )


class ServerForm(forms.ModelForm):
    class Meta:
        model = Server
        error_messages = name_errors("a server")
        fields = [
            "name",
            "agent_type",
            "host",
            "port",
            "credential",
            "user",
            "sudo",
            "host_keys",
            "roles",
            "environments",
            "active",
            "remediation",
            "description",
        ]
        widgets = {
            "description": forms.Textarea(attrs={"rows": 3}),
            "host_keys": forms.Textarea(attrs={"rows": 3, "spellcheck": "false"}),
        }
        labels = {
            "agent_type": "Agent",
            "host": "Address",
            "user": "Login user",
            "host_keys": "Trusted host keys",
        }
        help_texts = {
            "credential": "What the SSH agent logs in with: a private key or a password.",
            "port": "The SSH port (22 by default).",
        }


class CredentialForm(forms.ModelForm):
    """The secret is write-only: it is never put back into the page, even after an error."""

    secret = forms.CharField(
        required=False,
        strip=False,
        label="Password or token",
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "new-password"}),
        help_text="Write-only: never shown again. Leave empty to keep the stored secret.",
    )
    private_key = forms.CharField(
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 5, "autocomplete": "off", "spellcheck": "false"}),
        help_text="For a private key: paste it whole. Write-only, like the password.",
    )
    passphrase = forms.CharField(
        required=False,
        strip=False,
        label="Key passphrase",
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "new-password"}),
        help_text="If the private key is encrypted. Write-only: leave empty to keep it.",
    )

    class Meta:
        model = Credential
        error_messages = name_errors("a credential")
        fields = [
            "name",
            "kind",
            "username",
            "secret",
            "private_key",
            "passphrase",
            "environments",
            "description",
        ]
        widgets = {"description": forms.Textarea(attrs={"rows": 3})}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.has_secret:
            self.fields[
                "secret"
            ].help_text = (
                "A secret is stored. Write-only: leave empty to keep it, or type a new one."
            )

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        secret, key = data.get("secret"), data.get("private_key")
        if secret and key:
            raise ValidationError("Give either a password or token, or a private key: not both.")
        if key:
            key = normalize_newlines(key).strip("\n") + "\n"
        data["new_secret"] = key or secret or None
        data["new_passphrase"] = data.get("passphrase") or None
        return data

    def render_secrets_empty(self) -> None:
        """After an error the page is shown again: without the secret that was typed."""
        data = QueryDict(mutable=True)
        data.update(self.data)
        for name in ("secret", "private_key", "passphrase"):
            data.pop(name, None)
        self.data = data


class VariableForm(forms.Form):
    """One variable at a scope the page decides. A stored sensitive value is never shown: empty
    means keep it."""

    name = forms.CharField(max_length=100, help_text=Variable._meta.get_field("name").help_text)
    value = forms.CharField(
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=Variable._meta.get_field("value").help_text,
    )
    sensitive = forms.BooleanField(
        required=False, help_text=Variable._meta.get_field("sensitive").help_text
    )

    def __init__(self, *args, variable: Variable | None = None, **kwargs):
        self.variable = variable
        if variable is not None:
            kwargs.setdefault("prefix", f"variable-{variable.pk}")
            kwargs.setdefault(
                "initial",
                {
                    "name": variable.name,
                    "sensitive": variable.sensitive,
                    "value": "" if variable.sensitive else variable.value,
                },
            )
        super().__init__(*args, **kwargs)
        if variable is not None and variable.sensitive:
            self.fields["value"].help_text = KEEP_SENSITIVE
            self.fields["value"].widget.attrs["placeholder"] = "(stored, not shown)"

    @property
    def keeps_stored_value(self) -> bool:
        return self.variable is not None and self.variable.sensitive

    def clean_value(self) -> str | None:
        value = normalize_newlines(self.cleaned_data["value"])
        if not value.strip():
            if self.keeps_stored_value:
                return None  # keep what is stored
            if not value:
                raise ValidationError("Give a value: text, @(a, b) or %(key: value).")
        return value

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if data.get("value") is None and self.keeps_stored_value and not data.get("sensitive"):
            self.add_error("value", services.UNMASK_NEEDS_VALUE)
        return data


class PackageSearchForm(forms.Form):
    """Servers by a package they have installed (at a version older than, at least or exactly
    one), by operating system, or both."""

    name = forms.CharField(label="Package", required=False, max_length=200)
    test = forms.ChoiceField(
        label="Version", choices=selectors.VersionTest.choices, initial="older", required=False
    )
    version = forms.CharField(label="Compared with", required=False, max_length=200)
    system = forms.ChoiceField(label="Operating system", required=False)

    def __init__(self, *args, systems: list[str], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        system = self.fields["system"]
        assert isinstance(system, forms.ChoiceField)
        system.choices = [("", "any"), *((s, s) for s in systems)]

    def clean_test(self) -> str:
        """Left out, older; but given, one of the tests (the API's schema says so)."""
        if "test" in self.data and not self.data["test"]:
            choices = ", ".join(selectors.VersionTest.values)
            raise ValidationError(f"Choose one of {choices}, or leave the test out.")
        return self.cleaned_data["test"]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("version") and not data.get("name"):
            raise ValidationError("Name the package whose version is compared.")
        return data

    @property
    def searched(self) -> bool:
        return self.is_valid() and bool(self.cleaned_data["name"] or self.cleaned_data["system"])

    @property
    def version_test(self) -> selectors.VersionTest:
        return selectors.VersionTest(self.cleaned_data["test"] or selectors.VersionTest.OLDER)

    def packages(self, servers):
        """The packages of ``servers`` that the (valid) form asks for."""
        data = self.cleaned_data
        return selectors.find_packages(
            servers=servers,
            name=data["name"],
            test=self.version_test,
            version=data["version"].strip(),
            system=data["system"],
        )
