// Checks a finished game's record in the browser, as docs/fairness.md describes: the
// server's Ed25519 signature over the record's bytes (where Web Crypto has Ed25519),
// that the record is a whole finished game, then the revealed server seed against its
// commitment and every number drawn from the stream. Which moves were perfect is the
// server's word (and `tictactoe verify` checks it offline against the engine).
import { boardOf } from "./fairness_board.js";
import { cellName } from "./protocol.js";
import { MISMATCHES as SAY, WHO } from "./words_fairness.js";

const HEX_SEED = /^[0-9a-f]{64}$/;
const FIRST_BY = ["dice", "choice", "position"];
const SIGNED_KIND = "tictactoe-hp-signed-game";
// Served at the site's root, two folders above this module (static/js/).
const KEYS_URL = new URL("../../.well-known/tictactoe-keys.json", import.meta.url);
const ENDED = new Set(["human_won", "ai_won", "draw"]);

const hex = (buffer) =>
  Array.from(new Uint8Array(buffer), (byte) => byte.toString(16).padStart(2, "0")).join("");

function bytesOf(hexText) {
  return Uint8Array.from(hexText.match(/../g), (pair) => parseInt(pair, 16));
}

/** The game's dice stream: `draw(n)` is D(n) as a BigInt. */
async function stream(serverSeed, clientSeed, game) {
  const key = await crypto.subtle.importKey(
    "raw",
    bytesOf(serverSeed),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const utf8 = new TextEncoder();
  return async (n) => {
    const digest = await crypto.subtle.sign("HMAC", key, utf8.encode(`${clientSeed}:${game}:${n}`));
    return BigInt(`0x${hex(digest)}`);
  };
}

/** A number from 0 to k - 1 drawn as D(n) mod k. */
const pick = (value, k) => Number(value % BigInt(k));

class Mismatch extends Error {}

function expectEqual(actual, expected, what) {
  if (actual !== expected) throw new Mismatch(what);
}

let shown = { cells: 9, name: cellName }; // the board of the record being checked
const isCell = (cell) => Number.isInteger(cell) && cell >= 0 && cell < shown.cells;
const nameOf = (cell) => (isCell(cell) ? shown.name(cell) : String(cell));

/** The AI's difficulty in a game of the record (docs/fairness.md), or null in a fixed mode. */
function difficultyOf(record) {
  if (record.locked != null) return record.locked;
  if (record.ai_hp == null) return null;
  return Math.max(0, Math.min(100, 100 - record.ai_hp));
}

/** Check one AI move's numbers; `next` is the stream number it must use first. */
async function checkMove(record, move, index, next, draw) {
  const name = SAY.aiMove(index, nameOf(move.cell));
  const adaptive = record.mode === "adaptive";
  if (adaptive && move.roll_n == null) throw new Mismatch(SAY.noRoll(name));
  if (move.roll_n != null) {
    expectEqual(move.roll_n, next, SAY.rollOrder(name, move.roll_n, next));
    const roll = pick(await draw(next), 100);
    expectEqual(move.roll, roll, SAY.roll(name, roll, move.roll));
    next += 1;
    if (adaptive) {
      const difficulty = difficultyOf(record);
      if (difficulty != null) {
        const said = SAY.difficulty(name, difficulty, move.difficulty);
        expectEqual(move.difficulty, difficulty, said);
      }
      const decision = roll < move.difficulty ? "perfect" : "random";
      const said = SAY.decision(name, roll, move.difficulty, decision, move.decision);
      expectEqual(move.decision, decision, said);
    }
  }
  const candidates = move.candidates;
  const sorted =
    Array.isArray(candidates) &&
    candidates.length > 0 &&
    candidates.every((cell, i) => isCell(cell) && (i === 0 || cell > candidates[i - 1]));
  if (!sorted) throw new Mismatch(SAY.candidates(name));
  expectEqual(move.pick_n, next, SAY.pickOrder(name, move.pick_n, next));
  const cell = candidates[pick(await draw(next), candidates.length)];
  const cells = candidates.map(shown.name).join(", ");
  expectEqual(move.cell, cell, SAY.pick(name, shown.name(cell), cells, nameOf(move.cell)));
  return next + 1;
}

/**
 * Who starts: number 0 of the stream, unless the record says the player chose it or the
 * practice position set it (format 2), when number 0 is not drawn at all.
 */
function checkFirst(record, zero) {
  const firstBy = record.first_by ?? "dice"; // format 1 drew it every time
  if (!FIRST_BY.includes(firstBy)) throw new Mismatch(SAY.firstBy(firstBy));
  if (!Object.hasOwn(WHO, record.first ?? "")) {
    throw new Mismatch(SAY.firstPlayer(record.first));
  }
  if (firstBy !== "dice") return;
  const first = pick(zero, 2) === 0 ? "human" : "ai";
  expectEqual(record.first, first, SAY.first(WHO[first], WHO[record.first]));
}

let published = null; // the server's public keys by id, fetched once

function serverKeys() {
  published ??= fetch(KEYS_URL, { cache: "no-cache" })
    .then((reply) => {
      if (!reply.ok) throw new Error(SAY.keys(reply.status));
      return reply.json();
    })
    .then((document) => new Map(document.keys.map((key) => [key.id, key.public_key])))
    .catch((err) => {
      published = null; // fetched again for the next record
      throw err;
    });
  return published;
}

function base64Bytes(text, name) {
  try {
    return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
  } catch {
    throw new Mismatch(SAY.base64(name));
  }
}

/**
 * The record inside `document` and what its signature says: "verified", "unchecked"
 * (this browser has no Ed25519, or the keys could not be loaded) or "unsigned" (a bare
 * record). Throws Mismatch for a signature that does not hold.
 */
async function opened(document) {
  if (document?.kind !== SIGNED_KIND) return { record: document, signature: "unsigned" };
  if (document.format !== 1) throw new Mismatch(SAY.format);
  const payload = base64Bytes(document.payload, "payload");
  const signature = base64Bytes(document.signature, "signature");
  let record;
  try {
    record = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(payload));
  } catch {
    throw new Mismatch(SAY.payload);
  }
  const key = document.key;
  let keys;
  try {
    keys = await serverKeys();
  } catch {
    return { record, signature: "unchecked", key };
  }
  if (!keys.has(key)) {
    throw new Mismatch(SAY.unknownKey(key));
  }
  let publicKey;
  try {
    const ed25519 = { name: "Ed25519" };
    publicKey = await crypto.subtle.importKey("raw", bytesOf(keys.get(key)), ed25519, false, [
      "verify",
    ]);
  } catch (err) {
    if (err?.name === "NotSupportedError") return { record, signature: "unchecked", key };
    throw err;
  }
  const good = await crypto.subtle.verify({ name: "Ed25519" }, publicKey, signature, payload);
  if (!good) throw new Mismatch(SAY.signature(key));
  return { record, signature: "verified", key };
}

