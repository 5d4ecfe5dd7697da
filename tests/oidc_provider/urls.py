from django.contrib.auth import views as auth
from django.urls import include, path

urlpatterns = [
    path("accounts/login/", auth.LoginView.as_view(), name="login"),
    path("o/", include("oauth2_provider.urls", namespace="oauth2_provider")),
]
