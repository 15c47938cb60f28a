// The moments the table screen reacts to (motion and sound), derived from the
// state before and after a change: pure, no DOM, no clock of its own.
//
// A moment is a plain object with a `type`; `player` is an index into the
// hand's players and `seat` the seat position they were dealt at:
//   {type: "deal", seats}                       a new hand was dealt
//   {type: "turn", seat, kind}                  my clock starts (kind: the clock's)
//   {type: "end", won, units, chips, unit, winners, losers}
//                                               the hand ended; my net (null when
//                                               I was not dealt in), winners and
//                                               losers as [{player, seat, name}]
//   {type: "tick", seconds}                     the last 5 s of my clock (clockSecond)
//   {type: "board", streets}                    board cards dealt, a street each
//                                               ([[cards], ...]: several when an
//                                               all-in runs the board out)
// and each game's own (its module's `moments`, static/js/games/*.js): a card
// played, a chop, a thối, an all-in, a bet, chips to the pot, a chi revealed.

/** The pause between two streets of a board run out in one change: the
 * streets come one by one, and what follows them (the result, the winner's
 * chips) waits for the last. */
export const STREET_MS = 900;

/** How long a moment holds back the ones after it, in ms (a board run out). */
export function holdMs(m) {
  return m.type === "board" ? (m.streets.length - 1) * STREET_MS : 0;
}

/** The moments of the change from `prev` to `next` (states as TableShell keeps
 * them; a delta's events are `next.events`). Opening a table (no `prev`) is
 * history, not news: no moments. `game` is the game's browser module. */
export function moments(prev, next, game = null) {
  if (!prev || !next || !next.hand) return [];
  const hand = next.hand;
  const same = !!prev.hand && prev.hand.id === hand.id;
  const me = typeof next.you === "number" ? next.you : null;
  const seatOf = (index) => (hand.players[index] ? hand.players[index].position : null);
  // The events not seen in `prev` (a full state after a gap repeats none it had).
  const seen = same ? prev.hand.last_seq || 0 : 0;
  const events = (next.events || []).filter((e) => e.seq > seen);
  const ended = !!hand.finished && !(same && prev.hand.finished);
  const result = hand.result && !hand.result.voided ? hand.result : null;
  const out = [];
  if (!same) out.push({ type: "deal", seats: hand.players.map((p) => p.position) });
  if (game && game.moments && hand.view) {
    out.push(...game.moments({
      before: same ? prev.hand.view : null, view: hand.view, events, me, seatOf, ended, result,
    }));
  }
  if (ended && result) out.push(endMoment(hand, result, me, seatOf));
  const turn = turnMoment(prev, next, same, me);
  if (turn) out.push(turn);
  return out;
}

function endMoment(hand, result, me, seatOf) {
  const who = (index) => ({ player: index, seat: seatOf(index), name: hand.players[index].name });
  const indices = result.net.map((_, i) => i);
  const units = me === null ? null : result.net[me];
  return {
    type: "end",
    won: units === null ? null : units > 0,
    units,
    chips: me !== null && result.chips ? result.chips[me] : null,
    unit: result.unit,
    winners: indices.filter((i) => result.net[i] > 0).map(who),
    losers: indices.filter((i) => result.net[i] < 0).map(who),
  };
}

/** My move now, on a clock that was not already mine before the change. */
function turnMoment(prev, next, same, me) {
  const hand = next.hand;
  if (me === null || hand.finished || !(next.actors || []).includes(me)) return null;
  const clock = next.clock;
  const already = same && (prev.actors || []).includes(me) && !prev.hand.finished
    && !!prev.clock && !!clock && prev.clock.started === clock.started;
  if (already) return null;
  return { type: "turn", seat: next.seat, kind: clock ? clock.kind : null };
}

/** The whole seconds left on my clock when they are 5 or fewer, with a key that
 * changes once a second (a tick when it does), else null. `now` is the
 * server's time as the client reckons it. */
export function clockSecond(state, now) {
  const clock = state && state.clock;
  if (!clock || state.seat === null || state.seat === undefined || !clock.seats.includes(state.seat)) return null;
  const left = clock.deadline - now;
  if (left <= 0 || left > 5000) return null;
  const seconds = Math.ceil(left / 1000);
  return { seconds, key: `${clock.started}:${seconds}` };
}
