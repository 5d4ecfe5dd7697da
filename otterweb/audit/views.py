"""The audit trail's page: every entry the filters keep, newest first, 50 a page."""

from __future__ import annotations

from django.contrib.auth.mixins import LoginRequiredMixin, UserPassesTestMixin
from django.views.generic import ListView

from otterweb.audit import selectors
from otterweb.audit.forms import FilterForm
from otterweb.audit.models import Entry


class AuditListView(LoginRequiredMixin, UserPassesTestMixin, ListView):
    template_name = "audit/list.html"
    paginate_by = 50

    def test_func(self) -> bool:
        return selectors.may_view(self.request.user)

    def get_queryset(self):
        self.form = FilterForm(self.request.GET or None)
        if self.form.is_bound and not self.form.is_valid():
            return Entry.objects.none()
        filters = self.form.filters() if self.form.is_bound else selectors.Filters()
        return selectors.entries(filters=filters)

    def get_context_data(self, **kwargs):
        query = self.request.GET.copy()
        query.pop("page", None)
        return super().get_context_data(form=self.form, filter_query=query.urlencode(), **kwargs)
