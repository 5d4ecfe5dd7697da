"""The API schema, and the docs page (Swagger UI, in the site's look:
templates/drf_spectacular/swagger_ui.html) for signed-in users, by session or token; a
signed-out visitor is sent to the login page, as on every other page of the site."""

from __future__ import annotations

import threading

from django.contrib.auth.views import redirect_to_login
from django.utils import translation
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.exceptions import NotAuthenticated
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response


class SchemaView(SpectacularAPIView):
    """/api/schema/: made once per process (per version and language) and kept. drf-spectacular's
    generation is not thread-safe (it loads its extensions into class attributes as it goes):
    concurrent first requests failed with 500s. The schema is public (the same for everyone)
    and changes only with the code, so it is made under a lock, once."""

    _made: dict[tuple, dict] = {}
    _lock = threading.Lock()

    def _get_schema_response(self, request):
        version = self.api_version or request.version or self._get_version_parameter(request)
        key = (version, translation.get_language(), self.serve_public)
        with self._lock:
            if key not in self._made:
                generator = self.generator_class(
                    urlconf=self.urlconf, api_version=version, patterns=self.patterns
                )
                self._made[key] = generator.get_schema(request=request, public=self.serve_public)
        filename = self._get_filename(request, version)
        return Response(
            data=self._made[key],
            headers={"Content-Disposition": f'inline; filename="{filename}"'},
        )


class DocsView(SpectacularSwaggerView):
    permission_classes = [IsAuthenticated]

    def handle_exception(self, exc):
        if isinstance(exc, NotAuthenticated):
            return redirect_to_login(self.request.get_full_path())
        return super().handle_exception(exc)
