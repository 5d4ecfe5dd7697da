from django import forms
from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from otterweb.inventory import services
from otterweb.inventory.models import Credential, Environment, Role, Server, Variable

MASK = "********"


class VariableInline(admin.TabularInline):
    model = Variable
    fields = ["name", "value", "sensitive"]
    extra = 0


@admin.register(Environment)
class EnvironmentAdmin(admin.ModelAdmin):
    list_display = ["name", "parent", "description", "updated"]
    list_filter = ["parent"]
    search_fields = ["name", "description"]
    readonly_fields = ["created", "updated"]
    inlines = [VariableInline]


@admin.register(Role)
class RoleAdmin(admin.ModelAdmin):
    list_display = ["name", "description", "updated"]
    search_fields = ["name", "description"]
    filter_horizontal = ["dependencies"]
    readonly_fields = ["created", "updated"]
    inlines = [VariableInline]


@admin.register(Server)
class ServerAdmin(admin.ModelAdmin):
    list_display = ["name", "address", "agent_type", "active", "credential", "variables_link"]
    list_filter = ["active", "agent_type", "roles", "environments"]
    search_fields = ["name", "host", "description"]
    filter_horizontal = ["roles", "environments"]
    readonly_fields = ["created", "updated"]
    inlines = [VariableInline]

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

    class Meta:
        model = Credential
        fields = ["name", "kind", "username", "environments", "description"]


@admin.register(Credential)
class CredentialAdmin(admin.ModelAdmin):
    form = CredentialForm
    list_display = ["name", "kind", "username", "has_secret", "updated"]
    list_filter = ["kind", "environments"]
    search_fields = ["name", "username", "description"]
    filter_horizontal = ["environments"]
    readonly_fields = ["created", "updated"]

    @admin.display(boolean=True, description="Secret stored")
    def has_secret(self, credential: Credential) -> bool:
        return credential.has_secret

    def save_model(self, request, obj, form, change) -> None:
        secret = form.cleaned_data.get("secret") or None
        if secret is not None:
            obj.set_secret(secret)
        super().save_model(request, obj, form, change)


class VariableForm(forms.ModelForm):
    class Meta:
        model = Variable
        fields = ["name", "value", "sensitive", "server", "environment", "role"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk and self.instance.sensitive:
            self.initial["value"] = ""
            self.fields["value"].required = False
            self.fields[
                "value"
            ].help_text = "Sensitive: the stored value is not shown. Leave empty to keep it."

    def clean(self):
        data = super().clean()
        if self.instance.pk and self.instance.sensitive and not data.get("value"):
            data["value"] = self.instance.value
        services.validate_literal(data.get("value") or "")
        return data


@admin.register(Variable)
class VariableAdmin(admin.ModelAdmin):
    form = VariableForm
    list_display = ["name", "shown_value", "scope_label", "sensitive", "updated"]
    list_filter = ["sensitive", "server", "environment", "role"]
    search_fields = ["name", "value"]
    readonly_fields = ["created", "updated"]

    @admin.display(description="Value")
    def shown_value(self, variable: Variable) -> str:
        return MASK if variable.sensitive else variable.value
