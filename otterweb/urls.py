from django.contrib import admin
from django.urls import include, path

from otterweb import views

urlpatterns = [
    path("", views.HomeView.as_view(), name="home"),
    path("", include("otterweb.executions.urls")),
    path("", include("otterweb.rafts.urls")),
    path("", include("otterweb.inventory.urls")),
    path("api/", include("otterweb.api.urls")),
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/", admin.site.urls),
]

handler400 = "otterweb.views.bad_request"
handler403 = "otterweb.views.permission_denied"
handler404 = "otterweb.views.page_not_found"
handler500 = "otterweb.views.server_error"
