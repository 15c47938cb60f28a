// Small inline SVG icons for the table's own marks (a bot's seat, the chat's
// report flag). No emoji or symbol glyphs: Debian's Chromium has no emoji font,
// and there an emoji shows as an empty box.
import { svg } from "./dom.js";

// Each icon on a 24×24 grid: outlines drawn with the text colour, dots filled.
const ICONS = {
  bot: {
    lines: ["M12 2.5v3", "M4.5 10v5M19.5 10v5", "M9 15.5h6"],
    boxes: [{ x: 6.5, y: 5.5, width: 11, height: 13, rx: 3 }],
    dots: [[10, 10.5], [14, 10.5], [12, 2.2]],
  },
  flag: { lines: ["M6 21V3.5", "M6 4h12l-3 4.5 3 4.5H6"] },
  // (a tournament's: its table's live bar)
  cup: {
    lines: ["M8 3.5h8v5.5a4 4 0 0 1-8 0z", "M8 5.5H5.5a2.5 2.5 0 0 0 2.7 4", "M16 5.5h2.5a2.5 2.5 0 0 1-2.7 4",
      "M12 13v4", "M9.5 17h5", "M8 20.5h8"],
  },
};

/** The icon `name` as an <svg>, read out as `label` (else hidden from screen readers). */
export function icon(name, label = null) {
  const shape = ICONS[name];
  const node = svg("svg", {
    class: `icon icon-${name}`, viewBox: "0 0 24 24", width: 16, height: 16,
    ...(label ? { role: "img", "aria-label": label } : { "aria-hidden": "true" }),
  });
  const line = { fill: "none", stroke: "currentColor", "stroke-width": 2, "stroke-linecap": "round", "stroke-linejoin": "round" };
  for (const box of shape.boxes || []) node.append(svg("rect", { ...line, ...box }));
  for (const d of shape.lines || []) node.append(svg("path", { ...line, d }));
  for (const [cx, cy] of shape.dots || []) node.append(svg("circle", { cx, cy, r: 1.6, fill: "currentColor" }));
  return node;
}
