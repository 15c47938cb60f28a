// Players' avatars: the SVG files by key (base.html's `avatar-urls`, from
// accounts/avatars.py), drawn as images.
import { h } from "./dom.js";

const script = document.getElementById("avatar-urls");
const URLS = script ? JSON.parse(script.textContent) : {};

export function avatarImg(key, { alt = "", size = 40, extra = "" } = {}) {
  const src = URLS[key] || Object.values(URLS)[0];
  return h("img", {
    class: `avatar-img ${extra}`.trim(), src, alt, width: size, height: size, loading: "lazy",
    "data-avatar": key || "",
  });
}
