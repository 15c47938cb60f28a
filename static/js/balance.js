// The header's chip balance, kept live by `balance` events on any socket.
import { chips } from "./i18n.js";

export function showBalance(message) {
  if (message.type !== "event" || message.event !== "balance") return false;
  for (const node of document.querySelectorAll("[data-balance-value], [data-wallet-balance]")) {
    node.textContent = chips(message.balance);
  }
  return true;
}
