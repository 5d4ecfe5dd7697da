"""/metrics as Prometheus reads it, for the tests of otterweb.health."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families


def samples(text: str) -> dict[str, dict[tuple, float]]:
    """Each sample of an answer of /metrics, read by Prometheus' own parser: by name, then its
    labels (sorted pairs), its value."""
    found: dict[str, dict[tuple, float]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found.setdefault(sample.name, {})[tuple(sorted(sample.labels.items()))] = sample.value
    return found