/** Check that `record` is a whole finished game: its moves, in turn, reach its status. */
function checkComplete(record) {
  const revealed = record.dice?.server_seed != null;
  if (!ENDED.has(record.status)) {
    throw new Mismatch(SAY.notOver(JSON.stringify(record.status), revealed));
  }
  if (typeof record.mode !== "string" || typeof record.rules !== "object" || !record.rules) {
    throw new Mismatch(SAY.noRules);
  }
  if (!WHO[record.first]) throw new Mismatch(SAY.noFirst);
  const board = boardOf(record);
  if (!board) throw new Mismatch(SAY.noRules);
  shown = board;
  const outcomeOf = (marks) => board.outcome(marks, placed);
  const cells = Array(board.cells).fill(null);
  let placed = 0;
  const place = (cell, index) => {
    if (!isCell(cell) || cells[cell]) throw new Mismatch(SAY.notEmpty(index));
    cells[cell] = placed++ % 2 === 0 ? "X" : "O";
  };
  (record.setup ?? []).forEach((cell) => place(cell, 0));
  const other = record.first === "human" ? "ai" : "human";
  (record.moves ?? []).forEach((move, i) => {
    if (outcomeOf(cells)) throw new Mismatch(SAY.afterEnd(i + 1));
    const mover = placed % 2 === 0 ? record.first : other;
    if (move.by !== mover) throw new Mismatch(SAY.notTurn(i + 1, WHO[mover]));
    place(move.cell, i + 1);
  });
  const outcome = outcomeOf(cells);
  const status =
    outcome === null
      ? "playing"
      : outcome === "draw"
        ? "draw"
        : (outcome === "X") === (record.first === "human")
          ? "human_won"
          : "ai_won";
  if (status !== record.status) {
    throw new Mismatch(SAY.ending(status, record.status));
  }
}

async function check(record) {
  const dice = record?.dice;
  if (!dice) throw new Mismatch(SAY.noDice);
  if (dice.server_seed == null) throw new Mismatch(SAY.seedHidden);
  if (!HEX_SEED.test(dice.server_seed)) throw new Mismatch(SAY.seedForm);
  const digest = hex(await crypto.subtle.digest("SHA-256", bytesOf(dice.server_seed)));
  expectEqual(digest, dice.commitment, SAY.commitment);
  const draw = await stream(dice.server_seed, dice.client_seed, record.game);

  checkFirst(record, await draw(0));
  let next = 1;
  let index = 0;
  for (const move of record.moves ?? []) {
    if (move.by !== "ai") continue;
    index += 1;
    next = await checkMove(record, move, index, next, draw);
  }
}

/**
 * Check a finished game's record, signed or bare (docs/fairness.md): resolves to
 * {ok: true, signature, key} (signature: "verified", "unchecked" or "unsigned"), or to
 * {ok: false, reason} naming the first check that failed. Never rejects.
 */
export async function verifyRecord(document) {
  try {
    const { record, signature, key } = await opened(document);
    checkComplete(record);
    await check(record);
    return { ok: true, signature, key: key ?? null };
  } catch (err) {
    if (err instanceof Mismatch) return { ok: false, reason: err.message };
    return { ok: false, reason: SAY.unreadable(err?.message ?? err) };
  }
}
