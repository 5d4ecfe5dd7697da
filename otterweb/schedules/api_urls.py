"""API routes of the schedules app, under /api/: schedules, a job template's triggers, and the
URL a trigger is called at."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from otterweb.schedules import api

router = SimpleRouter()
router.register("schedules", api.ScheduleViewSet)

template_triggers = api.TriggerViewSet.as_view({"get": "list", "post": "create"})
template_trigger = api.TriggerViewSet.as_view({"get": "retrieve", "delete": "destroy"})

urlpatterns = [
    path(
        "job-templates/<int:template_pk>/triggers/",
        template_triggers,
        name="template-trigger-list",
    ),
    path(
        "job-templates/<int:template_pk>/triggers/<uuid:pk>/",
        template_trigger,
        name="template-trigger-detail",
    ),
    path("triggers/<uuid:pk>/", api.TriggerPullView.as_view(), name="trigger-pull"),
]
