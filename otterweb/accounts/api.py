"""`/api/auth/token/`: make an API token with a username and password (or from a signed-in
browser session), and revoke the token a request carries. `/api/keys/`: named API keys (list,
make, revoke). Wrong passwords count towards the
login lockout (django-axes), as on the login pages."""

from __future__ import annotations

from django.contrib.auth import authenticate, get_user_model
from django.contrib.auth.signals import user_logged_in
from drf_spectacular.utils import extend_schema
from knox.models import AuthToken
from rest_framework import generics, serializers, status
from rest_framework.authentication import SessionAuthentication
from rest_framework.exceptions import AuthenticationFailed, NotAuthenticated, PermissionDenied
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from otterweb.accounts import selectors, services, tokens
from otterweb.accounts.models import ApiKey
from otterweb.privileges.models import Role


class TokenRequestSerializer(serializers.Serializer):
    username = serializers.CharField(required=False, help_text="Not needed when signed in.")
    password = serializers.CharField(
        required=False, write_only=True, trim_whitespace=False, style={"input_type": "password"}
    )

    def validate(self, attrs):
        if ("username" in attrs) != ("password" in attrs):
            raise serializers.ValidationError("give both a username and a password, or neither")
        return attrs


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField(help_text="Send it as `Authorization: Token <token>`.")
    expiry = serializers.DateTimeField(allow_null=True, help_text="null: it never expires.")


class TokenView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        request=TokenRequestSerializer,
        responses={201: TokenSerializer},
        summary="Make an API token",
        description="With a username and password, or from a signed-in browser session (not "
        "with another token). The token is shown only in this answer and expires after "
        "OTTERWEB_TOKEN_TTL_DAYS. Too many wrong passwords lock the username out from that "
        "address for a while (429).",
    )
    def post(self, request):
        given = TokenRequestSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        if "username" in given.validated_data:
            # the Django request: django-axes marks it when the login is locked out
            user = authenticate(request._request, **given.validated_data)
            if user is None:
                raise AuthenticationFailed("wrong username or password")
            user_logged_in.send(sender=user.__class__, request=request._request, user=user)
        elif isinstance(request.successful_authenticator, SessionAuthentication):
            user = request.user
        else:
            raise NotAuthenticated("give a username and password (or sign in) to make a token")
        token, text = tokens.create(user=user)
        return Response(
            TokenSerializer({"token": text, "expiry": token.expiry}).data,
            status=status.HTTP_201_CREATED,
        )

    @extend_schema(
        request=None,
        responses={204: None},
        summary="Revoke the API token this request carries",
    )
    def delete(self, request):
        if not isinstance(request.auth, AuthToken):
            raise NotAuthenticated("send the token to revoke: Authorization: Token <token>")
        services.revoke_token(actor=request.user, token=request.auth)
        return Response(status=status.HTTP_204_NO_CONTENT)


# ---- API keys: /api/keys/


class ApiKeySerializer(serializers.ModelSerializer):
    name = serializers.SerializerMethodField(help_text='"(unnamed)" for a token made without one.')
    user = serializers.CharField(source="user.get_username", read_only=True)
    state = serializers.ChoiceField(choices=ApiKey.State.choices, read_only=True)
    role = serializers.CharField(source="role.name", read_only=True, allow_null=True, default=None)
    environment = serializers.CharField(
        source="environment.name", read_only=True, allow_null=True, default=None
    )
    raft = serializers.CharField(source="raft.name", read_only=True, allow_null=True, default=None)

    class Meta:
        model = ApiKey
        fields = [
            "id",
            "name",
            "user",
            "state",
            "created",
            "expires",
            "last_used",
            "last_address",
            "role",
            "environment",
            "raft",
            "revoked",
        ]
        read_only_fields = fields

    def get_name(self, key: ApiKey) -> str:
        return key.label


class NewApiKeySerializer(ApiKeySerializer):
    key = serializers.SerializerMethodField(
        help_text="The key's text, shown only in this answer: send it as "
        "`Authorization: Token <key>`."
    )

    class Meta(ApiKeySerializer.Meta):
        fields = [*ApiKeySerializer.Meta.fields, "key"]
        read_only_fields = fields

    def get_key(self, key: ApiKey) -> str:
        return self.context["text"]


class ApiKeyRequestSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100, help_text="What uses the key.")
    expires_in_days = serializers.FloatField(
        required=False,
        allow_null=True,
        min_value=0,
        max_value=services.LONGEST_DAYS,
        help_text="Its lifetime: OTTERWEB_TOKEN_TTL_DAYS when left out; 0: until revoked.",
    )
    role = serializers.PrimaryKeyRelatedField(
        queryset=Role.objects.all(),
        required=False,
        allow_null=True,
        help_text="A narrower key: only this role's permissions (each held by the owner there).",
    )
    environment = serializers.PrimaryKeyRelatedField(
        queryset=ApiKey.environment.field.related_model._default_manager.all(),
        required=False,
        allow_null=True,
        help_text="A narrower key: only on this environment and those inside it.",
    )
    raft = serializers.PrimaryKeyRelatedField(
        queryset=ApiKey.raft.field.related_model._default_manager.all(),
        required=False,
        allow_null=True,
        help_text="A narrower key: only on this raft (not with an environment).",
    )
    user = serializers.PrimaryKeyRelatedField(
        queryset=get_user_model().objects.filter(service_account__isnull=False),
        required=False,
        allow_null=True,
        help_text="A service account's id, for an administrator making its key; yourself when "
        "left out.",
    )


class ManageableKeys(generics.GenericAPIView):
    """The keys the user may list and revoke (its own, and an administrator's service
    accounts'): who may is the services' question, not a model permission's."""

    serializer_class = ApiKeySerializer
    permission_classes = [IsAuthenticated]
    filter_backends = []

    def get_queryset(self):
        return selectors.manageable_keys(self.request.user)


class ApiKeyListView(ManageableKeys, generics.ListAPIView):
    """Your keys and, for an administrator, the service accounts' keys, newest first."""

    @extend_schema(
        summary="List API keys",
        description="Yours and, for an administrator, the service accounts', newest first: "
        "active, expired and revoked.",
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @extend_schema(
        request=ApiKeyRequestSerializer,
        responses={201: NewApiKeySerializer},
        summary="Make an API key",
        description="Only from a signed-in browser session, not with another key (a key cannot "
        "renew itself). With a role and an environment or raft, the key holds only that role's "
        "permissions there, and never more than its owner: a role its owner does not hold there "
        "is refused (400). The key's text is in this answer only.",
    )
    def post(self, request):
        if not isinstance(request.successful_authenticator, SessionAuthentication):
            raise PermissionDenied("Make keys from a signed-in session, not with another key.")
        given = ApiKeyRequestSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        data = given.validated_data
        key, text = services.create_key(
            actor=request.user,
            owner=data.get("user") or request.user,
            name=data["name"],
            days=data.get("expires_in_days"),
            role=data.get("role"),
            environment=data.get("environment"),
            raft=data.get("raft"),
        )
        return Response(
            NewApiKeySerializer(key, context={"text": text}).data,
            status=status.HTTP_201_CREATED,
        )


class ApiKeyDetailView(ManageableKeys, generics.RetrieveDestroyAPIView):
    @extend_schema(summary="An API key")
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @extend_schema(
        summary="Revoke an API key",
        description="It answers 401 from now on; it stays listed, revoked.",
        responses={204: None},
    )
    def delete(self, request, *args, **kwargs):
        return super().delete(request, *args, **kwargs)

    def perform_destroy(self, instance: ApiKey) -> None:
        services.revoke_key(actor=self.request.user, key=instance)
