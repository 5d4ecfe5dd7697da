"""API routes of the configuration app, under /api/."""

from django.urls import path

import otterweb.addresses  # noqa: F401  (registers <name:...>)
from otterweb.configuration import api

urlpatterns = [
    path("configuration/", api.OverviewView.as_view(), name="configuration"),
    path(
        "configuration/servers/<name:name>/",
        api.ServerConfigurationView.as_view(),
        name="configuration-server",
    ),
    path("configuration/check/", api.DriftCheckNowView.as_view(), name="configuration-check"),
    path("configuration/plans/", api.PlansView.as_view(), name="configuration-plans"),
    path("configuration/plans/<int:pk>/", api.PlanView.as_view(), name="configuration-plan"),
    path(
        "configuration/plans/<int:pk>/approve/",
        api.ApprovePlanView.as_view(),
        name="configuration-plan-approve",
    ),
    path(
        "configuration/plans/<int:pk>/discard/",
        api.DiscardPlanView.as_view(),
        name="configuration-plan-discard",
    ),
]
