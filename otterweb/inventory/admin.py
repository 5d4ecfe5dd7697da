from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils.html import format_html

from engine import MASK, fingerprint
from otterweb.inventory import checks, services
from otterweb.inventory.forms import KEEP_SENSITIVE, add_errors
from otterweb.inventory.models import (
    SERVER_CHECK_FIELDS,
    Credential,
    Environment,
    Role,
    Server,
    Variable,
)

SCOPES = ("server", "environment", "role")


class CheckedByServices(forms.ModelForm):
    """An admin form that the services check (``check``) as they would a save, each refusal
    beside its field; the model's own checks run only when those pass, so none is said twice."""

    def check(self, data: dict) -> None:
        raise NotImplementedError

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        try:
            self.check(data)
        except ValidationError as error:
            add_errors(self, error)
        return data

    def _post_clean(self) -> None:
        if not self.errors:
            super()._post_clean()  # type: ignore[misc]  # private, missing from the stubs


class ThroughServices(admin.ModelAdmin):
    """An admin that writes through the services: ``save`` (services.save_<model>) is given the
    object by its model's name and the form's fields, the many-to-many ones included (the form
    does not set them again), and ``delete`` (services.delete_<model>) the object."""

    save: Callable[..., object]
    delete: Callable[..., None]

    def save_model(self, request, obj, form, change) -> None:
        self.save(**{obj._meta.model_name: obj}, **form.cleaned_data)

    def save_related(self, request, form, formsets, change) -> None:
        for formset in formsets:
            self.save_formset(request, form, formset, change=change)

    def delete_model(self, request, obj) -> None:
        self.delete(**{obj._meta.model_name: obj})

    def delete_queryset(self, request, queryset) -> None:
        for obj in queryset:
            self.delete_model(request, obj)


class VariableInlineForm(forms.ModelForm):
    """A row of the inline: a stored sensitive value is never put back in the page; empty keeps it."""

    class Meta:
        model = Variable
        fields = ["name", "value", "sensitive"]
        widgets = {"value": forms.Textarea(attrs={"rows": 2, "cols": 40})}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        hide_sensitive_value(self, placeholder="Sensitive: leave empty to keep")

    def clean(self) -> dict[str, Any]:
        super().clean()
        keep_stored_value(self, self.cleaned_data)
        return self.cleaned_data


def keep_stored_value(form: forms.ModelForm, data: dict) -> None:
    """A sensitive value's field left empty keeps the stored value (the page never had it);
    unless the variable is made ordinary, which needs its value typed again."""
    if form.instance.pk and form.instance.sensitive and not data.get("value"):
        if data.get("sensitive"):
            data["value"] = form.instance.literal()
        elif "value" in form.fields:
            form.add_error("value", services.UNMASK_NEEDS_VALUE)


def hide_sensitive_value(form: forms.ModelForm, *, placeholder: str) -> None:
    """A variable's value field: required, except that a stored sensitive value is never put in
    the page and leaving the field empty keeps it. (Someone who may only view has no field.)"""
    field = form.fields.get("value")
    if field is None:
        return
    field.required = True
    if form.instance.pk and form.instance.sensitive:
        form.initial["value"] = ""
        field.required = False
        field.help_text = KEEP_SENSITIVE
        field.widget.attrs["placeholder"] = placeholder


class MaskedValueForViewers(admin.options.BaseModelAdmin):
    """Someone who may only view sees a variable's value through ``shown_value``: the mask for a
    sensitive one (never its value, and never the empty column it is stored beside)."""

    def get_fields(self, request, obj=None):
        fields = list(super().get_fields(request, obj))
        if not self.has_change_permission(request, obj):
            fields = ["shown_value" if field == "value" else field for field in fields]
        return fields

    def get_readonly_fields(self, request, obj=None):
        fields = list(super().get_readonly_fields(request, obj))
        return fields if self.has_change_permission(request, obj) else [*fields, "shown_value"]

    @admin.display(description="Value")
    def shown_value(self, variable: Variable) -> str:
        return MASK if variable.sensitive else variable.value


