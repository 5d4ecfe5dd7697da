"""Inventory pages: environments (a tree), roles, servers and credentials, each listed, shown,
created, changed and deleted (after a confirmation that says what stands in the way); the
variables of each scope, and the global ones, added, changed and deleted on their page."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin, PermissionRequiredMixin
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Count, Model
from django.http import HttpRequest
from django.shortcuts import redirect
from django.urls import reverse
from django.views.generic import (
    CreateView,
    DetailView,
    ListView,
    TemplateView,
    UpdateView,
    View,
)
from django.views.generic.base import ContextMixin, TemplateResponseMixin
from django.views.generic.edit import ModelFormMixin

from engine import MASK, fingerprint, to_text
from otterweb.inventory import checks, selectors, services
from otterweb.inventory.forms import (
    CredentialForm,
    EnvironmentForm,
    PackageSearchForm,
    RoleForm,
    ServerForm,
    VariableForm,
    add_errors,
)
from otterweb.inventory.models import Credential, Environment, Remediation, Role, Server, Variable
from otterweb.privileges.checks import forget, visible
from otterweb.privileges.pages import (
    VisibleListMixin,
    VisibleObjectMixin,
    get_visible_or_404,
    narrow_choices,
    require,
)


def detail_url(obj) -> str:
    return reverse(f"{obj._meta.model_name}-detail", args=[obj.name])


def scope_url(variable: Variable) -> str:
    owner = variable.server or variable.environment or variable.role
    return (detail_url(owner) if owner else reverse("variable-list")) + "#variables"


def resolved_rows(server: Server) -> list[dict]:
    """Each variable ``server`` sees, for a table: sensitive values masked."""
    return [
        {
            "name": v.name,
            "shown": MASK if v.sensitive else to_text(v.value),
            "scope": v.scope,
            "shadowed": v.shadowed,
            "sensitive": v.sensitive,
        }
        for v in sorted(resolve(server), key=lambda v: v.name.casefold())
    ]


def resolve(server: Server):
    return selectors.resolve_variables(server=server).values()


class InventoryPage(LoginRequiredMixin, PermissionRequiredMixin):
    """Pages about one model, found by name; the permission is the model's ``action``. A page
    of one object takes VisibleObjectMixin as well (404 when the user may not see it, 403 when
    it may not do the action to it), a list VisibleListMixin (what the user may see)."""

    model: type[Model]
    action = "view"
    slug_field = slug_url_kwarg = "name"

    def get_permission_required(self) -> list[str]:
        opts = self.model._meta
        required = [f"{opts.app_label}.view_{opts.model_name}"]
        if self.action != "view":
            required.append(f"{opts.app_label}.{self.action}_{opts.model_name}")
        return required


# ---- variables, on the page of their scope


class VariablesMixin(TemplateResponseMixin, ContextMixin):
    """The variables of one scope on its page: a form to add one, a row changed in place
    (``?edit=<pk>``), a link to delete one. Shown with the view permission on variables;
    adding and changing need theirs."""

    scope = ""  # "server", "environment", "role"; "" for the global variables
    # the view's: the object of the scope (None: the global variables), found by get_object
    # (which only a page with a scope has)
    request: HttpRequest
    object: Model | None
    get_object: Callable[[], Model]

    def scope_lookup(self) -> dict:
        if self.scope:
            return {self.scope: self.object}
        return {"server": None, "environment": None, "role": None}

    def variable_scope(self) -> services.VariableScope:
        """Where a variable added here belongs."""
        owner = self.object if self.scope else None
        return services.VariableScope(
            server=owner if isinstance(owner, Server) else None,
            environment=owner if isinstance(owner, Environment) else None,
            role=owner if isinstance(owner, Role) else None,
        )

    def new_variable(self) -> Variable:
        """A variable of this scope, not saved: where one added here would be."""
        return Variable(**self.variable_scope())

    def variables_context(self, *, add_form=None, edit_form=None) -> dict:
        user = self.request.user
        if not user.has_perm("inventory.view_variable"):
            return {"variables_shown": False}
        editing = str(edit_form.variable.pk) if edit_form else self.request.GET.get("edit")
        rows = []
        for variable in visible(user, Variable.objects.filter(**self.scope_lookup())):
            form = None
            if str(variable.pk) == editing and user.has_perm("inventory.change_variable", variable):
                form = edit_form or VariableForm(variable=variable)
            rows.append(
                {
                    "variable": variable,
                    "form": form,
                    "shown": MASK if variable.sensitive else variable.value,
                }
            )
        if add_form is None and user.has_perm("inventory.add_variable", self.new_variable()):
            add_form = VariableForm(prefix="new")
        return {"variables_shown": True, "variable_rows": rows, "variable_form": add_form}

    def post(self, request, *args, **kwargs):
        self.object = self.get_object() if self.scope else None
        if not request.user.has_perm("inventory.view_variable"):
            raise PermissionDenied
        pk = request.POST.get("variable")
        if pk:
            variable = get_visible_or_404(
                request.user, Variable, "inventory.change_variable", pk=pk, **self.scope_lookup()
            )
            form = VariableForm(request.POST, variable=variable)
        else:
            variable = None
            if not request.user.has_perm("inventory.add_variable", self.new_variable()):
                raise PermissionDenied
            form = VariableForm(request.POST, prefix="new")
        if form.is_valid():
            data = form.cleaned_data
            try:
                if variable is None:
                    variable = services.add_variable(
                        name=data["name"],
                        value=data["value"],
                        sensitive=data["sensitive"],
                        **self.variable_scope(),
                    )
                    messages.success(request, f"Added the variable {variable.name}.")
                else:
                    variable = services.change_variable(
                        variable=variable,
                        name=data["name"],
                        value=data["value"],
                        sensitive=data["sensitive"],
                    )
                    messages.success(request, f"Saved the variable {variable.name}.")
                return redirect(scope_url(variable))
            except ValidationError as error:
                add_errors(form, error)
        forms = {"edit_form": form} if variable is not None else {"add_form": form}
        return self.render_to_response(self.get_context_data(variable_forms=forms))

    def get_context_data(self, **kwargs):
        forms = kwargs.pop("variable_forms", {})
        return {**super().get_context_data(**kwargs), **self.variables_context(**forms)}


class GlobalVariablesView(
    LoginRequiredMixin, PermissionRequiredMixin, VariablesMixin, TemplateView
):
    """Variables every server sees, unless a server, environment or role defines its own."""

    template_name = "inventory/variable_list.html"
    permission_required = "inventory.view_variable"


class VariableDeleteView(
    LoginRequiredMixin, PermissionRequiredMixin, VisibleObjectMixin, DetailView
):
    template_name = "inventory/variable_confirm_delete.html"
    permission_required = ["inventory.view_variable", "inventory.delete_variable"]
    queryset = Variable.objects.select_related("server", "environment", "role")

    def get_context_data(self, **kwargs):
        return {**super().get_context_data(**kwargs), "back": scope_url(self.object)}

    def post(self, request, pk: int):
        variable = self.get_object()
        back = scope_url(variable)
        services.delete_variable(variable=variable)
        messages.success(request, f"Deleted the variable {variable.name} ({variable.scope_label}).")
        return redirect(back)


# ---- lists


class EnvironmentListView(InventoryPage, TemplateView):
    model = Environment
    template_name = "inventory/environment_list.html"

    def get_context_data(self, **kwargs):
        tree = selectors.environment_tree(
            shown=set(
                visible(self.request.user, Environment.objects.all()).values_list("pk", flat=True)
            )
        )
        return {**super().get_context_data(**kwargs), "tree": tree}


class RoleListView(InventoryPage, VisibleListMixin, ListView):
    model = Role
    queryset = Role.objects.prefetch_related("dependencies", "servers")
    template_name = "inventory/role_list.html"


class ServerListView(InventoryPage, VisibleListMixin, ListView):
    model = Server
    queryset = Server.objects.select_related("credential").prefetch_related("roles", "environments")
    template_name = "inventory/server_list.html"


class CredentialListView(InventoryPage, VisibleListMixin, ListView):
    model = Credential
    queryset = Credential.objects.prefetch_related("environments", "servers")
    template_name = "inventory/credential_list.html"


# ---- details


class EnvironmentDetailView(InventoryPage, VisibleObjectMixin, VariablesMixin, DetailView):
    model = Environment
    object: Environment
    scope = "environment"
    queryset = Environment.objects.select_related("parent")
    template_name = "inventory/environment_detail.html"

    def get_context_data(self, **kwargs):
        environment = self.object
        return {
            **super().get_context_data(**kwargs),
            "tree": selectors.environment_tree(root=environment),
            "lineage": list(reversed(environment.lineage()[1:])),
            "servers": environment.servers.prefetch_related("roles"),
            "credentials": environment.credentials.all(),
        }


class RoleDetailView(InventoryPage, VisibleObjectMixin, VariablesMixin, DetailView):
    model = Role
    object: Role
    scope = "role"
    template_name = "inventory/role_detail.html"

    def get_context_data(self, **kwargs):
        role = self.object
        direct = list(role.dependencies.all())
        indirect = [r for r in selectors.role_dependencies(role=role) if r not in direct]
        return {
            **super().get_context_data(**kwargs),
            "dependencies": direct,
            "indirect_dependencies": indirect,
            "dependents": role.dependents.all(),
            "servers": role.servers.prefetch_related("environments"),
        }


class ServerDetailView(InventoryPage, VisibleObjectMixin, VariablesMixin, DetailView):
    model = Server
    object: Server
    scope = "server"
    queryset = Server.objects.select_related("credential", "configuration_state")
    template_name = "inventory/server_detail.html"

    def get_context_data(self, **kwargs):
        server, user = self.object, self.request.user
        context = super().get_context_data(**kwargs)
        context.update(
            environments=server.environments.all(),
            roles=server.roles.all(),
            host_keys=[(key.split()[0], fingerprint(key)) for key in server.trusted_host_keys()],
            pending_fingerprint=(
                fingerprint(server.pending_host_key) if server.pending_host_key else None
            ),
            facts=fact_rows(server),
            package_counts=dict(
                server.packages.values_list("manager").annotate(Count("pk")).order_by("manager")
            ),
        )
        if user.has_perm("inventory.view_variable", server):
            context["resolved"] = resolved_rows(server)
        for part in SERVER_PAGE_PARTS:
            context.update(part(user=user, server=server))
        return context


def fact_rows(server: Server) -> list[tuple[str, str]]:
    """What the server check found ``server`` to be, as (what, value) rows for people."""
    facts = server.facts
    rows = []
    if facts.get("architecture"):
        rows.append(("Architecture", facts["architecture"]))
    if facts.get("cpus"):
        rows.append(("CPUs", str(facts["cpus"])))
    if facts.get("memory_mb"):
        rows.append(("Memory", f"{facts['memory_mb'] / 1024:.1f} GiB"))
    if facts.get("addresses"):
        rows.append(("Addresses", ", ".join(facts["addresses"])))
    for disk in facts.get("disks", []):
        size, used = disk["size_kb"], disk["used_kb"]
        share = f", {used / size:.0%} used" if size else ""
        rows.append((f"Disk {disk['mount']}", f"{size / 1024 / 1024:.1f} GiB{share}"))
    return rows


# What other apps show on a server's page, each a callable(user=, server=) giving context
# (executions: the server's recent executions, and whom runs on the local server act as),
# added from their AppConfig.ready: inventory imports none of them.
SERVER_PAGE_PARTS: list[Callable[..., dict]] = []


class ServerSshAction(InventoryPage, View):
    """A button of the server page that contacts the server or changes which keys it trusts:
    a POST, answered with the server page and a message."""

    model = Server
    action = "change"

    def act(self, server: Server, data) -> str:
        """Do what the button says; the message that says it is done (ValidationError: why
        not)."""
        raise NotImplementedError

    def post(self, request, name):
        server = get_visible_or_404(request.user, Server, "inventory.change_server", name=name)
        try:
            message = self.act(server, request.POST)
        except ValidationError as error:
            for text in error.messages:
                messages.error(request, text)
        else:
            messages.success(request, message)
        return redirect("server-detail", name=server.name)


class ServerReachabilityCheckView(ServerSshAction):
    def act(self, server: Server, data) -> str:
        server = checks.check_server(server)
        if server.reachable:
            return f"{server.name} answered in {server.latency_ms:.0f} ms."
        raise ValidationError(f"{server.name} did not answer: {server.check_error}")


class ServerTrustHostKeyView(ServerSshAction):
    def act(self, server: Server, data) -> str:
        checks.trust_host_key(server=server, fingerprint_seen=data.get("fingerprint", ""))
        return f"The host key of {server.name} is trusted now."


class ServerForgetHostKeysView(ServerSshAction):
    def act(self, server: Server, data) -> str:
        checks.forget_host_keys(server=server)
        return f"{server.name}'s host keys are forgotten: check it to see the key it offers."


class CredentialDetailView(InventoryPage, VisibleObjectMixin, DetailView):
    model = Credential
    template_name = "inventory/credential_detail.html"

    def get_context_data(self, **kwargs):
        return {
            **super().get_context_data(**kwargs),
            "servers": self.object.servers.all(),
            "environments": self.object.environments.all(),
        }


class ServerVariablesView(LoginRequiredMixin, PermissionRequiredMixin, TemplateView):
    """Each variable a server sees, its value (sensitive ones masked) and the scope it came from."""

    template_name = "inventory/server_variables.html"
    permission_required = ["inventory.view_server", "inventory.view_variable"]

    def get_context_data(self, **kwargs):
        server = get_visible_or_404(
            self.request.user, Server, "inventory.view_variable", name=kwargs["name"]
        )
        return {
            **super().get_context_data(**kwargs),
            "server": server,
            "variables": resolved_rows(server),
        }


class ServerPackagesView(InventoryPage, VisibleObjectMixin, DetailView):
    """The packages installed on a server, as last collected, filtered by a part of the name."""

    model = Server
    object: Server
    template_name = "inventory/server_packages.html"

    def get_context_data(self, **kwargs):
        contains = self.request.GET.get("q", "").strip()[:200]
        packages = self.object.packages.all()
        if contains:
            packages = packages.filter(name__icontains=contains)
        return {**super().get_context_data(**kwargs), "packages": packages, "q": contains}


class PackageSearchView(InventoryPage, TemplateView):
    """Servers by what they have installed and by operating system, among those the user may
    see."""

    model = Server
    template_name = "inventory/package_search.html"

    def get_context_data(self, **kwargs):
        servers = visible(self.request.user, Server.objects.all())
        form = PackageSearchForm(
            self.request.GET or None, systems=selectors.operating_systems(servers=servers)
        )
        context = {**super().get_context_data(**kwargs), "form": form}
        if form.searched:
            data = form.cleaned_data
            if data["name"]:
                context["test_label"] = form.version_test.label
                context["packages"] = form.packages(servers)
            else:
                context["servers"] = selectors.servers_running(
                    servers=servers, system=data["system"]
                )
        return context


# ---- create and change


class SaveMixin(ModelFormMixin):
    """A ModelForm checks the input; the model's service saves it (and may refuse)."""

    template_name: str | None = "inventory/form.html"
    object: Model | None  # as saved (None on a create page until it is)
    save: Callable[[Any, dict[str, Any]], Model]  # save_<model>, with the form and its data
    # the view's, and InventoryPage's (before this one in the view's bases)
    request: HttpRequest
    action: str
    get_permission_required: Callable[[], Sequence[str]]

    def get_form_kwargs(self):
        kwargs = super().get_form_kwargs()
        if kwargs.get("instance") is not None and kwargs["instance"].pk:
            # the form changes its instance as it checks: keep self.object as it is stored
            kwargs["instance"] = self.model.objects.get(pk=kwargs["instance"].pk)
        return kwargs

    def get_form(self, form_class=None):
        return narrow_choices(super().get_form(form_class), self.request.user)

    def form_valid(self, form):
        try:
            with transaction.atomic():
                self.object = self.save(form, form.cleaned_data)
                # as saved: a server moved into an environment outside the user's privileges,
                # or made there, is refused
                forget(self.request.user)
                require(self.request.user, self.object, *self.get_permission_required())
        except ValidationError as error:
            add_errors(form, error)
            return self.form_invalid(form)
        verb = "Saved" if self.action == "change" else "Created"
        messages.success(self.request, f"{verb} the {self.model._meta.verbose_name} {self.object}.")
        return redirect(detail_url(self.object))

    def form_invalid(self, form):
        if hasattr(form, "render_secrets_empty"):
            form.render_secrets_empty()
        return super().form_invalid(form)

    def get_context_data(self, **kwargs):
        return {
            **super().get_context_data(**kwargs),
            "opts": self.model._meta,
            "list_url": reverse(f"{self.model._meta.model_name}-list"),
        }


