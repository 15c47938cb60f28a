"""Reading our own metrics back."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from vipgame.ops import scrape


def samples(text: str | None = None) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of the exposition: (name, sorted labels) → value."""
    text = scrape.render().decode() if text is None else text
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def value(name: str, text: str | None = None, **labels: str) -> float:
    """A sample's value, 0 when absent (a labelled series not created yet)."""
    return samples(text).get((name, tuple(sorted(labels.items()))), 0.0)
