// Wires the socket to the view: snapshots are rendered, clicks become events.
import { connect } from "./connection.js";
import { CLIENT_SEED, ERRORS, EVENTS, NOTICES } from "./protocol.js";
import { createSounds, cuesBetween } from "./sound.js";
import { createView } from "./view.js";

const ODDS_DEBOUNCE_MS = 250;
const SEED_KEY = "tictactoe-client-seed";
const SOUND_KEY = "tictactoe-sound"; // "on" or "off", once the player chose
const NUMBER_KEYS_KEY = "tictactoe-number-keys"; // "on" or "off"
const HINTS_KEY = "tictactoe-hints"; // "on" or "off"
const SEED_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
const SEED_LENGTH = 16;
const OFFLINE = "offline"; // connection.js's code for a question never sent

let current = null;
let heard = null; // the last snapshot whose sounds were played
let hintsOn = choice(HINTS_KEY, false);
let chancesOn = false;
let chancesFor = null; // the match position the chances shown are of
let chancesTicket = 0;
let rulesAsk = null; // the last rules the settings asked odds for
let oddsTicket = 0;
let oddsTimer = 0;
let oddsAnswered = true;
const verdicts = new Map(); // commitment -> verifyRecord's answer, once per game
let fairness = null; // the checker, loaded when the first game ends
let clientSeed = loadSeed();

/** A fresh random client seed: 16 characters from a-z and 0-9, without bias. */
function randomSeed() {
  const chars = [];
  const limit = 256 - (256 % SEED_ALPHABET.length);
  while (chars.length < SEED_LENGTH) {
    for (const byte of crypto.getRandomValues(new Uint8Array(SEED_LENGTH))) {
      if (byte >= limit || chars.length === SEED_LENGTH) continue;
      chars.push(SEED_ALPHABET[byte % SEED_ALPHABET.length]);
    }
  }
  return chars.join("");
}

