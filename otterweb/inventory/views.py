from django.contrib.auth.mixins import LoginRequiredMixin, PermissionRequiredMixin
from django.shortcuts import get_object_or_404
from django.views.generic import TemplateView

from engine.values import to_text
from otterweb.inventory.admin import MASK
from otterweb.inventory.models import Server
from otterweb.inventory.selectors import resolve_variables


class ServerVariablesView(LoginRequiredMixin, PermissionRequiredMixin, TemplateView):
    """Each variable a server sees, its value (sensitive ones masked) and the scope it came from."""

    template_name = "inventory/server_variables.html"
    permission_required = ["inventory.view_server", "inventory.view_variable"]

    def get_context_data(self, **kwargs):
        server = get_object_or_404(Server, name=kwargs["name"])
        variables = [
            {
                "name": v.name,
                "shown": MASK if v.sensitive else to_text(v.value),
                "scope": v.scope,
                "shadowed": v.shadowed,
            }
            for v in sorted(
                resolve_variables(server=server).values(), key=lambda v: v.name.casefold()
            )
        ]
        return {**super().get_context_data(**kwargs), "server": server, "variables": variables}
