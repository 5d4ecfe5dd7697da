"""Raft pages: the rafts, a raft's items, and an item's editor with save and run, its versions,
their differences and restore. Every change goes through the services. The item page's Run also
answers in JSON (``Accept: application/json``), for the page's script that runs without leaving
the page and opens the live log beside the editor."""

from __future__ import annotations

from itertools import pairwise

from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin, PermissionRequiredMixin
from django.core.exceptions import ValidationError
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.views import View
from django.views.generic import FormView, ListView, TemplateView

from otterweb.api.error_body import error_body, error_response, first_message
from otterweb.api.errors import ScriptError
from otterweb.executions import services as executions
from otterweb.privileges.checks import may_everywhere, visible
from otterweb.privileges.pages import get_visible_or_404
from otterweb.rafts import selectors, services
from otterweb.rafts.forms import (
    CompareForm,
    EditorForm,
    ItemCreateForm,
    ItemRenameForm,
    RaftForm,
    add_errors,
)
from otterweb.rafts.models import Raft, RaftItem


class PageMixin(LoginRequiredMixin, PermissionRequiredMixin):
    """A signed-in user with ``permission_required``; the raft (and item) of the URL."""

    def raft(self) -> Raft:
        return get_visible_or_404(
            self.request.user, Raft, *self.get_permission_required(), name=self.kwargs["raft"]
        )

    def item(self) -> RaftItem:
        return get_visible_or_404(
            self.request.user,
            RaftItem.objects.select_related("raft"),
            *self.get_permission_required(),
            raft__name=self.kwargs["raft"],
            name=self.kwargs["name"],
        )


class ServiceFormView(PageMixin, FormView):
    """A form whose valid data goes to a service (``perform``, which returns where to go
    next); the service's refusal is shown beside the fields it names, the input kept."""

    def perform(self, form):
        raise NotImplementedError

    def form_valid(self, form):
        try:
            return redirect(self.perform(form))
        except ValidationError as error:
            add_errors(form, error)
            return self.form_invalid(form)


class RaftListView(PageMixin, ListView):
    permission_required = "rafts.view_raft"
    template_name = "rafts/list.html"

    def get_queryset(self):
        return visible(self.request.user, selectors.rafts_with_counts())


class RaftCreateView(ServiceFormView):
    permission_required = "rafts.add_raft"
    template_name = "rafts/raft_form.html"
    form_class = RaftForm

    def has_permission(self) -> bool:
        return may_everywhere(self.request.user, "rafts.add_raft")

    def perform(self, form):
        raft = services.create_raft(**form.cleaned_data)
        messages.success(self.request, f"Created the raft {raft}.")
        return reverse("raft-detail", args=[raft.name])


class RaftEditView(ServiceFormView):
    permission_required = "rafts.change_raft"
    template_name = "rafts/raft_form.html"
    form_class = RaftForm

    def get_initial(self):
        self.object = self.raft()
        return {"name": self.object.name, "description": self.object.description}

    def get_context_data(self, **kwargs):
        return {**super().get_context_data(**kwargs), "raft": self.object}

    def perform(self, form):
        old_name = self.object.name
        raft = services.update_raft(raft=self.object, **form.cleaned_data)
        if raft.name != old_name:
            messages.success(
                self.request,
                f"Renamed the raft {old_name} to {raft}. Scripts that name {old_name}:: "
                "must be changed to match.",
            )
        else:
            messages.success(self.request, f"Saved the raft {raft}.")
        return reverse("raft-detail", args=[raft.name])


class RaftDetailView(PageMixin, TemplateView):
    permission_required = "rafts.view_raft"
    template_name = "rafts/raft.html"

    def get_context_data(self, **kwargs):
        raft = self.raft()
        return {
            **super().get_context_data(**kwargs),
            "raft": raft,
            "items": selectors.raft_items(raft=raft),
        }


class RaftDeleteView(PageMixin, TemplateView):
    """Asks first, and says what goes with the raft or why it can't go."""

    permission_required = "rafts.delete_raft"
    template_name = "rafts/raft_delete.html"

    def get_context_data(self, **kwargs):
        raft = self.raft()
        return {
            **super().get_context_data(**kwargs),
            "raft": raft,
            "item_count": selectors.raft_item_count(raft=raft),
            "templates": selectors.job_templates_of(items=raft.items.all()),
        }

    def post(self, request, *args, **kwargs):
        raft = self.raft()
        try:
            count = services.delete_raft(raft=raft)
        except ValidationError as error:
            return self.render_to_response(self.get_context_data(errors=error.messages))
        messages.success(
            request, f"Deleted the raft {raft} and its {count} item{'s' * (count != 1)}."
        )
        return redirect("raft-list")


