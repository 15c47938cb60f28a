"""Issue 32 item 4: a seat's name too long for its plate is abbreviated by
rule (static/js/names.js), never cut at whatever letter the edge falls on.
Its pure part under Node.js (conftest ``node``)."""

from __future__ import annotations

FORMS = """async (name) => {
  const { shorterForms } = await import("/static/js/names.js");
  return shorterForms(name);
}"""


def test_the_words_before_the_last_become_initials(node):
    page, errors = node
    assert page.evaluate(FORMS, "Nguyễn Hoàng Thành Long")[:3] == [
        "N. H. T. Long",
        "N.H.T. Long",
        "Long",
    ]
    assert page.evaluate(FORMS, "Thành Nguyễn")[:3] == ["T. Nguyễn", "T. Nguyễn", "Nguyễn"]
    assert errors == []


def test_a_single_long_word_keeps_both_ends(node):
    page, errors = node
    forms = page.evaluate(FORMS, "Pa0Fc9C3B")
    assert forms[0] == "Pa0F…9C3B"  # (eight of its nine letters, half each end)
    assert forms[-1] == "P…B"
    assert all(form.startswith("P") and form.endswith("B") for form in forms)
    assert errors == []
