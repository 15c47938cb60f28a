// The `delta` message (docs/protocol.md): what one move, or a change of the
// seats only, changed, for the state of version `base` (of the same hand).
// The same as the server's games.protocol.apply_delta (tests/e2e/test_delta_js.py
// checks they agree).

/** The state `delta` makes of `state`, or null when it does not apply (`state`
 * is not of version `base`, or of another hand): then the client sends
 * `sync`. `state` is not changed. */
export function applyDelta(state, delta) {
  if (!state || state.v !== delta.base) return null;
  let hand = state.hand;
  // A seat delta (ready, present, chips...) has no `hand`: the hand is as it was.
  if (delta.hand) {
    if (!hand || hand.id !== delta.hand.id) return null;
    const patch = delta.hand.view;
    const view = { ...(hand.view || {}) };
    Object.assign(view, patch.set || {});
    for (const [key, items] of Object.entries(patch.append || {})) {
      view[key] = [...(Object.prototype.hasOwnProperty.call(view, key) ? view[key] : []), ...items];
    }
    for (const key of patch.unset || []) delete view[key];
    // The hand's other fields that changed (at its end: finished, result,
    // server_seed) replace the state's.
    hand = { ...hand, ...delta.hand, view };
  }
  const rebuilt = {
    ...state,
    v: delta.v,
    server_time: delta.server_time,
    actors: delta.actors,
    clock: delta.clock,
    hand,
    events: delta.events,
    resync: false,
  };
  // The table's fields that changed replace the state's (a seat delta: its seats).
  if (delta.table) rebuilt.table = { ...state.table, ...delta.table };
  return rebuilt;
}