class ItemCreateView(ServiceFormView):
    permission_required = "rafts.add_raftitem"
    template_name = "rafts/item_create.html"
    form_class = ItemCreateForm

    def get_context_data(self, **kwargs):
        return {**super().get_context_data(**kwargs), "raft": self.raft()}

    def get_initial(self):
        return {"kind": self.request.GET.get("kind", RaftItem.Kind.SCRIPT)}

    def perform(self, form):
        item = services.create_item(raft=self.raft(), author=self.request.user, **form.cleaned_data)
        messages.success(self.request, f"Created {item.get_kind_display().lower()} {item}.")
        return reverse("raft-item", args=[item.raft.name, item.name])


class RaftItemView(PageMixin, TemplateView):
    """The editor: Save makes a version; Run saves what is on screen, then runs it."""

    permission_required = "rafts.view_raftitem"
    template_name = "rafts/item.html"

    def get_context_data(self, **kwargs):
        item = kwargs.pop("item", None) or self.item()
        user = self.request.user
        editable = user.has_perm("rafts.change_raftitem", item)
        versions = list(selectors.item_versions(item=item))
        for version, older in pairwise(versions):
            version.previous_number = older.number
        latest = versions[0].number if versions else 0
        numbers = [version.number for version in versions]
        return {
            **super().get_context_data(**kwargs),
            "item": item,
            "form": kwargs.get("form")
            or EditorForm(initial={"content": item.content}, editable=editable),
            "editable": editable,
            # the page asks for the draft only when there is one (no 404 at every visit)
            "has_draft": editable and selectors.draft_of(item=item, user=user) is not None,
            "runnable": item.is_otterscript and user.has_perm("executions.add_execution"),
            "versions": versions,
            "latest": latest,
            "next_version": latest + 1,
            "compare_form": CompareForm(
                initial={"old": numbers[1] if len(numbers) > 1 else latest, "new": latest},
                numbers=numbers,
            ),
            "templates": selectors.job_templates_of(items=[item]),
        }

    def post(self, request, *args, **kwargs):
        item = self.item()
        running = "run" in request.POST
        answer_json = running and wants_json(request)
        editable = request.user.has_perm("rafts.change_raftitem", item)
        if not (request.user.has_perm("executions.add_execution") if running else editable):
            return self.refuse(answer_json, "You may not run scripts.")
        data = request.POST.copy()
        data.setdefault("content", item.content)  # no text sent: the saved text, never none
        form = EditorForm(data, editable=editable)
        if not form.is_valid():
            return self.invalid(item, form, running=running, answer_json=answer_json)
        content = form.cleaned_data["content"]
        if not editable and content != item.content:
            return self.refuse(answer_json, "You may not change this item: run its saved text.")
        latest = item.versions.first()
        try:
            if running:
                return self.run(item, form, answer_json=answer_json)
            saved = services.save_item(
                raft=item.raft,
                name=item.name,
                content=content,
                kind=item.kind,
                author=request.user,
                message=form.cleaned_data.get("message", ""),
            )
        except ValidationError as error:
            add_errors(form, error)
            return self.invalid(item, form, running=running, answer_json=answer_json, error=error)
        now = saved.versions.first()
        if latest is not None and now.pk == latest.pk:
            messages.info(request, f"No changes to save: version {now.number} is the latest.")
        else:
            messages.success(request, f"Saved {saved} as version {now.number}.")
        return redirect(request.path)

    def refuse(self, answer_json: bool, detail: str):
        if answer_json:
            return error_response(403, detail, "permission_denied")
        return self.handle_no_permission()

    def invalid(self, item, form, *, running: bool, answer_json: bool, error=None):
        """The page again with the form's errors; in JSON, the API's error body (400)."""
        if answer_json:
            return JsonResponse(form_error_body(form, error), status=400)
        return self.render_to_response(self.get_context_data(item=item, form=form, ran=running))

    def run(self, item: RaftItem, form: EditorForm, *, answer_json: bool = False):
        data = form.cleaned_data
        latest = item.versions.first()
        execution = executions.save_and_run(
            item=item,
            content=data["content"],
            message=data.get("message", ""),
            author=self.request.user,
            servers=[server.name for server in data["servers"]],
            roles=[role.name for role in data["roles"]],
            environments=[environment.name for environment in data["environments"]],
            mode=data["mode"],
            simulate=data["simulate"],
        )
        version = execution.job.script_version
        saved = latest is None or version.pk != latest.pk
        if answer_json:
            return JsonResponse(
                executions.run_answer(execution=execution, user=self.request.user, saved=saved),
                status=201,
            )
        if saved:
            messages.success(self.request, f"Saved {item} as version {version.number} and ran it.")
        return redirect("execution-detail", pk=execution.pk)


