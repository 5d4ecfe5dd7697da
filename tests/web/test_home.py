"""The home page sits behind login."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_home_redirects_anonymous_user_to_login(client) -> None:
    response = client.get(reverse("home"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_home_shows_for_logged_in_user(client) -> None:
    user = get_user_model().objects.create_user("ops", password="s3cret-pass")
    client.force_login(user)
    response = client.get(reverse("home"))
    assert response.status_code == 200
    assert b"Welcome to OtterWeb" in response.content


def test_login_page_renders(client) -> None:
    response = client.get(reverse("login"))
    assert response.status_code == 200
    assert b'name="username"' in response.content