class VariableInlineFormSet(forms.BaseInlineFormSet):
    """The variables of a server, environment or role, saved through the services like every
    other path, with their checks made before anything is saved, each beside its row."""

    def clean(self) -> None:
        super().clean()
        scope = {self.fk.name: self.instance} if self.instance.pk else {}
        seen: set[str] = set()
        for form in self.forms:
            if not hasattr(form, "cleaned_data"):
                continue
            # private, missing from the stubs
            if self._should_delete_form(form):  # type: ignore[attr-defined]
                continue
            if not form.has_changed() and not form.instance.pk:
                continue
            data = form.cleaned_data
            name = (data.get("name") or "").strip().lstrip("$@%")
            try:
                if scope:  # a new parent has no variables to clash with yet
                    services.validate_variable(
                        name=name, value=data.get("value") or "", variable=form.instance, **scope
                    )
                else:
                    services.validate_literal(data.get("value") or "")
            except ValidationError as error:
                add_errors(
                    form,
                    error if hasattr(error, "error_dict") else ValidationError({"value": error}),
                )
            if name.casefold() in seen:
                form.add_error("name", "Another row has a variable of that name.")
            seen.add(name.casefold())

    def save(self, commit: bool = True) -> list[Variable]:
        scope = {self.fk.name: self.instance}
        self.new_objects, self.changed_objects, self.deleted_objects = [], [], []
        for form in self.deleted_forms:
            if form.instance.pk:
                services.delete_variable(variable=form.instance)
                self.deleted_objects.append(form.instance)
        for form in self.forms:
            if form in self.deleted_forms or not form.has_changed():
                continue
            data = form.cleaned_data
            if form.instance.pk:
                variable = services.change_variable(
                    variable=form.instance,
                    name=data["name"],
                    value=data["value"],
                    sensitive=data["sensitive"],
                )
                self.changed_objects.append((variable, form.changed_data))
            else:
                variable = services.add_variable(
                    name=data["name"], value=data["value"], sensitive=data["sensitive"], **scope
                )
                self.new_objects.append(variable)
        return self.new_objects + [variable for variable, _fields in self.changed_objects]


class VariableInline(MaskedValueForViewers, admin.TabularInline):
    model = Variable
    form = VariableInlineForm
    formset = VariableInlineFormSet
    fields = ["name", "value", "sensitive"]
    extra = 0


class EnvironmentForm(CheckedByServices):
    class Meta:
        model = Environment
        fields = ["name", "description", "parent"]

    def check(self, data: dict) -> None:
        services.validate_environment(
            environment=self.instance, name=data.get("name") or "", parent=data.get("parent")
        )


@admin.register(Environment)
class EnvironmentAdmin(ThroughServices, admin.ModelAdmin):
    form = EnvironmentForm
    save = staticmethod(services.save_environment)
    delete = staticmethod(services.delete_environment)
    list_display = ["name", "parent", "description", "updated"]
    list_filter = ["parent"]
    search_fields = ["name", "description"]
    readonly_fields = ["created", "updated"]
    inlines = [VariableInline]


class RoleForm(CheckedByServices):
    class Meta:
        model = Role
        fields = ["name", "description", "dependencies"]

    def check(self, data: dict) -> None:
        services.validate_role(
            role=self.instance,
            name=data.get("name") or "",
            dependencies=data.get("dependencies") or [],
        )


@admin.register(Role)
class RoleAdmin(ThroughServices, admin.ModelAdmin):
    form = RoleForm
    save = staticmethod(services.save_role)
    delete = staticmethod(services.delete_role)
    list_display = ["name", "description", "updated"]
    search_fields = ["name", "description"]
    filter_horizontal = ["dependencies"]
    readonly_fields = ["created", "updated"]
    inlines = [VariableInline]


@admin.register(Server)
class ServerAdmin(ThroughServices, admin.ModelAdmin):
    save = staticmethod(services.save_server)
    delete = staticmethod(services.delete_server)
    list_display = [
        "name",
        "address",
        "agent_type",
        "active",
        "credential",
        "reachable",
        "latency_ms",
        "last_seen",
        "variables_link",
    ]
    list_filter = ["active", "agent_type", "reachable", "roles", "environments"]
    search_fields = ["name", "host", "description"]
    filter_horizontal = ["roles", "environments"]
    readonly_fields = ["pending_host_key", *SERVER_CHECK_FIELDS, "created", "updated"]
    inlines = [VariableInline]
    actions = ["check_now", "trust_pending_host_key"]

    @admin.action(description="Check now", permissions=["change"])
    def check_now(self, request, queryset) -> None:
        checks.check_servers(queryset.select_related("credential"))
        reached = queryset.filter(reachable=True).count()
        self.message_user(request, f"Checked {queryset.count()}: {reached} reachable.")

    @admin.action(description="Trust the pending host key", permissions=["change"])
    def trust_pending_host_key(self, request, queryset) -> None:
        trusted = []
        for server in queryset.exclude(pending_host_key=""):
            checks.trust_host_key(
                server=server, fingerprint_seen=fingerprint(server.pending_host_key)
            )
            trusted.append(server.name)
        self.message_user(
            request,
            f"Trusted the pending host key of {', '.join(trusted)}."
            if trusted
            else "None of them has a host key waiting to be trusted.",
        )

    @admin.display(description="Variables it sees")
    def variables_link(self, server: Server) -> str:
        return format_html(
            '<a href="{}">explain</a>', reverse("server-variables-page", args=[server.name])
        )