def wants_json(request) -> bool:
    """The page's script asks for JSON; a browser's form post asks for HTML."""
    return request.get_preferred_type(["text/html", "application/json"]) == "application/json"


def form_error_body(form, error: ValidationError | None = None) -> dict:
    """The API's one error body for a refused form: ``errors`` by field (``non_field_errors``
    for the rest), ``detail`` the first message, and for a script that does not parse its
    ``diagnostics`` (the page marks them in the editor)."""
    errors = {
        "non_field_errors" if field == "__all__" else field: list(problems)
        for field, problems in form.errors.items()
    }
    if isinstance(error, services.ScriptInvalid):
        script_error = ScriptError(error.syntax_error)
        return error_body(
            str(script_error.detail), "script", errors=errors, diagnostics=script_error.diagnostics
        )
    return error_body(first_message(errors), "invalid", errors=errors)


class ItemEditView(ServiceFormView):
    """Rename an item, or move it to another raft."""

    permission_required = "rafts.change_raftitem"
    template_name = "rafts/item_edit.html"
    form_class = ItemRenameForm

    def get_initial(self):
        self.object = self.item()
        return {"name": self.object.name, "raft": self.object.raft}

    def get_context_data(self, **kwargs):
        return {**super().get_context_data(**kwargs), "item": self.object}

    def perform(self, form):
        old = str(self.object)
        item = services.rename_item(item=self.object, **form.cleaned_data)
        if str(item) != old:
            messages.success(
                self.request,
                f"{old} is now {item}. Scripts that call it by its old name must be changed.",
            )
        return reverse("raft-item", args=[item.raft.name, item.name])


class ItemDeleteView(PageMixin, TemplateView):
    permission_required = "rafts.delete_raftitem"
    template_name = "rafts/item_delete.html"

    def get_context_data(self, **kwargs):
        item = self.item()
        return {
            **super().get_context_data(**kwargs),
            "item": item,
            "version_count": item.versions.count(),
            "templates": selectors.job_templates_of(items=[item]),
        }

    def post(self, request, *args, **kwargs):
        item = self.item()
        try:
            services.delete_item(item=item)
        except ValidationError as error:
            return self.render_to_response(self.get_context_data(errors=error.messages))
        messages.success(request, f"Deleted {item}.")
        return redirect("raft-detail", raft=item.raft.name)


class VersionView(PageMixin, TemplateView):
    permission_required = "rafts.view_raftitem"
    template_name = "rafts/version.html"

    def get_context_data(self, **kwargs):
        item = self.item()
        version = get_object_or_404(
            selectors.item_versions(item=item), number=self.kwargs["number"]
        )
        latest = item.versions.first()
        previous = item.versions.filter(number__lt=version.number).order_by("-number").first()
        return {
            **super().get_context_data(**kwargs),
            "item": item,
            "version": version,
            "previous": previous,
            "is_latest": version.pk == latest.pk,
            "latest": latest,
        }


class RestoreView(PageMixin, View):
    permission_required = ("rafts.view_raftitem", "rafts.change_raftitem")

    def post(self, request, *args, **kwargs):
        item = self.item()
        version = get_object_or_404(item.versions, number=self.kwargs["number"])
        try:
            restored = services.restore_version(version=version, author=request.user)
        except ValidationError as error:
            messages.error(request, " ".join(error.messages))
        else:
            messages.success(
                request,
                f"Restored version {version.number} as version {restored.versions.first().number}.",
            )
        return redirect("raft-item", raft=item.raft.name, name=item.name)


class DiffView(PageMixin, TemplateView):
    """The unified diff between two versions chosen by number (?old=&new=)."""

    permission_required = "rafts.view_raftitem"
    template_name = "rafts/diff.html"

    def get_context_data(self, **kwargs):
        item = self.item()
        versions = {version.number: version for version in selectors.item_versions(item=item)}
        numbers = sorted(versions, reverse=True)
        if not numbers:
            raise Http404("This item has no versions.")
        form = CompareForm(
            {
                "old": self.request.GET.get("old", numbers[1] if len(numbers) > 1 else numbers[0]),
                "new": self.request.GET.get("new", numbers[0]),
            },
            numbers=numbers,
        )
        context = {**super().get_context_data(**kwargs), "item": item, "compare_form": form}
        if form.is_valid():
            old, new = versions[form.cleaned_data["old"]], versions[form.cleaned_data["new"]]
            context.update(old=old, new=new, lines=selectors.diff_lines(old=old, new=new))
        return context
