from django.urls import path

from otterweb.accounts import api

app_name = "accounts"

urlpatterns = [
    path("token/", api.TokenView.as_view(), name="token"),
]
