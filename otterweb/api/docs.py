"""The API docs page (Swagger UI, in the site's look: templates/drf_spectacular/swagger_ui.html):
for signed-in users, by session or token; a signed-out visitor is sent to the login page, as on
every other page of the site."""

from __future__ import annotations

from django.contrib.auth.views import redirect_to_login
from drf_spectacular.views import SpectacularSwaggerView
from rest_framework.exceptions import NotAuthenticated
from rest_framework.permissions import IsAuthenticated


class DocsView(SpectacularSwaggerView):
    permission_classes = [IsAuthenticated]

    def handle_exception(self, exc):
        if isinstance(exc, NotAuthenticated):
            return redirect_to_login(self.request.get_full_path())
        return super().handle_exception(exc)
