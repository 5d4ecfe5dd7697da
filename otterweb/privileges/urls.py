"""Pages under /privileges/."""

from django.urls import path

from otterweb.privileges import views

urlpatterns = [
    path("privileges/", views.GrantListView.as_view(), name="privileges"),
    path("privileges/<int:pk>/revoke/", views.RevokeView.as_view(), name="privilege-revoke"),
]
