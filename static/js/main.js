// Wires the socket to the view: snapshots are rendered, clicks become events.
import {
  CHOICES,
  choice,
  lazyReader,
  loadSeed,
  randomSeed,
  remember,
  saveSeed,
  stored,
} from "./choices.js";
import { connect, sendPaid } from "./connection.js";
import { ERRORS, EVENTS, NOTICES } from "./protocol.js";
import { createSounds, cuesBetween } from "./sound.js";
import { createRules } from "./rules.js";
import { createView } from "./view.js";

const ODDS_DEBOUNCE_MS = 250;
const OFFLINE = "offline"; // connection.js's code for a question never sent

let current = null;
let heard = null; // the last snapshot whose sounds were played
let hintsOn = choice(CHOICES.hints, false);
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
  newMatch: () => rules.startMatch(),
  lockDifficulty: () => rules.confirmLock(),
  takeBack: () => request(EVENTS.takeBack),
  toggleHints(on) {
    hintsOn = remember(CHOICES.hints, on) === "on";
    refreshHints();
  },
  toggleChances(on) {
    chancesOn = on;
    chancesFor = null;
    refreshChances();
  },
  numberKeysChanged: (on) => remember(CHOICES.numberKeys, on),
  toggleSound(on) {
    remember(CHOICES.sound, on);
    sounds.setOn(on);
    sounds.unlock(); // the toggle's click is a gesture
  },
});
const rules = createRules({
  // Asked before anything is abandoned: the server judges the settings, nothing changes.
  checkMatch: (settings) =>
    connection.send(EVENTS.newMatch, { ...settings, client_seed: clientSeed, check: true }),
  newMatch(settings) {
    return connection.send(EVENTS.newMatch, { ...settings, client_seed: gameSeed() });
  },
  lockDifficulty: () => request(EVENTS.lockDifficulty),
  rulesChanged(ask) {
    rulesAsk = ask;
    askOdds();
  },
  seedChanged: (seed) => showSeed(saveSeed(seed)),
  newSeed: () => showSeed(saveSeed(randomSeed())),
  summaryChanged: (text) => view.showNextMatch(text),
  started: () => view.focusBoard(),
  failed: (code) => view.showError(code),
});

// The screen-reader mode's module comes with the mode (choices.js).
const reader = lazyReader(() =>
  import("./view_reader.js").then(({ createAiReader }) =>
    createAiReader({
      state: () => current,
      shape: () => view.shape(),
      name: (cell) => view.name(cell),
      headline: () => view.headline(),
      play: (cell) => request(EVENTS.move, { cell, version: current?.version }),
      hint: () => request(EVENTS.hint),
      takeBack: () => request(EVENTS.takeBack),
    }),
  ),
);

function showSeed(seed) {
  clientSeed = seed;
  view.showSeed(seed);
  rules.showSeed(seed);
}
showSeed(clientSeed);
view.showNumberKeys(choice(CHOICES.numberKeys, true));
view.showHintsOn(hintsOn);

// Sound: off by default for those who ask for reduced motion. The AudioContext waits for
// a gesture (the browser's rule), so the first click or key press unlocks it.
const sounds = createSounds();
const calm = matchMedia("(prefers-reduced-motion: reduce)");
function setSound(on) {
  sounds.setOn(on);
  view.showSound(on);
}
setSound(choice(CHOICES.sound, !calm.matches));
calm.addEventListener("change", () => {
  if (stored(CHOICES.sound) === null) setSound(!calm.matches);
});
for (const type of ["pointerdown", "keydown"]) {
  document.addEventListener(type, () => sounds.unlock(), { capture: true });
}

const connection = connect({
  onState(state) {
    // Snapshots only move forward; after a reconnect the server's word is final.
    if (current && state.version < current.version) return;
    const before = current ?? heard;
    current = state;
    view.render(state);
    rules.follow(state);
    sounds.play(cuesBetween(heard, state));
    heard = state;
    reader.render(before, state);
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
    const wanted = () => ticket === oddsTicket;
    const reply = await sendPaid(connection.send, EVENTS.odds, ask, { wanted });
    if (ticket !== oddsTicket || reply.error?.code === OFFLINE) return; // asked again online
    oddsAnswered = reply.ok || rulesRefused(reply.error);
    if (reply.ok) rules.showOdds(reply.odds);
    else if (rulesRefused(reply.error)) rules.showRulesError(reply.error);
    else rules.showOddsUnavailable(reply.error?.code);
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
  // A refusal for a spent share of work is asked again when the share is back.
  const wanted = () => ticket === chancesTicket && chancesOn;
  const reply = await sendPaid(connection.send, EVENTS.odds, { current: true }, { wanted });
  if (ticket !== chancesTicket || !chancesOn) return;
  if (reply.ok) view.showChances(reply);
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
