from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html

from otterweb.admin import RecordInline
from otterweb.rafts import selectors, services
from otterweb.rafts.forms import RaftAdminForm, RaftItemAdminForm
from otterweb.rafts.models import Raft, RaftItem, RaftItemVersion


class RaftItemInline(admin.TabularInline):
    """The raft's items, each a link to its own page: an item is added, changed and deleted
    there, where every change makes a version."""

    model = RaftItem
    fields = readonly_fields = ("name", "kind", "updated")
    show_change_link = True
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Raft)
class RaftAdmin(admin.ModelAdmin):
    form = RaftAdminForm
    list_display = ["name", "description", "created"]
    search_fields = ["name", "description"]
    readonly_fields = ["created"]
    inlines = [RaftItemInline]

    def save_model(self, request, obj, form, change) -> None:
        if change:
            services.update_raft(raft=obj, name=obj.name, description=obj.description)
        else:
            obj.pk = services.create_raft(name=obj.name, description=obj.description).pk

    def delete_model(self, request, obj) -> None:
        services.delete_raft(raft=obj)

    def delete_queryset(self, request, queryset) -> None:
        for raft in queryset:
            self.delete_model(request, raft)


class VersionInline(RecordInline):
    model = RaftItemVersion
    fields = ["number", "author", "message", "created", "compare"]
    ordering = ["-number"]

    @admin.display(description="Changes")
    def compare(self, version: RaftItemVersion) -> str:
        previous = (
            version.item.versions.filter(number__lt=version.number).order_by("-number").first()
        )
        if previous is None:
            return "first version"
        url = reverse("admin:rafts_raftitem_diff", args=[version.item_id, previous.pk, version.pk])
        return format_html('<a href="{}">diff with v{}</a>', url, previous.number)


@admin.register(RaftItem)
class RaftItemAdmin(admin.ModelAdmin):
    form = RaftItemAdminForm
    list_display = ["name", "raft", "kind", "updated"]
    list_filter = ["kind", "raft"]
    search_fields = ["name", "content"]
    readonly_fields = ["updated"]
    inlines = [VersionInline]

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)
        return type(form.__name__, (form,), {"user": request.user})

    def save_model(self, request, obj, form, change) -> None:
        """Through the services (the form has checked the text with them): a rename or move
        first, then the text, which makes a version when it changed."""
        if change:
            original = RaftItem.objects.select_related("raft").get(pk=obj.pk)
            services.rename_item(item=original, name=obj.name, raft=obj.raft)
        saved = services.save_item(
            raft=obj.raft,
            name=obj.name,
            content=obj.content,
            kind=obj.kind,
            author=request.user,
            message="Saved in the admin",
        )
        obj.pk = saved.pk

    def delete_model(self, request, obj) -> None:
        services.delete_item(item=obj)

    def delete_queryset(self, request, queryset) -> None:
        for item in queryset:
            self.delete_model(request, item)

    def get_urls(self):
        return [
            path(
                "<int:item_id>/diff/<int:old>/<int:new>/",
                self.admin_site.admin_view(self.diff_view),
                name="rafts_raftitem_diff",
            ),
            *super().get_urls(),
        ]

    def diff_view(self, request, item_id: int, old: int, new: int):
        item = get_object_or_404(RaftItem, pk=item_id)
        if not self.has_view_permission(request, item):
            raise PermissionDenied  # staff is not enough: the script is only for its readers
        versions = {v.pk: v for v in item.versions.filter(pk__in=[old, new])}
        if old not in versions or new not in versions:
            return TemplateResponse(
                request,
                "admin/rafts/diff.html",
                {"item": item, "diff": "", "missing": True},
                status=404,
            )
        diff = selectors.diff_versions(old=versions[old], new=versions[new])
        context = {
            **self.admin_site.each_context(request),
            "item": item,
            "diff": diff,
            "old": versions[old],
            "new": versions[new],
        }
        return TemplateResponse(request, "admin/rafts/diff.html", context)


@admin.register(RaftItemVersion)
class RaftItemVersionAdmin(admin.ModelAdmin):
    list_display = ["item", "number", "author", "message", "created"]
    list_filter = ["item__raft"]
    search_fields = ["item__name", "message", "content"]
    readonly_fields = ["item", "number", "content", "author", "message", "created"]
    actions = ["restore"]

    def has_add_permission(self, request) -> bool:
        return False

    @admin.action(
        description="Restore the selected version (as a new version)", permissions=["change"]
    )
    def restore(self, request, queryset) -> None:
        for version in queryset:
            try:
                services.restore_version(version=version, author=request.user)
            except ValidationError as error:
                self.message_user(request, " ".join(error.messages), messages.ERROR)
                continue
            self.message_user(request, f"{version.item} is back to version {version.number}.")
