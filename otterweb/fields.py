"""Model fields the apps share."""

from __future__ import annotations

from django.db import models
from django.utils.text import normalize_newlines


class TextField(models.TextField):
    """Text as the user typed it, with \\n line endings whatever the path it came by: browsers
    send form text with \\r\\n, and a shell script saved that way fails in `sh`."""

    def pre_save(self, model_instance, add):
        value = getattr(model_instance, self.attname)
        if isinstance(value, str) and "\r" in value:
            value = normalize_newlines(value)
            setattr(model_instance, self.attname, value)
        return value

    def to_python(self, value):
        value = super().to_python(value)
        return normalize_newlines(value) if isinstance(value, str) and "\r" in value else value
