"""`/api/auth/token/`: make an API token with a username and password (or from a signed-in
browser session), and revoke the token a request carries. Wrong passwords count towards the
login lockout (django-axes), as on the login pages."""

from __future__ import annotations

from django.contrib.auth import authenticate
from django.contrib.auth.signals import user_logged_in
from drf_spectacular.utils import extend_schema
from knox.models import AuthToken
from rest_framework import serializers, status
from rest_framework.authentication import SessionAuthentication
from rest_framework.exceptions import AuthenticationFailed, NotAuthenticated
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from otterweb.accounts import tokens


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
        request.auth.delete()
        return Response(status=status.HTTP_204_NO_CONTENT)
