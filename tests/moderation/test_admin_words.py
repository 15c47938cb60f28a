"""Issue 16 ("Words"): the admin shows every model field it lists or opens
with a Vietnamese label, and its date picker and two-list selector speak
Vietnamese (Django's own catalogue lacks some of their words: ours has them)."""

import json

import pytest
from django.contrib import admin
from django.core.exceptions import FieldDoesNotExist
from django.test import RequestFactory
from django.urls import reverse
from django.utils import translation

pytestmark = pytest.mark.django_db
# The same in both languages on purpose ("bot" is the loanword the whole site uses).
SAME_IN_VIETNAMESE = {"ID", "HTTP Accept", "bot"}


def test_every_field_the_admin_shows_has_a_vietnamese_label(make_user):
    request = RequestFactory().get("/admin/")
    request.user = make_user(is_staff=True)
    english = []
    for model, model_admin in admin.site._registry.items():
        shown = [*model_admin.get_fields(request), *model_admin.get_list_display(request)]
        for name in shown:
            try:
                field = model._meta.get_field(name) if isinstance(name, str) else None
            except FieldDoesNotExist:
                continue
            label = getattr(field, "verbose_name", None)
            if label is None:
                continue
            with translation.override("vi"):
                vietnamese = str(label)
            with translation.override("en"):
                same = vietnamese == str(label)
            if same and vietnamese not in SAME_IN_VIETNAMESE:
                english.append(f"{model._meta.label}.{name}: {vietnamese}")

    assert english == []


def test_the_admin_date_picker_and_selector_speak_vietnamese(make_user, client):
    client.force_login(make_user(is_staff=True))

    catalog = client.get(reverse("admin:jsi18n")).content.decode()

    for word in ("Thứ hai", "Chủ nhật", "T2", "Chọn tất cả %s", "Tháng Một"):
        assert json.dumps(word)[1:-1] in catalog, word
