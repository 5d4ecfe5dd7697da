"""The login page: Django's, with the single sign-on button when OpenID Connect is on; the API
keys' page (one's own, and a service account's for administrators) and the service accounts'."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import views as auth
from django.contrib.auth.mixins import LoginRequiredMixin, UserPassesTestMixin
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views import View

from otterweb.accounts import oidc, selectors, services
from otterweb.accounts.forms import KeyForm, ServiceAccountForm
from otterweb.accounts.models import ServiceAccount
from otterweb.privileges.pages import narrow_choices

# a key's scope is chosen among the environments and rafts its owner sees (any role may narrow)
SCOPES = ("environment", "raft")


class LoginView(auth.LoginView):
    def get_context_data(self, **kwargs):
        return {**super().get_context_data(**kwargs), "single_sign_on": oidc.sign_in_option()}


class KeysView(LoginRequiredMixin, View):
    """The API keys of the signed-in user or, for an administrator, of a service account
    (``?user=<id>``): the list, Revoke, and a form to make one, whose text is shown once."""

    template_name = "accounts/keys.html"

    def dispatch(self, request, *args, **kwargs):
        if not request.user.is_authenticated:
            return super().dispatch(request, *args, **kwargs)
        self.owner = request.user
        wanted = request.GET.get("user") or request.POST.get("user")
        if wanted:
            number = _number(wanted)
            account = (
                None if number is None else ServiceAccount.objects.filter(user_id=number).first()
            )
            if account is None or not selectors.is_administrator(request.user):
                raise Http404("No service account matches the given query.")
            self.owner = account.user
        return super().dispatch(request, *args, **kwargs)

    def get(self, request):
        return self.page(narrow_choices(KeyForm(), request.user, SCOPES))

    def post(self, request):
        form = narrow_choices(KeyForm(request.POST), request.user, SCOPES)
        if form.is_valid():
            data = form.cleaned_data
            try:
                key, text = services.create_key(
                    actor=request.user,
                    owner=self.owner,
                    name=data["name"],
                    days=data["expires_in_days"],
                    role=data["role"],
                    environment=data["environment"],
                    raft=data["raft"],
                )
            except ValidationError as error:
                _add_errors(form, error)
            else:
                answer = self.page(
                    narrow_choices(KeyForm(), request.user, SCOPES), made=key, text=text
                )
                answer["Cache-Control"] = "no-store"  # the key's text is in it, once
                return answer
        return self.page(form, status=400)

    def page(self, form, *, status: int = 200, **context):
        own = self.owner.pk == self.request.user.pk
        return render(
            self.request,
            self.template_name,
            {
                "form": form,
                "owner": self.owner,
                "own": own,
                "keys": selectors.keys_of(self.owner),
                "administrator": selectors.is_administrator(self.request.user),
                **context,
            },
            status=status,
        )


class RevokeKeyView(LoginRequiredMixin, View):
    http_method_names = ["post"]

    def post(self, request, pk: int):
        key = get_object_or_404(selectors.manageable_keys(request.user), pk=pk)
        services.revoke_key(actor=request.user, key=key)
        messages.success(request, f"The key {key.label} of {key.user} is revoked.")
        target = reverse("account-keys")
        if key.user_id != request.user.pk:
            target += f"?user={key.user_id}"
        return redirect(target)


class ServiceAccountsView(LoginRequiredMixin, UserPassesTestMixin, View):
    """For administrators: the service accounts with their keys, and a form to make one."""

    template_name = "accounts/service_accounts.html"

    def test_func(self) -> bool:
        return selectors.is_administrator(self.request.user)

    def get(self, request):
        return self.page(ServiceAccountForm())

    def post(self, request):
        form = ServiceAccountForm(request.POST)
        if form.is_valid():
            try:
                user = services.create_service_account(actor=request.user, **form.cleaned_data)
            except ValidationError as error:
                _add_errors(form, error)
            else:
                messages.success(
                    request,
                    f"The service account {user} is made: grant it privileges, then make its keys.",
                )
                return redirect(f"{reverse('account-keys')}?user={user.pk}")
        return self.page(form, status=400)

    def page(self, form, *, status: int = 200):
        return render(
            self.request,
            self.template_name,
            {"form": form, "accounts": selectors.service_accounts()},
            status=status,
        )


def _number(value: str) -> int | None:
    return int(value) if value.isdigit() else None


def _add_errors(form, error: ValidationError) -> None:
    if hasattr(error, "error_dict"):
        for field, errors in error.error_dict.items():
            form.add_error(field if field in form.fields else None, errors)
    else:
        form.add_error(None, error)
