// Pages without a socket of their own still get the live balance from the lobby socket.
import { Connection } from "./socket.js";
import { showBalance } from "./balance.js";

if (!document.querySelector("[data-lobby], [data-table-app]")) {
  new Connection("/ws/lobby/", { onMessage: showBalance });
}
