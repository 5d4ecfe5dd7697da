"""Rafts API: rafts, their items (each save makes a version), versions and restore."""

from __future__ import annotations

from rest_framework import mixins, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from otterweb.rafts import selectors, services
from otterweb.rafts.models import Raft, RaftItem, RaftItemVersion


class RaftSerializer(serializers.ModelSerializer):
    class Meta:
        model = Raft
        fields = ["id", "name", "description", "created"]
        read_only_fields = ["created"]


class RaftItemVersionSerializer(serializers.ModelSerializer):
    author = serializers.SlugRelatedField(slug_field="username", read_only=True)

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

    class Meta:
        model = RaftItem
        fields = ["id", "raft", "name", "kind", "content", "message", "version", "updated"]
        read_only_fields = ["updated"]
        extra_kwargs = {"content": {"trim_whitespace": False}}

    def get_version(self, item: RaftItem) -> int | None:
        latest = item.versions.first()
        return latest.number if latest else None

    def create(self, data):
        return services.save_item(author=self.context["request"].user, **data)

    def update(self, instance, data):
        """A new name or raft renames or moves the item (not a copy), then the text is saved."""
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
        )


class RaftViewSet(viewsets.ModelViewSet):
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


class RaftItemViewSet(viewsets.ModelViewSet):
    queryset = RaftItem.objects.select_related("raft").prefetch_related("versions")
    serializer_class = RaftItemSerializer

    def perform_destroy(self, instance):
        services.delete_item(item=instance)


class RaftItemVersionViewSet(
    mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    queryset = RaftItemVersion.objects.select_related("item__raft", "author")
    serializer_class = RaftItemVersionSerializer

    def get_queryset(self):
        query = super().get_queryset()
        item = self.request.query_params.get("item")
        return query.filter(item_id=item) if item else query

    @action(detail=True, methods=["get"])
    def diff(self, request, pk=None):
        """The unified diff from the version named by ?against=<id> (the one before, by default) to this one."""
        version = self.get_object()
        against = request.query_params.get("against")
        older = (
            RaftItemVersion.objects.filter(pk=against, item=version.item).first()
            if against
            else version.item.versions.filter(number__lt=version.number).order_by("-number").first()
        )
        return Response({"diff": selectors.diff_versions(old=older, new=version) if older else ""})

    @action(detail=True, methods=["post"])
    def restore(self, request, pk=None):
        """Make this version the item's content again (as a new version)."""
        if not request.user.has_perm("rafts.change_raftitem"):
            self.permission_denied(request, message="You may not change raft items.")
        item = services.restore_version(version=self.get_object(), author=request.user)
        return Response(RaftItemSerializer(item, context={"request": request}).data)
