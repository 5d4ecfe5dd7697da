"""The claims the test provider gives: the standard profile and e-mail ones, and `groups` (the
names of the user's groups at the provider) with the `groups` scope."""

from oauth2_provider.oauth2_validators import OAuth2Validator


class ClaimsValidator(OAuth2Validator):
    oidc_claim_scope = {**OAuth2Validator.oidc_claim_scope, "groups": "groups"}

    def get_additional_claims(self, request):
        user = request.user
        return {
            "preferred_username": user.username,
            "given_name": user.first_name,
            "family_name": user.last_name,
            "email": user.email,
            "groups": sorted(user.groups.values_list("name", flat=True)),
        }
