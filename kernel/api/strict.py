"""Request bodies that the server reads exactly as the schema describes them.

DRF coerces: a BooleanField takes ``0`` and ``"yes"``, an IntegerField takes
``"5"``, a CharField takes ``5`` (as ``"5"``), and unknown keys are dropped
without a word. The schema says ``boolean``, ``integer``, ``string`` and (for
the bodies of :class:`StrictIn`) ``additionalProperties: false``. A
:class:`StrictIn` serializer refuses what the schema refuses, with ``invalid``
and the field's own DRF message (our catalogue translates it), and the
schema hook :func:`close_request_bodies` declares what the server refuses.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

BLANK = _("This field may not be blank.")  # DRF's own message (kernel.api.drf_messages)
# The request components of StrictIn serializers, by serializer name.
STRICT: set[str] = set()


def wrong_type(field: serializers.Field[Any, Any, Any, Any], value: Any) -> str | None:
    """The field's message when ``value`` (parsed JSON) is not of its JSON type."""
    if value is None:
        return None  # the field's own null rule answers
    if isinstance(field, serializers.BooleanField):
        ok, key = isinstance(value, bool), "invalid"
    elif isinstance(field, serializers.IntegerField):
        ok, key = isinstance(value, int) and not isinstance(value, bool), "invalid"
    elif isinstance(field, serializers.ChoiceField):
        ok, key = isinstance(value, str), "invalid_choice"
    elif isinstance(field, serializers.CharField):
        ok, key = isinstance(value, str), "invalid"
    elif isinstance(field, serializers.ListField):
        if not isinstance(value, list):
            return str(field.error_messages["not_a_list"]).format(input_type=type(value).__name__)
        for item in value:
            if (message := wrong_type(field.child, item)) is not None:
                return message
        return None
    else:
        return None
    return None if ok else str(field.error_messages[key]).format(input=value)


# An input serializer that takes no key it does not name and no value of
# another JSON type than its field's (booleans, integers and strings are not
# converted into one another). No docstring: drf-spectacular would give it to
# every request body as its description.
class StrictIn(serializers.Serializer[dict[str, Any]]):
    unknown_message: ClassVar[Any] = _("This field is not part of this request.")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        STRICT.add(cls.__name__)

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        if isinstance(data, Mapping):
            named = {name for name, field in self.fields.items() if not field.read_only}
            errors: dict[str, list[str]] = {
                str(key): [str(self.unknown_message)] for key in data if key not in named
            }
            for name, field in self.fields.items():
                if name in data and (message := wrong_type(field, data[name])) is not None:
                    errors[name] = [message]
            if errors:
                raise serializers.ValidationError(errors)
        return dict(super().to_internal_value(data))


class StrictQuery(serializers.Serializer[dict[str, Any]]):
    """Query parameters: DRF reads ``?period=`` as no parameter (the default,
    or null); the schema's integer, enum or minimum length is not met by the
    empty string, so it is refused unless the field allows blanks."""

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        if isinstance(data, Mapping):
            blank = [
                name
                for name, field in self.fields.items()
                if data.get(name) == "" and not getattr(field, "allow_blank", False)
            ]
            if blank:
                raise serializers.ValidationError({name: [str(BLANK)] for name in blank})
        return dict(super().to_internal_value(data))


def close_request_bodies(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular hook: the request component of each StrictIn serializer
    (``<Name>Request``, COMPONENT_SPLIT_REQUEST) has ``additionalProperties: false``."""
    schemas = result.get("components", {}).get("schemas", {})
    for name in STRICT:
        for split in (f"{name}Request", f"Patched{name}Request"):  # (PATCH: all optional)
            component = schemas.get(split)
            if component is not None and component.get("type") == "object":
                component["additionalProperties"] = False
    return result
