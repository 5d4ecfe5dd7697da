"""Rafts API: rafts, their items (each save makes a version), versions and restore; for the
editor, a user's draft of an item, commit (save from a base version, 409 when the item has
moved on), and the diff of unsaved text against a version."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import transaction
from drf_spectacular.utils import (
    extend_schema,
    extend_schema_field,
    extend_schema_view,
)
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import APIException, NotFound
from rest_framework.permissions import SAFE_METHODS
from rest_framework.response import Response
from rest_framework.views import APIView

from otterweb.api.permissions import ViewPermissions, WritesWithinPrivileges, view_and
from otterweb.api.queries import number_parameter, whole_number
from otterweb.api.schema import error_response
from otterweb.rafts import selectors, services
from otterweb.rafts.models import Raft, RaftItem, RaftItemDraft, RaftItemVersion


class Conflict(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_code = "conflict"


class ConflictAnswers(APIView):
    """A change made from a version that is no longer the newest is answered 409 with the one
    error body (``code: "conflict"``) and what it would overwrite: the newest version (number,
    author, time, message), the diff from the base version to it, and from it to the change.
    Deleting what job templates run is a 409 too, that names them."""

    def handle_exception(self, exc):
        if isinstance(exc, services.InUse):
            return super().handle_exception(Conflict(" ".join(exc.messages)))
        if not isinstance(exc, services.StaleBaseVersion):
            return super().handle_exception(exc)
        response = super().handle_exception(Conflict(str(exc)))
        conflict = exc.conflict
        latest = conflict.latest
        response.data.update(
            base_version=conflict.base_version,
            latest={
                "number": latest.number,
                "author": latest.author.username if latest.author else None,
                "created": serializers.DateTimeField().to_representation(latest.created),
                "message": latest.message,
                "content": latest.content,
            },
            diff=conflict.diff,
            diff_to_submitted=conflict.diff_to_submitted,
        )
        return response


class RaftSerializer(serializers.ModelSerializer):
    class Meta:
        model = Raft
        fields = ["id", "name", "description", "created"]
        read_only_fields = ["created"]


class RaftItemVersionSerializer(serializers.ModelSerializer):
    author: serializers.SlugRelatedField[User] = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True, help_text="null: OtterWeb itself."
    )

    class Meta:
        model = RaftItemVersion
        fields = ["id", "item", "number", "content", "author", "message", "created"]
        read_only_fields = fields


class RaftItemSerializer(serializers.ModelSerializer):
    raft = serializers.SlugRelatedField(slug_field="name", queryset=Raft.objects.all())
    message = serializers.CharField(
        write_only=True,
        required=False,
        allow_blank=True,
        help_text="Why it changed (kept with the version).",
    )
    version = serializers.SerializerMethodField()
    base_version = serializers.IntegerField(
        write_only=True,
        required=False,
        min_value=1,
        help_text="The version the change was made from: 409 when the item has a newer one.",
    )
    mode = serializers.SerializerMethodField(
        help_text="How the editor opens it: text or visual (##AH:UseTextMode, ##AH:UseVisualMode)."
    )

    class Meta:
        model = RaftItem
        fields = [
            "id",
            "raft",
            "name",
            "kind",
            "content",
            "message",
            "base_version",
            "version",
            "mode",
            "updated",
        ]
        read_only_fields = ["updated"]
        extra_kwargs = {"content": {"trim_whitespace": False}}

    def get_version(self, item: RaftItem) -> int | None:
        latest = item.versions.first()
        return latest.number if latest else None

    def get_mode(self, item: RaftItem) -> str:
        return selectors.editor_mode(content=item.content, kind=item.kind)

    def validate_content(self, value: str) -> str:
        try:
            services.check_size(content=value)
        except DjangoValidationError as error:
            raise serializers.ValidationError(error.message_dict["content"]) from None
        return value

    def create(self, data):
        data.pop("base_version", None)
        data.setdefault("content", "")  # an item made without its text starts empty
        return services.save_item(author=self.context["request"].user, **data)

    @transaction.atomic
    def update(self, instance, data):
        """A new name or raft renames or moves the item (not a copy), then the text is saved;
        all or nothing."""
        raft, name = data.get("raft", instance.raft), data.get("name", instance.name)
        if (raft, name) != (instance.raft, instance.name):
            instance = services.rename_item(item=instance, name=name, raft=raft)
        return services.save_item(
            raft=raft,
            name=name,
            content=data.get("content", instance.content),
            kind=data.get("kind", instance.kind),
            author=self.context["request"].user,
            message=data.get("message", ""),
            base_version=data.get("base_version"),
        )


class DraftSerializer(serializers.ModelSerializer):
    latest_version = serializers.SerializerMethodField()
    moved_on = serializers.SerializerMethodField(
        help_text="Whether the item has a version newer than the draft's base."
    )
    mode = serializers.SerializerMethodField()

    class Meta:
        model = RaftItemDraft
        fields = ["content", "base_version", "saved", "latest_version", "moved_on", "mode"]
        read_only_fields = fields

    def get_latest_version(self, draft: RaftItemDraft) -> int | None:
        latest = selectors.latest_version(item=draft.item)
        return latest.number if latest else None

    def get_moved_on(self, draft: RaftItemDraft) -> bool:
        return (self.get_latest_version(draft) or 0) > draft.base_version

    def get_mode(self, draft: RaftItemDraft) -> str:
        return selectors.editor_mode(content=draft.content, kind=draft.item.kind)


class DraftInput(serializers.Serializer):
    content = serializers.CharField(allow_blank=True, trim_whitespace=False)
    base_version = serializers.IntegerField(min_value=1)


# Not an enum in the schema: drf-spectacular names enums by field, and "mode" is also an
# execution's (execute, collect, ...).
@extend_schema_field({"type": "string", "pattern": f"^({'|'.join(selectors.EDITOR_MODES)})$"})
class EditorModeField(serializers.ChoiceField):
    def __init__(self, **kwargs) -> None:
        super().__init__(choices=selectors.EDITOR_MODES, **kwargs)


class CommitInput(DraftInput):
    message = serializers.CharField(allow_blank=True, required=False, default="", max_length=500)
    mode = EditorModeField(
        required=False, help_text="Write the header that makes the script open in this mode."
    )


class DiffInput(serializers.Serializer):
    content = serializers.CharField(allow_blank=True, trim_whitespace=False)
    version = serializers.IntegerField(
        min_value=1, required=False, help_text="The version to compare with; the newest if absent."
    )


class ItemDiffSerializer(serializers.Serializer):
    from_ = serializers.IntegerField(
        allow_null=True, help_text="The version compared from (null: nothing before)."
    )
    to = serializers.IntegerField(
        allow_null=True, help_text="The version (null: the content sent)."
    )
    diff = serializers.CharField(help_text="A unified diff; empty when nothing changed.")

    def get_fields(self):
        fields = super().get_fields()
        fields["from"] = fields.pop("from_")  # a Python keyword
        return fields


class VersionDiffSerializer(serializers.Serializer):
    diff = serializers.CharField(help_text="A unified diff; empty for the first version.")


class RestoreInput(serializers.Serializer):
    base_version = serializers.IntegerField(min_value=1, required=False)


def _number(params, name: str) -> int | None:
    """A version number from the query string, or None when absent."""
    return whole_number(params, name, what="a version number (1, 2, ...)", minimum=1)


class DraftPermissions(ViewPermissions):
    """Reading one's draft needs viewing the item; saving or forgetting it, changing items."""

    message = "You may not change raft items."

    def has_permission(self, request, view) -> bool:
        return super().has_permission(request, view) and (
            request.method in SAFE_METHODS or request.user.has_perm("rafts.change_raftitem")
        )


