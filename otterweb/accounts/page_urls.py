from django.urls import path

from otterweb.accounts import views

urlpatterns = [
    path("account/keys/", views.KeysView.as_view(), name="account-keys"),
    path("account/keys/<int:pk>/revoke/", views.RevokeKeyView.as_view(), name="account-key-revoke"),
    path(
        "account/service-accounts/",
        views.ServiceAccountsView.as_view(),
        name="account-service-accounts",
    ),
]