def save_environment(form, data):
    return services.save_environment(
        environment=form.instance,
        name=data["name"],
        description=data["description"],
        parent=data["parent"],
    )


def save_role(form, data):
    return services.save_role(
        role=form.instance,
        name=data["name"],
        description=data["description"],
        dependencies=data["dependencies"],
        configuration=data["configuration"],
        remediation=data["remediation"] or Remediation.REPORT,
    )


def save_server(form, data):
    return services.save_server(
        server=form.instance,
        name=data["name"],
        host=data["host"],
        port=data["port"],
        agent_type=data["agent_type"],
        active=data["active"],
        credential=data["credential"],
        user=data["user"],
        sudo=data["sudo"],
        host_keys=data["host_keys"],
        roles=data["roles"],
        environments=data["environments"],
        description=data["description"],
        remediation=data["remediation"],
    )


def save_credential(form, data):
    return services.save_credential(
        credential=form.instance,
        name=data["name"],
        kind=data["kind"],
        username=data["username"],
        secret=data["new_secret"],
        passphrase=data["new_passphrase"],
        environments=list(data["environments"]),
        description=data["description"],
    )


class EnvironmentCreateView(InventoryPage, SaveMixin, CreateView):
    model, form_class, action, save = (
        Environment,
        EnvironmentForm,
        "add",
        staticmethod(save_environment),
    )