IN_USE = extend_schema(
    responses={204: None, 409: error_response("409", "Job templates run it: they are named.")}
)


@extend_schema_view(destroy=IN_USE)
class RaftViewSet(WritesWithinPrivileges, ConflictAnswers, viewsets.ModelViewSet):
    queryset = Raft.objects.all()
    serializer_class = RaftSerializer

    def perform_create(self, serializer):
        serializer.instance = services.create_raft(**serializer.validated_data)

    def perform_update(self, serializer):
        raft = serializer.instance
        data = {"name": raft.name, "description": raft.description, **serializer.validated_data}
        serializer.instance = services.update_raft(raft=raft, **data)

    def perform_destroy(self, instance):
        services.delete_raft(raft=instance)


@extend_schema_view(destroy=IN_USE)
class RaftItemViewSet(WritesWithinPrivileges, ConflictAnswers, viewsets.ModelViewSet):
    queryset = RaftItem.objects.select_related("raft").prefetch_related("versions")
    serializer_class = RaftItemSerializer

    def perform_destroy(self, instance):
        services.delete_item(item=instance)

    def version_number(self, item: RaftItem, number: int | None) -> RaftItemVersion:
        version = (
            item.versions.filter(number=number).first()
            if number is not None
            else selectors.latest_version(item=item)
        )
        if version is None:
            raise serializers.ValidationError({"version": [f"{item} has no version {number}."]})
        return version

    @extend_schema(methods=["PUT"], request=DraftInput, responses={200: DraftSerializer})
    @extend_schema(
        methods=["GET"],
        responses={200: DraftSerializer, 404: error_response("404", "No such item, or no draft.")},
    )
    @extend_schema(methods=["DELETE"], request=None, responses={204: None})
    # serializer_class: the browsable API's form for PUT (the item's serializer cannot read a
    # draft, and the page would fail)
    @action(
        detail=True,
        methods=["get", "put", "delete"],
        permission_classes=[DraftPermissions],
        serializer_class=DraftInput,
    )
    def draft(self, request, pk=None):
        """Your unsaved edit of the item (nobody else's): GET it (404 when there is none; says
        whether the item has moved on since its base version), PUT ``{"content",
        "base_version"}`` to keep it (never a version, never parsed; over
        OTTERWEB_MAX_SCRIPT_BYTES is a 400 and the kept draft stays), DELETE to forget it."""
        item = self.get_object()
        if request.method == "DELETE":
            services.delete_draft(item=item, user=request.user)
            return Response(status=status.HTTP_204_NO_CONTENT)
        if request.method == "PUT":
            data = DraftInput(data=request.data)
            data.is_valid(raise_exception=True)
            draft: RaftItemDraft | None = services.save_draft(
                item=item, user=request.user, **data.validated_data
            )
        else:
            draft = selectors.draft_of(item=item, user=request.user)
            if draft is None:
                raise NotFound(f"You have no draft of {item}.")
        return Response(DraftSerializer(draft).data)

    @extend_schema(
        request=CommitInput,
        responses={
            200: RaftItemSerializer,
            409: error_response("409", "The item moved on from the base version."),
        },
    )
    @action(
        detail=True,
        methods=["post"],
        permission_classes=[view_and("rafts.change_raftitem", "You may not change raft items.")],
    )
    def commit(self, request, pk=None):
        """Save ``content`` as the item's next version (none when it is the newest one's) and
        forget your draft. ``base_version`` is the version the edit started from: when the item
        has a newer one, 409 with it and the diffs, and nothing saved. A script that does not
        parse is a 400 with its diagnostics. ``mode`` ("text" or "visual") writes the header
        that makes the script open in that mode."""
        item = self.get_object()
        data = CommitInput(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            saved = services.commit_item(item=item, author=request.user, **data.validated_data)
        except services.ScriptInvalid as error:
            raise error.syntax_error from None
        return Response(RaftItemSerializer(saved, context={"request": request}).data)

    @extend_schema(
        methods=["GET"],
        parameters=[
            number_parameter("from", "A version number (the one before to).", minimum=1),
            number_parameter("to", "A version number (the newest).", minimum=1),
        ],
        responses={200: ItemDiffSerializer},
    )
    @extend_schema(methods=["POST"], request=DiffInput, responses={200: ItemDiffSerializer})
    @action(detail=True, methods=["get", "post"], permission_classes=[ViewPermissions])
    def diff(self, request, pk=None):
        """A unified diff. GET ``?from=N&to=M`` (version numbers; ``to`` the newest, ``from`` the
        one before ``to``, by default): between two versions. POST ``{"content", "version"}``:
        from a version (the newest by default) to ``content``, such as the editor's text."""
        item = self.get_object()
        if request.method == "POST":
            data = DiffInput(data=request.data)
            data.is_valid(raise_exception=True)
            services.check_size(content=data.validated_data["content"])
            version = self.version_number(item, data.validated_data.get("version"))
            diff = selectors.diff_to_text(version=version, content=data.validated_data["content"])
            return Response({"from": version.number, "to": None, "diff": diff})
        new = self.version_number(item, _number(request.query_params, "to"))
        old_number = _number(request.query_params, "from")
        old = (
            self.version_number(item, old_number)
            if old_number is not None
            else item.versions.filter(number__lt=new.number).order_by("-number").first()
        )
        diff = selectors.diff_versions(old=old, new=new) if old else ""
        return Response({"from": old.number if old else None, "to": new.number, "diff": diff})


class RaftItemVersionViewSet(
    ConflictAnswers, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    queryset = RaftItemVersion.objects.select_related("item__raft", "author")
    serializer_class = RaftItemVersionSerializer

    def get_queryset(self):
        query = super().get_queryset()
        item = whole_number(self.request.query_params, "item", what="a raft item's id")
        return query.filter(item_id=item) if item is not None else query

    @extend_schema(
        parameters=[
            number_parameter("against", "A version's id (the version before, by default).")
        ],
        responses={200: VersionDiffSerializer},
    )
    @action(detail=True, methods=["get"])
    def diff(self, request, pk=None):
        """The unified diff from the version named by ?against=<id> (the one before, by default) to this one."""
        version = self.get_object()
        against = whole_number(request.query_params, "against", what="a version's id")
        older = (
            RaftItemVersion.objects.filter(pk=against, item=version.item).first()
            if against is not None
            else version.item.versions.filter(number__lt=version.number).order_by("-number").first()
        )
        if against is not None and older is None:
            raise serializers.ValidationError(
                {"against": [f"{version.item} has no version with the id {against}."]}
            )
        return Response({"diff": selectors.diff_versions(old=older, new=version) if older else ""})

    @extend_schema(
        request=RestoreInput,
        responses={
            200: RaftItemSerializer,
            409: error_response("409", "The item moved on from base_version."),
        },
    )
    @action(detail=True, methods=["post"])
    def restore(self, request, pk=None):
        """Make this version the item's content again (as a new version). With
        ``{"base_version": N}``, 409 when the item has moved on from version N."""
        if not request.user.has_perm("rafts.change_raftitem"):
            self.permission_denied(request, message="You may not change raft items.")
        data = RestoreInput(data=request.data)
        data.is_valid(raise_exception=True)
        item = services.restore_version(
            version=self.get_object(), author=request.user, **data.validated_data
        )
        return Response(RaftItemSerializer(item, context={"request": request}).data)
