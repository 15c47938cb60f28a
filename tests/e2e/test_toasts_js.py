"""Issue 32 item 3: no toast covers the cards of the centre. The chop toast
covered the ranks of the chopping cards: toasts start below the top seat, and
where they would cover the pile or the board, below the centre's cards
(static/js/screen.js ``placeToasts``). Laid out with the table's own styles in
Chromium on a blank page (conftest ``blank``)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.e2e

# A felt with a top seat and the centre's pile just under it (where a chop
# lands), a toast said: where its lines and the cards are.
TOAST = """async ([pileTop, cards]) => {
  const { placeToasts } = await import("/static/js/screen.js");
  const box = (parent, cls, style) => {
    const node = parent.appendChild(document.createElement("div"));
    node.className = cls;
    Object.assign(node.style, style);
    return node;
  };
  const at = (left, top, width, height) => ({ position: "absolute", left, top, width, height });
  const felt = box(document.body, "felt", { ...at("0", "0", "800px", "500px"), margin: "0" });
  felt.dataset.felt = "";
  const seat = box(felt, "seat top", at("330px", "0", "140px", "100px"));
  const center = box(felt, "center", at("250px", `${pileTop}px`, "300px", "90px"));
  center.dataset.center = "";
  for (let i = 0; i < cards; i++) {
    box(center, "card", { display: "inline-block", width: "56px", height: "80px" });
  }
  const toast = box(felt, "toast", {});
  placeToasts(felt, toast);
  const line = box(toast, "flash info", { padding: "6px 12px" });
  line.textContent = "Chặt heo! Thối heo đen (−3)";
  await new Promise((done) => setTimeout(done, 400)); // (the line pops in: 0.25 s)
  const rect = (n) => {
    const r = n.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom];
  };
  return {
    line: rect(line), cards: [...center.children].map(rect), felt: rect(felt), seat: rect(seat),
  };
}"""


def overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("pile_top", [104, 130, 160])
def test_a_toast_covers_no_card_of_the_centre(blank, pile_top):
    page, errors = blank
    page.add_style_tag(path="static/css/table.css")

    got = page.evaluate(TOAST, [pile_top, 4])

    assert [c for c in got["cards"] if overlap(got["line"], c)] == []
    assert got["line"][1] >= got["seat"][3]  # below the top seat
    assert got["line"][3] <= got["felt"][3]  # on the felt
    assert errors == []


def test_with_no_card_in_the_centre_a_toast_stays_under_the_top_seat(blank):
    page, errors = blank
    page.add_style_tag(path="static/css/table.css")

    got = page.evaluate(TOAST, [130, 0])

    assert got["seat"][3] <= got["line"][1] <= got["seat"][3] + 12  # just under the top seat
    assert errors == []
