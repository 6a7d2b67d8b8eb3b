// Checks a finished game's dice in the browser, as docs/fairness.md describes: the
// revealed server seed against its commitment, then every number drawn from the stream.
// Arithmetic only: which moves were legal or perfect is the server's word (and
// `tictactoe verify` replays them offline).
import { cellName } from "./protocol.js";

const HEX_SEED = /^[0-9a-f]{64}$/;
const WHO = { human: "you", ai: "the AI" };
const FIRST_BY = ["dice", "choice", "position"];

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

const isCell = (cell) => Number.isInteger(cell) && cell >= 0 && cell <= 8;
const nameOf = (cell) => (isCell(cell) ? cellName(cell) : String(cell));

/** The AI's difficulty in a game of the record (docs/fairness.md), or null in a fixed mode. */
function difficultyOf(record) {
  if (record.locked != null) return record.locked;
  if (record.ai_hp == null) return null;
  return Math.max(0, Math.min(100, 100 - record.ai_hp));
}

/** Check one AI move's numbers; `next` is the stream number it must use first. */
async function checkMove(record, move, index, next, draw) {
  const name = `AI move ${index} at ${nameOf(move.cell)}`;
  const adaptive = record.mode === "adaptive";
  if (adaptive && move.roll_n == null) throw new Mismatch(`${name}: the record has no roll`);
  if (move.roll_n != null) {
    const order = `${name}: its roll is stream number ${move.roll_n}, expected ${next}`;
    expectEqual(move.roll_n, next, order);
    const roll = pick(await draw(next), 100);
    const said = `${name}: the dice give roll ${roll}, the record says ${move.roll}`;
    expectEqual(move.roll, roll, said);
    next += 1;
    if (adaptive) {
      const difficulty = difficultyOf(record);
      if (difficulty != null) {
        expectEqual(
          move.difficulty,
          difficulty,
          `${name}: the difficulty is ${difficulty}, the record says ${move.difficulty}`,
        );
      }
      const decision = roll < move.difficulty ? "perfect" : "random";
      const means = `roll ${roll} against difficulty ${move.difficulty} means a ${decision} move`;
      expectEqual(move.decision, decision, `${name}: ${means}, the record says ${move.decision}`);
    }
  }
  const candidates = move.candidates;
  const sorted =
    Array.isArray(candidates) &&
    candidates.length > 0 &&
    candidates.every((cell, i) => isCell(cell) && (i === 0 || cell > candidates[i - 1]));
  if (!sorted) throw new Mismatch(`${name}: its candidates are not sorted cells`);
  const order = `${name}: its pick is stream number ${move.pick_n}, expected ${next}`;
  expectEqual(move.pick_n, next, order);
  const cell = candidates[pick(await draw(next), candidates.length)];
  const picked = `the dice pick ${cellName(cell)} from ${candidates.map(cellName).join(", ")}`;
  const said = `${name}: ${picked}, the record says ${nameOf(move.cell)}`;
  expectEqual(move.cell, cell, said);
  return next + 1;
}

/**
 * Who starts: number 0 of the stream, unless the record says the player chose it or the
 * practice position set it (format 2), when number 0 is not drawn at all.
 */
function checkFirst(record, zero) {
  const firstBy = record.first_by ?? "dice"; // format 1 drew it every time
  if (!FIRST_BY.includes(firstBy)) throw new Mismatch(`unknown first_by ${firstBy}`);
  if (!Object.hasOwn(WHO, record.first ?? "")) throw new Mismatch(`unknown first player ${record.first}`);
  if (firstBy !== "dice") return;
  const first = pick(zero, 2) === 0 ? "human" : "ai";
  const who = `who starts: the dice say ${WHO[first]}, the record says ${WHO[record.first]}`;
  expectEqual(record.first, first, who);
}

async function check(record) {
  const dice = record?.dice;
  if (!dice) throw new Mismatch("the game began before verifiable dice");
  if (dice.server_seed == null) throw new Mismatch("the server seed is not revealed yet");
  if (!HEX_SEED.test(dice.server_seed)) throw new Mismatch("the server seed is not 64 hex digits");
  const digest = hex(await crypto.subtle.digest("SHA-256", bytesOf(dice.server_seed)));
  expectEqual(digest, dice.commitment, "the server seed does not match the commitment");
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
 * Check a finished game's record (docs/fairness.md): resolves to {ok: true}, or to
 * {ok: false, reason} naming the first check that failed. Never rejects.
 */
export async function verifyRecord(record) {
  try {
    await check(record);
    return { ok: true };
  } catch (err) {
    if (err instanceof Mismatch) return { ok: false, reason: err.message };
    return { ok: false, reason: `the record could not be read (${err?.message ?? err})` };
  }
}
