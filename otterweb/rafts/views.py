"""Raft pages: the rafts and their items, and an item's editor with save and run."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin, PermissionRequiredMixin
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect
from django.views.generic import ListView, TemplateView

from otterweb.executions.models import Mode
from otterweb.executions.services import create_job
from otterweb.inventory.models import Environment, Role, Server
from otterweb.rafts import services
from otterweb.rafts.models import Raft, RaftItem


class RaftListView(LoginRequiredMixin, PermissionRequiredMixin, ListView):
    permission_required = "rafts.view_raft"
    template_name = "rafts/list.html"
    queryset = Raft.objects.prefetch_related("items")


class SaveForm(forms.Form):
    content = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 24, "spellcheck": "false"}),
        required=False,
        strip=False,
    )
    message = forms.CharField(required=False, max_length=500)


class RunForm(forms.Form):
    servers = forms.ModelMultipleChoiceField(
        Server.objects.filter(active=True), required=False, to_field_name="name"
    )
    roles = forms.ModelMultipleChoiceField(Role.objects.all(), required=False, to_field_name="name")
    environments = forms.ModelMultipleChoiceField(
        Environment.objects.all(), required=False, to_field_name="name"
    )
    mode = forms.ChoiceField(choices=Mode.choices, initial=Mode.EXECUTE)
    simulate = forms.BooleanField(required=False)


class RaftItemView(LoginRequiredMixin, PermissionRequiredMixin, TemplateView):
    permission_required = "rafts.view_raftitem"
    template_name = "rafts/item.html"

    def item(self) -> RaftItem:
        return get_object_or_404(
            RaftItem.objects.select_related("raft"),
            raft__name=self.kwargs["raft"],
            name=self.kwargs["name"],
        )

    def get_context_data(self, **kwargs):
        item = self.item()
        return {
            **super().get_context_data(**kwargs),
            "item": item,
            "save_form": kwargs.get("save_form") or SaveForm(initial={"content": item.content}),
            "run_form": kwargs.get("run_form") or RunForm(),
            "versions": item.versions.select_related("author")[:20],
        }

    def post(self, request, *args, **kwargs):
        item = self.item()
        if "run" in request.POST:
            return self.run(request, item)
        if not request.user.has_perm("rafts.change_raftitem"):
            return self.handle_no_permission()
        form = SaveForm(request.POST)
        if form.is_valid():
            try:
                services.save_item(raft=item.raft, name=item.name, content=form.cleaned_data["content"], kind=item.kind,
                                   author=request.user, message=form.cleaned_data["message"])  # fmt: skip
                messages.success(request, f"Saved {item}.")
                return redirect(request.path)
            except ValidationError as error:
                form.add_error("content", error)
        return self.render_to_response(self.get_context_data(save_form=form))

    def run(self, request, item: RaftItem):
        if not request.user.has_perm("executions.add_execution"):
            return self.handle_no_permission()
        form = RunForm(request.POST)
        if form.is_valid():
            data = form.cleaned_data
            try:
                execution = create_job(
                    requested_by=request.user, raft_item=item, name=str(item), servers=[s.name for s in data["servers"]],
                    roles=[r.name for r in data["roles"]], environments=[e.name for e in data["environments"]],
                    mode=data["mode"], simulate=data["simulate"],
                )  # fmt: skip
                return redirect("execution-detail", pk=execution.pk)
            except ValidationError as error:
                form.add_error(None, error)
        return self.render_to_response(self.get_context_data(run_form=form))
