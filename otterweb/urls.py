from django.contrib import admin
from django.urls import include, path

from otterweb import views
from otterweb.inventory.views import ServerVariablesView

urlpatterns = [
    path("", views.HomeView.as_view(), name="home"),
    path(
        "inventory/servers/<slug:name>/variables/",
        ServerVariablesView.as_view(),
        name="server-variables-page",
    ),
    path("api/", include("otterweb.api.urls")),
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/", admin.site.urls),
]