/** What the browser keeps under `key`, or null (storage refused in a private window). */
function stored(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

/** Keep `value` under `key` if the browser lets us; it is kept for this page anyway. */
function store(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch {
    // Kept for this page only.
  }
  return value;
}

/** The browser's client seed, made and kept the first time. */
function loadSeed() {
  const seed = stored(SEED_KEY);
  if (seed && CLIENT_SEED.test(seed)) return seed;
  return saveSeed(randomSeed());
}

function saveSeed(seed) {
  return store(SEED_KEY, seed);
}

/** A remembered on/off choice, or `fallback` while the player has not made one. */
function choice(key, fallback) {
  const value = stored(key);
  return value === "on" ? true : value === "off" ? false : fallback;
}

const remember = (key, on) => store(key, on ? "on" : "off");

/**
 * The client seed of the game about to start: the player's own, joined to a value drawn
 * now, after the page has shown that game's commitment (docs/fairness.md), so that no
 * seed the server could know in advance decides its dice.
 */
const gameSeed = () => `${clientSeed}-${randomSeed()}`;

const view = createView({
  // The version says which state the player saw: a click on an older one is refused.
  play: (cell) => request(EVENTS.move, { cell, version: current?.version }),
  nextGame: () => request(EVENTS.nextGame, { client_seed: gameSeed() }),
  async newMatch(settings) {
    const reply = await connection.send(EVENTS.newMatch, { ...settings, client_seed: gameSeed() });
    if (reply.ok) {
      // The form is far below the board: bring the new match's first game into view.
      document.getElementById("game-title").closest("section").scrollIntoView({ block: "start" });
      return reply;
    }
    if (rulesRefused(reply.error)) view.showRulesError(reply.error, { started: true });
    else view.showError(reply.error?.code);
    return reply;
  },
  lockDifficulty: () => request(EVENTS.lockDifficulty),
  takeBack: () => request(EVENTS.takeBack),
  toggleHints(on) {
    hintsOn = remember(HINTS_KEY, on) === "on";
    refreshHints();
  },
  toggleChances(on) {
    chancesOn = on;
    chancesFor = null;
    refreshChances();
  },
  rulesChanged(ask) {
    rulesAsk = ask;
    askOdds();
  },
  seedChanged(seed) {
    clientSeed = saveSeed(seed);
    view.showSeed(clientSeed);
  },
  newSeed() {
    clientSeed = saveSeed(randomSeed());
    view.showSeed(clientSeed);
  },
  numberKeysChanged: (on) => remember(NUMBER_KEYS_KEY, on),
  toggleSound(on) {
    remember(SOUND_KEY, on);
    sounds.setOn(on);
    sounds.unlock(); // the toggle's click is a gesture
  },
});
view.showSeed(clientSeed);
view.showNumberKeys(choice(NUMBER_KEYS_KEY, true));
view.showHintsOn(hintsOn);

// Sound: off by default for those who ask for reduced motion. The AudioContext waits for
// a gesture (the browser's rule), so the first click or key press unlocks it.
const sounds = createSounds();
const calm = matchMedia("(prefers-reduced-motion: reduce)");
function setSound(on) {
  sounds.setOn(on);
  view.showSound(on);
}
setSound(choice(SOUND_KEY, !calm.matches));
calm.addEventListener("change", () => {
  if (stored(SOUND_KEY) === null) setSound(!calm.matches);
});
for (const type of ["pointerdown", "keydown"]) {
  document.addEventListener(type, () => sounds.unlock(), { capture: true });
}

const connection = connect({
  onState(state) {
    // Snapshots only move forward; after a reconnect the server's word is final.
    if (current && state.version < current.version) return;
    current = state;
    view.render(state);
    sounds.play(cuesBetween(heard, state));
    heard = state;
    refreshHints();
    refreshChances();
    checkDice(state);
  },
  onNotice(notice) {
    // The stored match was replaced by a new one, whose versions start again.
    if (notice?.code === NOTICES.matchUnreadable) current = null;
    view.showNotice(notice?.code);
  },
  onStatus(status, reason) {
    // Socket.IO delivers the first snapshot of a connection before "connect", so the
    // version check is relaxed while disconnected rather than on reconnect.
    if (status !== "online") current = null;
    view.setConnection(status, reason);
    if (status === "online" && !oddsAnswered) askOdds();
  },
});

async function request(event, payload) {
  const reply = await connection.send(event, payload);
  if (!reply.ok) view.showError(reply.error?.code);
  return reply;
}

async function refreshHints() {
  const state = current;
  if (!hintsOn || !state || state.status !== "playing" || state.turn !== "human") return;
  const reply = await request(EVENTS.hint);
  if (reply.ok && hintsOn && current === state) view.showHints(reply.analysis);
}

// A refusal of the settings: out of range (`bad_setting`), or a rule that is not a whole
// number (`bad_payload` naming it).
function rulesRefused(error) {
  const code = error?.code;
  return code === ERRORS.badSetting || (code === ERRORS.badPayload && Boolean(error.field));
}

// The odds of the rules in the settings: asked a moment after the last change, and only
// the answer to the latest question is shown.
function askOdds() {
  clearTimeout(oddsTimer);
  const ticket = ++oddsTicket;
  const ask = rulesAsk;
  oddsAnswered = !ask;
  if (!ask) return;
  oddsTimer = setTimeout(async () => {
    const reply = await connection.send(EVENTS.odds, ask);
    if (ticket !== oddsTicket || reply.error?.code === OFFLINE) return; // asked again online
    oddsAnswered = reply.ok || rulesRefused(reply.error);
    if (reply.ok) view.showOdds(reply.odds);
    else if (rulesRefused(reply.error)) view.showRulesError(reply.error);
    else view.showOddsUnavailable(reply.error?.code);
  }, ODDS_DEBOUNCE_MS);
}

// The chances of the match under way, asked again whenever its HP or lock change.
async function refreshChances() {
  const state = current;
  const match = state?.match;
  if (!chancesOn || !state || state.mode !== "adaptive" || match.over) {
    chancesFor = null;
    view.showChances(null);
    return;
  }
  const position = [match.game, match.human_hp, match.ai_hp, match.locked].join();
  if (position === chancesFor) return;
  chancesFor = position;
  const ticket = ++chancesTicket;
  const reply = await connection.send(EVENTS.odds, { current: true });
  if (ticket !== chancesTicket || !chancesOn) return;
  if (reply.ok) view.showChances(reply.odds);
  else {
    chancesFor = null; // asked again with the next snapshot
    view.showChances(null);
  }
}

// Each finished game's record is checked once, in the browser: the server's signature,
// that the game is whole, its dice.
async function checkDice(state) {
  const record = state.record;
  const dice = record?.dice;
  if (!dice?.server_seed) return;
  let verdict = verdicts.get(dice.commitment);
  if (!verdict) {
    fairness ??= import("./fairness.js").catch((err) => {
      fairness = null; // tried again with the next snapshot
      throw err;
    });
    const signed = state.signed_record ?? record;
    verdict = fairness.then(({ verifyRecord }) => verifyRecord(signed));
    verdicts.set(dice.commitment, verdict);
    verdict.catch(() => verdicts.delete(dice.commitment));
  }
  try {
    view.showVerdict(record, await verdict);
  } catch {
    view.showVerdict(record, null); // not checked: the checker could not be loaded
  }
}