class CredentialForm(forms.ModelForm):
    secret = forms.CharField(
        required=False,
        widget=forms.PasswordInput(render_value=False),
        help_text="Write-only: leave empty to keep the stored secret. A private key may be pasted here.",
    )
    passphrase = forms.CharField(
        required=False,
        widget=forms.PasswordInput(render_value=False),
        help_text="Write-only: a private key's passphrase. Leave empty to keep the stored one.",
    )

    class Meta:
        model = Credential
        fields = ["name", "kind", "username", "environments", "description"]


@admin.register(Credential)
class CredentialAdmin(ThroughServices, admin.ModelAdmin):
    form = CredentialForm
    delete = staticmethod(services.delete_credential)
    list_display = ["name", "kind", "username", "has_secret", "updated"]
    list_filter = ["kind", "environments"]
    search_fields = ["name", "username", "description"]
    filter_horizontal = ["environments"]
    readonly_fields = ["created", "updated"]

    @admin.display(boolean=True, description="Secret stored")
    def has_secret(self, credential: Credential) -> bool:
        return credential.has_secret

    # Staff who may only view get every form field as a read-only one, whose value the admin
    # looks up on the admin before the object: these keep it from calling Credential.secret()
    # and Credential.passphrase(), which decrypt. Nobody sees a stored secret in the admin.
    @admin.display(description="Secret")
    def secret(self, credential: Credential) -> str:
        return MASK if credential.has_secret else ""

    @admin.display(description="Passphrase")
    def passphrase(self, credential: Credential) -> str:
        return MASK if credential.has_passphrase else ""

    def save_model(self, request, obj, form, change) -> None:
        data = form.cleaned_data
        services.save_credential(
            credential=obj,
            name=data["name"],
            kind=data["kind"],
            username=data["username"],
            secret=data.get("secret") or None,
            passphrase=data.get("passphrase") or None,
            environments=list(data["environments"]),
            description=data["description"],
        )


class VariableForm(CheckedByServices):
    class Meta:
        model = Variable
        fields = ["name", "value", "sensitive", "server", "environment", "role"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        hide_sensitive_value(self, placeholder="(stored, not shown)")

    def check(self, data: dict) -> None:
        """The value, the name already used, the scope chosen twice."""
        keep_stored_value(self, data)
        services.validate_variable(
            name=data.get("name") or "",
            value=data.get("value") or "",
            variable=self.instance,
            **{key: data.get(key) for key in SCOPES},
        )


@admin.register(Variable)
class VariableAdmin(ThroughServices, MaskedValueForViewers, admin.ModelAdmin):
    form = VariableForm
    delete = staticmethod(services.delete_variable)
    list_display = ["name", "shown_value", "scope_label", "sensitive", "updated"]
    list_filter = ["sensitive", "server", "environment", "role"]
    # a sensitive value is encrypted, its `value` column empty: searching never finds it (no
    # oracle that guesses it a character at a time)
    search_fields = ["name", "value"]
    readonly_fields = ["created", "updated"]

    def save_model(self, request, obj, form, change) -> None:
        data = form.cleaned_data
        scope = services.VariableScope(
            server=data["server"], environment=data["environment"], role=data["role"]
        )
        if change:  # a change of scope is the admin's alone: the pages move no variable
            services.change_variable(
                variable=obj,
                name=data["name"],
                value=data["value"],
                sensitive=data["sensitive"],
                scope=scope,
            )
        else:
            obj.pk = services.add_variable(
                name=data["name"], value=data["value"], sensitive=data["sensitive"], **scope
            ).pk
