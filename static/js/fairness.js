// Provably fair dealing, recomputed in the browser with Web Crypto, exactly as
// docs/fairness.md specifies: commitment = SHA-256(seed); an HMAC-SHA256 counter
// stream keyed by the seed over (hand id, client seeds); rejection-sampled
// uniform draws; Fisher-Yates from the top.

const RANKS = "23456789TJQKA";
const SUITS = "scdh";
const TWO32 = 2 ** 32;

export const cardName = (code) => RANKS[code >> 2] + SUITS[code & 3];

function hexToBytes(hex) {
  if (typeof hex !== "string" || !/^[0-9a-fA-F]*$/.test(hex) || hex.length % 2) {
    throw new Error("not hex");
  }
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

const toHex = (buffer) =>
  Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");

function subtle() {
  if (!globalThis.crypto || !globalThis.crypto.subtle) {
    throw new Error("Web Crypto is not available (it needs HTTPS)");
  }
  return globalThis.crypto.subtle;
}

export async function commitmentOf(seedHex) {
  return toHex(await subtle().digest("SHA-256", hexToBytes(seedHex)));
}

export function context(handId, clientSeeds) {
  const encoder = new TextEncoder();
  const parts = [handId, ...clientSeeds].map((s) => encoder.encode(s));
  const out = new Uint8Array(parts.reduce((n, p) => n + 4 + p.length, 0));
  const view = new DataView(out.buffer);
  let at = 0;
  for (const part of parts) {
    view.setUint32(at, part.length, false);
    out.set(part, at + 4);
    at += 4 + part.length;
  }
  return out;
}

export class FairStream {
  constructor(key, ctx) {
    this.key = key;
    this.ctx = ctx;
    this.counter = 0;
    this.words = [];
  }

  static async open(seedHex, handId, clientSeeds) {
    const key = await subtle().importKey(
      "raw", hexToBytes(seedHex), { name: "HMAC", hash: "SHA-256" }, false, ["sign"],
    );
    return new FairStream(key, context(handId, clientSeeds));
  }

  async word() {
    if (!this.words.length) {
      const message = new Uint8Array(this.ctx.length + 8);
      message.set(this.ctx);
      const view = new DataView(message.buffer);
      view.setUint32(this.ctx.length, Math.floor(this.counter / TWO32), false);
      view.setUint32(this.ctx.length + 4, this.counter % TWO32, false);
      const block = new DataView(await subtle().sign("HMAC", this.key, message));
      this.counter += 1;
      for (let i = 0; i < 32; i += 4) this.words.push(block.getUint32(i, false));
    }
    return this.words.shift();
  }

  async uniform(n) {
    const limit = TWO32 - (TWO32 % n);
    for (;;) {
      const u = await this.word();
      if (u < limit) return u % n;
    }
  }
}

/** The 52 cards in deck order, as text ("Qd", ...). */
export async function deck(seedHex, handId, clientSeeds) {
  const stream = await FairStream.open(seedHex, handId, clientSeeds);
  const cards = Array.from({ length: 52 }, (_, i) => i);
  for (let j = 51; j > 0; j--) {
    const k = await stream.uniform(j + 1);
    [cards[j], cards[k]] = [cards[k], cards[j]];
  }
  return cards.map(cardName);
}

/** A dealing order of `size` cards to each player in turn, from the top:
 * (deck, players, index) => the cards player `index` was dealt. Each game's
 * module (static/js/games/*.js) names its own `deal` and, if any, `board`. */
export const dealtInTurns = (size) => (deckCards, players, index) => deckCards.slice(size * index, size * index + size);

const sameCards = (a, b) => a.length === b.length && [...a].sort().join() === [...b].sort().join();

/**
 * Check a finished hand dealt by `game` (its module: `deal`, optional `board`).
 * `known` maps player index → the cards that player is known to have been
 * dealt (own cards, shown cards); `knownBoard` the board dealt.
 * Returns {commitmentOk, dealOk, deck, mismatches}.
 */
export async function verifyHand({ game, serverSeed, commitment, handId, clientSeeds, players, known = {}, knownBoard = null }) {
  const commitmentOk = (await commitmentOf(serverSeed)) === String(commitment).toLowerCase();
  const cards = await deck(serverSeed, handId, clientSeeds);
  const mismatches = [];
  for (const [index, cardsDealt] of Object.entries(known)) {
    const expected = game.deal(cards, players, Number(index));
    if (!sameCards(cardsDealt, expected)) mismatches.push(Number(index));
  }
  if (knownBoard && knownBoard.length) {
    const expected = game.board(cards, players).slice(0, knownBoard.length);
    if (expected.join() !== knownBoard.join()) mismatches.push("board");
  }
  return { commitmentOk, dealOk: mismatches.length === 0, deck: cards, mismatches };
}
