from django.urls import path

from otterweb.retention import views

urlpatterns = [
    path("database/", views.DatabaseView.as_view(), name="database"),
]