class EnvironmentChangeView(InventoryPage, VisibleObjectMixin, SaveMixin, UpdateView):
    model, form_class, action, save = (
        Environment,
        EnvironmentForm,
        "change",
        staticmethod(save_environment),
    )


class RoleCreateView(InventoryPage, SaveMixin, CreateView):
    model, form_class, action, save = Role, RoleForm, "add", staticmethod(save_role)


class RoleChangeView(InventoryPage, VisibleObjectMixin, SaveMixin, UpdateView):
    model, form_class, action, save = Role, RoleForm, "change", staticmethod(save_role)


class ServerCreateView(InventoryPage, SaveMixin, CreateView):
    model, form_class, action, save = Server, ServerForm, "add", staticmethod(save_server)


class ServerChangeView(InventoryPage, VisibleObjectMixin, SaveMixin, UpdateView):
    model, form_class, action, save = Server, ServerForm, "change", staticmethod(save_server)


class CredentialCreateView(InventoryPage, SaveMixin, CreateView):
    model, form_class, action, save = (
        Credential,
        CredentialForm,
        "add",
        staticmethod(save_credential),
    )


class CredentialChangeView(InventoryPage, VisibleObjectMixin, SaveMixin, UpdateView):
    model, form_class, action, save = (
        Credential,
        CredentialForm,
        "change",
        staticmethod(save_credential),
    )


