// Wires the socket to the view: snapshots are rendered, clicks become events.
import { connect } from "./connection.js";
import { CLIENT_SEED, ERRORS, EVENTS, NOTICES } from "./protocol.js";
import { createView } from "./view.js";

const ODDS_DEBOUNCE_MS = 250;
const SEED_KEY = "tictactoe-client-seed";
const SEED_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
const SEED_LENGTH = 16;
const OFFLINE = "offline"; // connection.js's code for a question never sent

let current = null;
let hintsOn = false;
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

/** The browser's client seed, made and kept the first time. */
function loadSeed() {
  let seed = null;
  try {
    seed = localStorage.getItem(SEED_KEY);
  } catch {
    // Storage refused (a private window): a seed for this page only.
  }
  if (seed && CLIENT_SEED.test(seed)) return seed;
  return saveSeed(randomSeed());
}

function saveSeed(seed) {
  try {
    localStorage.setItem(SEED_KEY, seed);
  } catch {
    // Kept for this page only.
  }
  return seed;
}

const view = createView({
  // The version says which state the player saw: a click on an older one is refused.
  play: (cell) => request(EVENTS.move, { cell, version: current?.version }),
  nextGame: () => request(EVENTS.nextGame, { client_seed: clientSeed }),
  async newMatch(settings) {
    const reply = await connection.send(EVENTS.newMatch, { ...settings, client_seed: clientSeed });
    if (reply.ok) return reply;
    const refused = reply.error?.code === ERRORS.badSetting;
    if (refused) view.showRulesError(reply.error, { started: true });
    else view.showError(reply.error?.code);
    return reply;
  },
  lockDifficulty: () => request(EVENTS.lockDifficulty),
  toggleHints(on) {
    hintsOn = on;
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
});
view.showSeed(clientSeed);

const connection = connect({
  onState(state) {
    // Snapshots only move forward; after a reconnect the server's word is final.
    if (current && state.version < current.version) return;
    current = state;
    view.render(state);
    refreshHints();
    refreshChances();
    checkDice(state.record);
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
    oddsAnswered = reply.ok || reply.error?.code === ERRORS.badSetting;
    if (reply.ok) view.showOdds(reply.odds);
    else if (reply.error?.code === ERRORS.badSetting) view.showRulesError(reply.error);
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

// Each finished game's dice are checked once, in the browser.
async function checkDice(record) {
  const dice = record?.dice;
  if (!dice?.server_seed) return;
  let verdict = verdicts.get(dice.commitment);
  if (!verdict) {
    fairness ??= import("./fairness.js").catch((err) => {
      fairness = null; // tried again with the next snapshot
      throw err;
    });
    verdict = fairness.then(({ verifyRecord }) => verifyRecord(record));
    verdicts.set(dice.commitment, verdict);
    verdict.catch(() => verdicts.delete(dice.commitment));
  }
  try {
    view.showVerdict(record, await verdict);
  } catch {
    view.showVerdict(record, null); // not checked: the checker could not be loaded
  }
}
