from django.urls import path

from otterweb.inventory import views

urlpatterns = [
    path(
        "inventory/servers/<slug:name>/variables/",
        views.ServerVariablesView.as_view(),
        name="server-variables-page",
    ),
]
