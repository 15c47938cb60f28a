"""Query filters that refuse what the schema refuses."""

from __future__ import annotations

from typing import Any

import django_filters

from .strict import BLANK


class StrictFilterSet(django_filters.FilterSet):
    """django-filter takes an empty value (``?game=``, ``?date_before=``) as no
    filter; the schema gives each parameter a type, an enum or a format that
    the empty string is not. Here it is refused (``invalid``) like any other
    value that is not of the parameter's type."""

    def is_valid(self) -> bool:
        valid: bool = super().is_valid()
        for key in self.data:
            name = self._filter_of(key)
            if name is not None and self.data.get(key) == "":
                self.form.add_error(name, str(BLANK))
                valid = False
        return valid

    def _filter_of(self, key: str) -> str | None:
        """The filter a query parameter belongs to: itself, or a range's
        ``<name>_after`` / ``<name>_before`` (and ``_min`` / ``_max``)."""
        if key in self.filters:
            return key
        name, _sep, suffix = key.rpartition("_")
        found: Any = self.filters.get(name)
        if found is not None and suffix in ("after", "before", "min", "max"):
            return name
        return None
