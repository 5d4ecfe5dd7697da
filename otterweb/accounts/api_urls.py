"""API routes of the accounts app, under /api/: API keys. (Signing in for a token is under
/api/auth/, in ``otterweb.accounts.urls``.)"""

from django.urls import path

from otterweb.accounts import api

urlpatterns = [
    path("keys/", api.ApiKeyListView.as_view(), name="key-list"),
    path("keys/<int:pk>/", api.ApiKeyDetailView.as_view(), name="key-detail"),
]
