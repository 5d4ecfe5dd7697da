"""Raft pages: the rafts, a raft's items, and an item's editor with save, its versions, their
differences and restore. Every change goes through the services. The apps that run items add
to the item's page (``ITEM_PAGE_PARTS``): executions its Run, which posts to a page of its own."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin, PermissionRequiredMixin
from django.core.exceptions import ValidationError
from django.db.models import F, Window
from django.db.models.functions import Lead
from django.http import Http404, HttpRequest
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.views import View
from django.views.generic import FormView, ListView, TemplateView

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

    # the view's
    request: HttpRequest
    kwargs: dict[str, Any]

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


# What the apps that run items add to an item's page, each a callable(request=, item=) giving
# context (executions: its Run), added from their AppConfig.ready: rafts imports none of them.
ITEM_PAGE_PARTS: list[Callable[..., dict]] = []


class RaftItemView(PageMixin, TemplateView):
    """The editor: Save makes a version. (Run, when the user may run the item, is a part that
    another app adds: ITEM_PAGE_PARTS.)"""

    permission_required = "rafts.view_raftitem"
    template_name = "rafts/item.html"

    def get_context_data(self, **kwargs):
        item = kwargs.pop("item", None) or self.item()
        user = self.request.user
        editable = user.has_perm("rafts.change_raftitem", item)
        # each with the number of the one before it (None for the first), for its diff link
        versions = list(
            selectors.item_versions(item=item).annotate(
                previous_number=Window(Lead("number"), order_by=F("number").desc())
            )
        )
        latest = versions[0].number if versions else 0
        numbers = [version.number for version in versions]
        parts: dict = {}
        for part in ITEM_PAGE_PARTS:
            parts.update(part(request=self.request, item=item))
        return {
            **parts,
            **super().get_context_data(**kwargs),
            "item": item,
            "form": kwargs.get("form")
            or EditorForm(initial={"content": item.content}, editable=editable),
            "editable": editable,
            # the page asks for the draft only when there is one (no 404 at every visit)
            "has_draft": editable and selectors.draft_of(item=item, user=user) is not None,
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
        """Save the text on screen as the item's next version (none when it is the latest)."""
        item = self.item()
        if not request.user.has_perm("rafts.change_raftitem", item):
            return self.handle_no_permission()
        data = request.POST.copy()
        data.setdefault("content", item.content)  # no text sent: the saved text, never none
        form = EditorForm(data)
        if not form.is_valid():
            return self.invalid(item, form)
        latest = item.versions.first()
        try:
            saved = services.save_item(
                raft=item.raft,
                name=item.name,
                content=form.cleaned_data["content"],
                kind=item.kind,
                author=request.user,
                message=form.cleaned_data.get("message", ""),
            )
        except ValidationError as error:
            add_errors(form, error)
            return self.invalid(item, form)
        now = saved.versions.latest("number")  # save_item leaves a version of the text
        if latest is not None and now.pk == latest.pk:
            messages.info(request, f"No changes to save: version {now.number} is the latest.")
        else:
            messages.success(request, f"Saved {saved} as version {now.number}.")
        return redirect(request.path)

    def invalid(self, item, form, **context):
        """The page again, with the form's errors."""
        return self.render_to_response(self.get_context_data(item=item, form=form, **context))


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
        latest = item.versions.latest("number")
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
                f"Restored version {version.number} as version "
                f"{restored.versions.latest('number').number}.",
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