# ---- delete


class DeleteView(InventoryPage, VisibleObjectMixin, DetailView):
    """Asks first, and says what stands in the way (then offers no button) or what goes with it."""

    action = "delete"
    template_name = "inventory/confirm_delete.html"
    # services.delete_<model>, given the object by its model's name
    delete_service: Callable[..., None]

    def get_context_data(self, **kwargs):
        obj = self.object
        return {
            **super().get_context_data(**kwargs),
            "opts": obj._meta,
            "blockers": kwargs.get("blockers", selectors.deletion_blockers(obj=obj)),
            "consequences": selectors.deletion_consequences(obj=obj),
            "list_url": reverse(f"{obj._meta.model_name}-list"),
        }

    def post(self, request, *args, **kwargs):
        self.object = obj = self.get_object()
        label = f"{obj._meta.verbose_name} {obj}"
        try:
            self.delete_service(**{obj._meta.model_name: obj})
        except ValidationError as error:
            context = self.get_context_data(object=obj, blockers=error.messages)
            return self.render_to_response(context, status=409)
        messages.success(request, f"Deleted the {label}.")
        return redirect(f"{obj._meta.model_name}-list")


class EnvironmentDeleteView(DeleteView):
    model, delete_service = Environment, staticmethod(services.delete_environment)


class RoleDeleteView(DeleteView):
    model, delete_service = Role, staticmethod(services.delete_role)


class ServerDeleteView(DeleteView):
    model, delete_service = Server, staticmethod(services.delete_server)


class CredentialDeleteView(DeleteView):
    model, delete_service = Credential, staticmethod(services.delete_credential)
