"""API permissions: Django's model permissions, reading included (a user without `view_` gets
403, not data)."""

from rest_framework.permissions import DjangoModelPermissions


class ModelPermissions(DjangoModelPermissions):
    perms_map = {
        **DjangoModelPermissions.perms_map,
        "GET": ["%(app_label)s.view_%(model_name)s"],
        "HEAD": ["%(app_label)s.view_%(model_name)s"],
        "OPTIONS": ["%(app_label)s.view_%(model_name)s"],
    }


class ViewPermissions(ModelPermissions):
    """For actions that change nothing of the model itself (run a template, cancel an
    execution): viewing it is enough here; the action checks its own permission."""

    perms_map = {method: ModelPermissions.perms_map["GET"] for method in ModelPermissions.perms_map}
