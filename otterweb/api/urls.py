"""The API under /api/. Each app declares its own API routes in its ``api_urls.py``: its viewsets
on ``router``, its other views in ``urlpatterns``. They are collected here: the viewsets on one
router, whose root (/api/) lists them, and the views as they are; with the schema and its docs."""

from importlib import import_module

from django.urls import URLPattern, URLResolver, include, path
from rest_framework.routers import DefaultRouter

from otterweb.api.docs import DocsView, SchemaView

app_name = "api"

# the packages whose api_urls.py declares API routes
APPS = (
    "otterweb.editor",
    "otterweb.accounts",
    "otterweb.configuration",
    "otterweb.schedules",
    "otterweb.inventory",
    "otterweb.rafts",
    "otterweb.executions",
    "otterweb.execution_logs",
    "otterweb.audit",
)

router = DefaultRouter()
urlpatterns: list[URLPattern | URLResolver] = [
    path("schema/", SchemaView.as_view(), name="schema"),
    path("docs/", DocsView.as_view(url_name="api:schema"), name="api-docs"),
]
for app in APPS:
    routes = import_module(f"{app}.api_urls")
    app_router = getattr(routes, "router", None)
    for prefix, viewset, basename in app_router.registry if app_router else ():
        router.register(prefix, viewset, basename=basename)
    urlpatterns.append(path("", include(getattr(routes, "urlpatterns", []))))
urlpatterns.append(path("", include(router.urls)))
