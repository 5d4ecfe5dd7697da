from django.urls import path

from otterweb.rafts import views

urlpatterns = [
    path("rafts/", views.RaftListView.as_view(), name="raft-list"),
    path("rafts/<slug:raft>/<path:name>/", views.RaftItemView.as_view(), name="raft-item"),
]
