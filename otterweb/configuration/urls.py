"""Pages under /configuration/."""

from django.urls import path

import otterweb.addresses  # noqa: F401  (registers <name:...>)
from otterweb.configuration import views

urlpatterns = [
    path("configuration/", views.MatrixView.as_view(), name="configuration"),
    path(
        "configuration/servers/<name:name>/",
        views.ServerConfigurationView.as_view(),
        name="configuration-server",
    ),
    path(
        "configuration/checks/<int:pk>/", views.DriftCheckView.as_view(), name="configuration-check"
    ),
    path(
        "configuration/check-now/",
        views.DriftCheckNowView.as_view(),
        name="configuration-check-now",
    ),
    path("configuration/remediate/", views.RemediateView.as_view(), name="configuration-remediate"),
    path("configuration/plans/<int:pk>/", views.PlanView.as_view(), name="configuration-plan"),
    path(
        "configuration/plans/<int:pk>/act/",
        views.PlanActionView.as_view(),
        name="configuration-plan-act",
    ),
]
