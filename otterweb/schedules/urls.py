"""Pages under /schedules/, and a job template's schedules and triggers under /templates/."""

from django.urls import path

from otterweb.addresses import moved
from otterweb.schedules import views

urlpatterns = [
    path("schedules/", views.ScheduleListView.as_view(), name="schedule-list"),
    path("schedules/-/new/", views.ScheduleEditView.as_view(), name="schedule-create"),
    path("schedules/new/", moved("schedule-create")),
    path("schedules/<int:pk>/edit/", views.ScheduleEditView.as_view(), name="schedule-edit"),
    path("schedules/<int:pk>/delete/", views.ScheduleDeleteView.as_view(), name="schedule-delete"),
    path("schedules/<int:pk>/enable/", views.ScheduleEnableView.as_view(), name="schedule-enable"),
    path(
        "templates/<int:pk>/triggers/",
        views.TemplateTriggersView.as_view(),
        name="template-triggers",
    ),
    path(
        "templates/<int:template>/triggers/<uuid:pk>/delete/",
        views.TriggerDeleteView.as_view(),
        name="trigger-delete",
    ),
]
