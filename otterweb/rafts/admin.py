from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html

from otterweb.admin import RecordInline
from otterweb.rafts import selectors, services
from otterweb.rafts.models import Raft, RaftItem, RaftItemVersion


class RaftItemInline(admin.TabularInline):
    model = RaftItem
    fields = ["name", "kind", "updated"]
    readonly_fields = ["updated"]
    show_change_link = True
    extra = 0


@admin.register(Raft)
class RaftAdmin(admin.ModelAdmin):
    list_display = ["name", "description", "created"]
    search_fields = ["name", "description"]
    readonly_fields = ["created"]
    inlines = [RaftItemInline]


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
    list_display = ["name", "raft", "kind", "updated"]
    list_filter = ["kind", "raft"]
    search_fields = ["name", "content"]
    readonly_fields = ["updated"]
    inlines = [VersionInline]

    def save_model(self, request, obj, form, change) -> None:
        try:
            saved = services.save_item(
                raft=obj.raft, name=obj.name, content=obj.content, kind=obj.kind, author=request.user,
                message="Saved in the admin",
            )  # fmt: skip
        except ValidationError as error:
            for message in error.messages:
                self.message_user(request, message, messages.ERROR)
            raise
        obj.pk = saved.pk

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
            services.restore_version(version=version, author=request.user)
            self.message_user(request, f"{version.item} is back to version {version.number}.")
