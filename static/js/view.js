// The page: renders server snapshots into the DOM and turns input into intentions.
// No game rules live here; every decision comes from the server's `state`.

import {
  CLIENT_ERROR_MESSAGES,
  CLIENT_SEED,
  ERROR_MESSAGES,
  NOTICE_MESSAGES,
  RECORD_VERIFIED,
  cellName,
} from "./protocol.js";
import { eitherCell, plural } from "./replay.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const NOTICE_MS = 3500;
const SERVER_NOTICE_MS = 10000; // what the server tells unasked is read more slowly
const SERVER_NOTICE_FIRST_MS = 2000; // errors that follow from it do not replace it at once

const RESULTS = { human_won: "You win!", ai_won: "AI wins", draw: "Draw" };
const MATCH_RESULTS = { human: "You won the match!", ai: "The AI won the match" };
const THINKING = "AI is thinking";
const OFFLINE_STATUS = {
  offline: "Not connected: reconnecting…",
  refused: "Not connected: the server refused the connection",
};

// What the AI did, by its decision; `depth` is how far lookahead looks.
const DECISIONS = {
  perfect: (cell) => `played its best move, ${cell}`,
  random: (cell) => `moved at random, ${cell}`,
  heuristic: (cell) => `played the move with the best odds, ${cell}`,
  lookahead: (cell, depth) => `looked ${depth} moves ahead and played ${cell}`,
};

// How a game ended, said after the move that ended it.
const ENDINGS = {
  human_won: ": three in a row, you win",
  ai_won: ": three in a row, the AI wins",
  draw: ": the board is full, a draw",
};

// Who starts the first game of a fixed-mode match, as the new-match summary says it.
const FIRST_WORDS = { toss: "coin toss for who starts", human: "you start", ai: "the AI starts" };

const formatDelta = (n) => (n > 0 ? `+${n}` : n < 0 ? `-${-n}` : "±0");

/**
 * A probability as a percentage with about three significant figures: 84.7%, 0.002%,
 * 99.3%, 100%; never rounded up to 100% or down to 0% unless it is exactly that.
 */
export function percent(probability) {
  const p = probability * 100;
  if (!(p > 0)) return "0%";
  if (p >= 100) return "100%";
  const trim = (text) => (text.includes(".") ? text.replace(/\.?0+$/, "") : text);
  let decimals = Math.min(20, Math.max(0, 2 - Math.floor(Math.log10(p))));
  let text = trim(p.toFixed(decimals));
  while (Number(text) >= 100 && decimals < 20) text = trim(p.toFixed(++decimals));
  return `${text}%`;
}

const games = (n) => `${n} game${n === 1 ? "" : "s"}`;

/** The odds line of the rules: a perfect and a random player's chances of a match. */
export function oddsSentence(odds) {
  const perfect = odds.perfect;
  const played = Math.round(perfect.expected_games);
  return (
    `A perfect player wins this match ${percent(perfect.human_match_win_prob)} of the time, ` +
    `in about ${games(played)}; a random player ${percent(odds.random.human_match_win_prob)}`
  );
}

/** The chances of the match under way, from its current HP. */
export function chancesSentence(odds) {
  return (
    `From here, a perfect player wins ${percent(odds.perfect.human_match_win_prob)} ` +
    `of this match; a random one ${percent(odds.random.human_match_win_prob)}`
  );
}

/** A commitment or seed shortened for reading: its first 8 and last 4 hex digits. */
const shortHex = (hex) => (hex.length > 14 ? `${hex.slice(0, 8)}…${hex.slice(-4)}` : hex);

function svg(tag, attrs) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, value);
  return el;
}

/** An animated X or O drawn with strokes. */
function glyph(mark) {
  const root = svg("svg", { viewBox: "0 0 100 100", focusable: "false" });
  if (mark === "X") {
    root.append(
      svg("line", { x1: 24, y1: 24, x2: 76, y2: 76, pathLength: 1 }),
      svg("line", { x1: 76, y1: 24, x2: 24, y2: 76, pathLength: 1 }),
    );
  } else {
    root.append(svg("circle", { cx: 50, cy: 50, r: 28, pathLength: 1 }));
  }
  return root;
}

/**
 * A hint (the server's {result, plies} for a cell) in the player's own moves: the short
 * label on the cell, and the sentence a screen reader hears. Plies count both sides'
 * moves, this one included, so a win in 3 plies is this move and one more of yours.
 */
export function hintWords({ result, plies }) {
  if (result === "draw") return { label: "draw", sentence: "draw with best play" };
  if (result !== "win") return { label: "loses", sentence: "loses against best play" };
  const mine = Math.ceil(plies / 2);
  if (mine === 1) return { label: "win now", sentence: "win now: three in a row" };
  return { label: `win · ${mine} moves`, sentence: `win in ${mine} of your moves` };
}

const SLIPS = { inaccuracy: "an inaccuracy", mistake: "a mistake", blunder: "a blunder" };

/** What a move leads to under best play: "it wins in 2 moves", "it only draws". */
function leadsTo({ result, plies }, { slipped = false } = {}) {
  if (result === "draw") return slipped ? "it only draws" : "it keeps a draw";
  return `it ${result === "win" ? "wins" : "loses"} in ${plural(Math.ceil(plies / 2), "move")}`;
}

/**
 * A practice game from a mistake, in words: `lesson` names the mistake and asks for
 * another move; `feedback` says what the player's latest move does (the server's
 * verdict: the mistake again, the best move, another good one, or a slip).
 */
export function practiceWords({ mistake, feedback }) {
  const slip = SLIPS[mistake.verdict] ?? mistake.verdict;
  const lost = leadsTo(mistake.played, { slipped: true });
  const lesson = `You played ${mistake.cell} here, ${slip}: ${lost}; try another move.`;
  if (!feedback) return { lesson, feedback: "" };
  const kept = ["best", "good"].includes(feedback.feedback);
  const it = leadsTo(feedback.played, { slipped: !kept });
  const best = `best was ${eitherCell(feedback.best_cells)}`;
  const said = {
    played: `That's the move you played: ${it}.`,
    best: `Best move: ${feedback.cell}, ${it}.`,
    good: `Also good: ${feedback.cell}, ${it}; ${best}.`,
  }[feedback.feedback];
  const slipped = `${feedback.cell} is ${SLIPS[feedback.feedback] ?? feedback.feedback}: ${it}; ${best}.`;
  return { lesson, feedback: said ?? slipped };
}

/** What the AI's `move` was, in plain words; `mode` is the fixed mode's name. */
export function aiMoveWords(move, { mode, depth = 2 }) {
  const cell = cellName(move.cell);
  const did = (DECISIONS[move.decision] ?? ((name) => `played ${name}`))(cell, depth);
  const level = move.difficulty;
  if (level == null) return `${mode}: the AI ${did}`;
  // At 0 and at 100 the roll decides nothing, so it goes unsaid.
  if (level <= 0 || level >= 100) return `Difficulty ${level}: the AI ${did}`;
  const under = move.decision === "perfect" ? "under" : "not under";
  return `Difficulty ${level}: the AI rolled ${move.roll}, ${under} ${level}, so it ${did}`;
}

/** The line under the board: always about the latest move of the game, or "" before any. */
export function latestMoveWords(state, mode) {
  const last = state.history.at(-1);
  const ending = ENDINGS[state.status] ?? "";
  if (state.status === "playing" && state.turn === "ai") {
    if (!last) return "The AI goes first and is thinking…";
    return `You played ${cellName(last.cell)}. The AI is thinking…`;
  }
  if (!last) return "";
  if (last.by === "human") return `You played ${cellName(last.cell)}${ending}`;
  const depth = state.rules?.lookahead_depth;
  return aiMoveWords(state.last_ai_move, { mode, depth }) + ending;
}

/**
 * Build the view over the server-rendered page. `actions` receives the player's
 * intentions: play(cell), nextGame(), newMatch(settings), toggleHints(on),
 * lockDifficulty(), toggleChances(on), rulesChanged({preset, rules} | null) (the
 * settings' rules, whose odds to show), seedChanged(seed), newSeed(),
 * numberKeysChanged(on) and toggleSound(on).
 */
export function createView(actions) {
  const $ = (id) => document.getElementById(id);
  // A mode's name is the label of its option in the new-match form.
  const modeName = (mode) => $(`mode-${mode}`)?.labels[0]?.textContent ?? mode;
  const board = $("board");
  const cells = [...board.querySelectorAll("button[data-cell]")];
  const form = $("settings");
  const hint = $("hint");
  const baseTitle = document.title;
  let shown = null;
  let online = false;
  let socketStatus = "connecting"; // as setConnection last said: "online", "offline", "refused"
  let sending = false; // a move is on its way to the server
  let focused = 0;
  let noticeTimer = 0;
  let serverNoticeUntil = 0;
  let formTouched = false;
  let nextSeed = "";
  let downloadUrl = "";

  // Roving tabindex: exactly one cell is in the tab order.
  function rove(cell, { focus = false } = {}) {
    focused = cell;
    cells.forEach((btn, i) => btn.setAttribute("tabindex", i === cell ? "0" : "-1"));
    if (focus) cells[cell].focus();
  }

  // The board is inert from the click until the server answers, so one click is one move.
  // A move the page can tell is refused is not sent, and the player is told why.
  async function play(cell) {
    if (sending) return;
    const refusal = refusalOf(cell);
    if (refusal) {
      announce(refusal, NOTICE_MS);
      return;
    }
    sending = true;
    for (const btn of cells) btn.setAttribute("aria-disabled", "true");
    const reply = await actions.play(cell);
    sending = false;
    if (!reply.ok && shown) renderCells(shown);
  }

  /** Why the game as shown refuses a move on `cell`, or "" if it takes it. */
  function refusalOf(cell) {
    const name = cellName(cell);
    if (!online) return `Not connected: ${name} was not played. Reconnecting…`;
    if (!shown) return "The game is still loading";
    if (shown.match.over) return ERROR_MESSAGES.match_over;
    if (shown.status !== "playing") return `${ERROR_MESSAGES.game_over}: start the next one`;
    if (shown.turn !== "human") return ERROR_MESSAGES.not_your_turn;
    if (shown.board[cell] !== ".") return `${name} is taken: choose an empty cell`;
    return "";
  }

  board.addEventListener("click", (event) => {
    const btn = event.target.closest("button[data-cell]");
    if (!btn) return;
    const cell = Number(btn.dataset.cell);
    rove(cell);
    play(cell);
  });

  board.addEventListener("keydown", (event) => {
    const row = Math.floor(focused / 3);
    const col = focused % 3;
    const moves = {
      ArrowUp: [Math.max(row - 1, 0), col],
      ArrowDown: [Math.min(row + 1, 2), col],
      ArrowLeft: [row, Math.max(col - 1, 0)],
      ArrowRight: [row, Math.min(col + 1, 2)],
      Home: event.ctrlKey ? [0, 0] : [row, 0],
      End: event.ctrlKey ? [2, 2] : [row, 2],
    };
    const target = moves[event.key];
    if (!target) return;
    event.preventDefault();
    rove(target[0] * 3 + target[1], { focus: true });
  });

  // Keys 1-9 play a cell in reading order, only while the focus is in the board and
  // only while the player keeps the setting on.
  const numberKeys = $("number-keys");
  board.addEventListener("keydown", (event) => {
    if (!numberKeys.checked || !/^[1-9]$/.test(event.key)) return;
    if (event.ctrlKey || event.altKey || event.metaKey) return;
    event.preventDefault();
    const cell = Number(event.key) - 1;
    rove(cell, { focus: true });
    play(cell);
  });
  numberKeys.addEventListener("change", () => {
    showNumberKeys(numberKeys.checked);
    actions.numberKeysChanged(numberKeys.checked);
  });

  /** Whether keys 1-9 play cells: the switch, and the board's description of its keys. */
  function showNumberKeys(on) {
    numberKeys.checked = on;
    $("board-help-digits").hidden = !on;
  }

  const sound = $("sound");
  sound.addEventListener("click", () => {
    const on = sound.getAttribute("aria-pressed") !== "true";
    showSound(on);
    actions.toggleSound(on);
  });

  /** Whether sounds play: the Sound toggle, pressed when on. */
  function showSound(on) {
    sound.setAttribute("aria-pressed", String(on));
    sound.dataset.sound = on ? "on" : "off";
  }

  $("next-game").addEventListener("click", () => actions.nextGame());
  $("take-back").addEventListener("click", () => actions.takeBack());
  $("new-match").addEventListener("click", () => startMatch());
  $("lock").addEventListener("click", () => actions.lockDifficulty());
  const chancesToggle = $("chances-toggle");
  chancesToggle.addEventListener("click", () => {
    const on = chancesToggle.getAttribute("aria-pressed") !== "true";
    chancesToggle.setAttribute("aria-pressed", String(on));
    if (!on) showChances(null);
    actions.toggleChances(on);
  });
  hint.addEventListener("click", () => {
    const on = hint.getAttribute("aria-pressed") !== "true";
    showHintsOn(on);
    if (!on) showHints(null);
    actions.toggleHints(on);
  });

  /** Whether hints are on: the Hint toggle, pressed when on. */
  function showHintsOn(on) {
    hint.setAttribute("aria-pressed", String(on));
  }

  // The rules: a preset fills the numbers, and numbers that are a preset's select it.
  const presetSelect = $("preset");
  const ruleInputs = [...$("rules").querySelectorAll("input")];
  const presets = Object.fromEntries(
    [...presetSelect.options]
      .filter((option) => option.dataset.rules)
      .map((option) => [option.value, JSON.parse(option.dataset.rules)]),
  );
  const seedInput = $("client-seed");

  form.addEventListener("input", (event) => {
    formTouched = true;
    if (event.target === presetSelect) fillPreset(presetSelect.value);
    else if (ruleInputs.includes(event.target)) matchPreset();
    if (event.target === seedInput) seedEdited();
    else syncSettings();
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (progress()) confirmNewMatch();
    else startMatch();
  });
  $("new-seed").addEventListener("click", () => actions.newSeed());
  $("defaults").addEventListener("click", () => {
    formTouched = true; // kept at the defaults until a match starts
    resetSettings();
  });

  /** Start the match the form describes; once started, the form follows the match again. */
  async function startMatch() {
    const reply = await actions.newMatch(readSettings());
    if (!reply.ok) return;
    formTouched = false;
    if (shown) seedSettings(shown);
  }

  // Starting over while the match has something to lose asks first, in a modal dialog
  // (focus stays in it, Escape cancels) whose first button keeps the match.
  const dialog = $("confirm");
  $("confirm-keep").addEventListener("click", () => dialog.close());
  $("confirm-start").addEventListener("click", () => dialog.close("start"));
  dialog.addEventListener("close", () => {
    if (dialog.returnValue === "start") startMatch();
  });
  // Tab goes round the dialog's buttons, never out to the browser's own controls.
  dialog.addEventListener("keydown", (event) => {
    if (event.key !== "Tab") return;
    const buttons = [...dialog.querySelectorAll("button")];
    const [first, last] = [buttons[0], buttons.at(-1)];
    const [from, to] = event.shiftKey ? [first, last] : [last, first];
    if (document.activeElement !== from) return;
    event.preventDefault();
    to.focus();
  });

  function confirmNewMatch() {
    $("confirm-text").textContent = progress();
    $("confirm-new").textContent = `The new match: ${summary()}.`;
    dialog.returnValue = "";
    dialog.showModal();
    $("confirm-keep").focus();
  }

  /** What the match under way would lose, in words; "" when it has nothing to lose. */
  function progress() {
    const match = shown?.match;
    if (!match || match.over) return "";
    const moved = shown.status === "playing" && shown.history.some((m) => m.by === "human");
    if (!moved && match.games === 0) return "";
    const { wins, losses, draws } = match.record;
    const tally = `you have won ${wins}, lost ${losses} and drawn ${draws}`;
    const stand = match.games
      ? `This match is at game ${match.game}: ${tally}.`
      : `Game ${match.game} is under way.`;
    if (shown.mode !== "adaptive") return stand;
    return `${stand} You have ${match.human_hp} HP, the AI ${match.ai_hp}.`;
  }

  // Numbers as typed: an integer as a number, anything else as it is, for the server to judge.
  function readNumber(input) {
    const text = input.value.trim();
    return /^-?\d+$/.test(text) ? Number(text) : input.valueAsNumber || text;
  }

  function readRules() {
    return Object.fromEntries(ruleInputs.map((input) => [input.name, readNumber(input)]));
  }

  /** What `odds` and `new_match` need to know of the rules, or null outside adaptive. */
  function readAsk() {
    if (form.elements.mode.value !== "adaptive") return null;
    // Custom numbers are sent whole, so any preset will do as their base.
    const preset = presets[presetSelect.value] ? presetSelect.value : Object.keys(presets)[0];
    return { preset, rules: readRules() };
  }

  function readSettings() {
    const mode = form.elements.mode.value;
    const first = mode === "adaptive" ? {} : { first: form.elements.first.value };
    return { mode, ...readAsk(), ...first };
  }

  /** The match the form would start, in a few words. */
  function summary() {
    const mode = form.elements.mode.value;
    const name = modeName(mode);
    if (mode !== "adaptive") return `${name} · ${FIRST_WORDS[form.elements.first.value]}`;
    const { start_human_hp: you, start_ai_hp: ai } = readRules();
    const hp = you === ai ? `${you} HP each` : `you ${you} HP, the AI ${ai} HP`;
    return `${name} · ${presetSelect.selectedOptions[0]?.textContent} rules · ${hp}`;
  }

  /** The form back to the defaults the page came with; the seed stays. */
  function resetSettings() {
    for (const radio of form.querySelectorAll("input[type=radio]")) {
      radio.checked = radio.defaultChecked;
    }
    for (const option of presetSelect.options) option.selected = option.defaultSelected;
    for (const input of ruleInputs) input.value = input.defaultValue;
    clearRulesError();
    syncSettings();
  }

  function fillPreset(name) {
    const numbers = presets[name];
    if (!numbers) return;
    for (const input of ruleInputs) {
      if (input.name in numbers) input.value = numbers[input.name];
    }
  }

  function matchPreset() {
    const rules = readRules();
    const same = Object.keys(presets).find((name) =>
      Object.entries(presets[name]).every(([rule, value]) => rules[rule] === value),
    );
    presetSelect.value = same ?? "custom";
  }

  let asked = "";
  function syncSettings() {
    const adaptive = form.elements.mode.value === "adaptive";
    for (const [id, on] of [["rules-settings", adaptive], ["first-settings", !adaptive]]) {
      $(id).hidden = !on;
      $(id).disabled = !on;
    }
    const option = presetSelect.selectedOptions[0];
    $("preset-desc").textContent = option?.dataset.description ?? "";
    // Numbers bounded by the most HP follow it while it is a number in range.
    const max = $("rule-max_hp");
    if (max && max.validity.valid && max.value !== "") {
      for (const input of ruleInputs) if ("upToMax" in input.dataset) input.max = max.value;
    }
    // Ask for odds only when what would be asked changed.
    const ask = readAsk();
    const key = JSON.stringify(ask);
    if (key !== asked) {
      asked = key;
      if (!ask) clearRulesError();
      actions.rulesChanged(ask);
    }
    $("settings-summary").textContent = summary();
    $("new-match-uses").textContent = `New match: ${summary()}`;
  }

  // Until the player changes it, the form shows the match under way, and the defaults
  // once that match is over: a new match never silently reuses an old one's numbers.
  function seedSettings(state) {
    if (formTouched) return;
    if (state.match.over) {
      resetSettings();
      return;
    }
    form.elements.mode.value = state.mode;
    for (const input of ruleInputs) {
      const value = state.rules?.[input.name];
      if (value != null) input.value = value;
    }
    presetSelect.value = state.preset in presets ? state.preset : "custom";
    syncSettings();
  }

  /** Mark `input` invalid with `message`, or valid again with null. */
  function markField(input, message) {
    const note = $(`${input.id}-error`);
    note.hidden = !message;
    note.textContent = message ?? "";
    if (message) {
      input.setAttribute("aria-invalid", "true");
      const described = [note.id, input.dataset.help].filter(Boolean);
      input.setAttribute("aria-describedby", described.join(" "));
    } else {
      input.removeAttribute("aria-invalid");
      if (input.dataset.help) input.setAttribute("aria-describedby", input.dataset.help);
      else input.removeAttribute("aria-describedby");
    }
  }

  /** Unmark the rules; `alert` also hides the last "Not started" message. */
  function clearRulesError({ alert = true } = {}) {
    for (const input of ruleInputs) markField(input, null);
    if (alert) $("settings-error").hidden = true;
  }

  /** Put `text` in the live odds line: the odds, a wait, or why there are none. */
  function setOddsLine(text, state) {
    const line = $("rules-odds");
    line.textContent = text;
    line.dataset.state = state;
  }

  /**
   * Show a refusal of the rules (a `bad_setting` error): by the field it names, or
   * under the rules when it names none. `started` says whether Start match was refused.
   */
  function showRulesError(error, { started = false } = {}) {
    // The odds' own refusal of the same rules leaves Start match's message in place.
    clearRulesError({ alert: started });
    const message = error?.message || ERROR_MESSAGES[error?.code] || "Those settings were refused";
    const named = error?.field ? form.elements.namedItem(error.field) : null;
    const input = named === seedInput || ruleInputs.includes(named) ? named : null;
    // The live odds line says why there are no odds: by naming the field marked, or
    // in full when the rules as a whole were refused.
    if (input === seedInput) markSeed(message);
    else if (input) {
      markField(input, message);
      setOddsLine(`No odds until “${input.labels[0].textContent}” is fixed`, "refused");
    } else setOddsLine(message, "error");
    if (started) {
      $("settings-error").textContent = `Not started: ${message}`;
      $("settings-error").hidden = false;
      (input ?? presetSelect).focus();
    }
  }

  /** Show the odds of a whole match under the rules in the form (the `odds` answer). */
  function showOdds(odds) {
    clearRulesError();
    setOddsLine(oddsSentence(odds), "shown");
  }

  /** Say why no odds came (a code the server or the page gave). */
  function showOddsUnavailable(code) {
    const why = ERROR_MESSAGES[code] ?? CLIENT_ERROR_MESSAGES[code] ?? "something went wrong";
    setOddsLine(`No odds just now: ${why}`, "none");
  }

  // The client seed: kept by main.js, checked here only to say what is wrong with it.
  seedInput.dataset.help = "client-seed-help";
  function markSeed(message) {
    markField(seedInput, message);
  }

  function seedEdited() {
    const seed = seedInput.value;
    if (CLIENT_SEED.test(seed)) {
      markSeed(null);
      actions.seedChanged(seed);
    } else {
      markSeed("A seed is 1 to 64 letters, digits, - or _");
    }
  }

  /** Show the client seed the next game will use. */
  function showSeed(seed) {
    if (seedInput.value !== seed) seedInput.value = seed;
    markSeed(null);
    nextSeed = seed;
    if (shown) renderDice(shown);
  }

  function renderCells(state) {
    const playable = online && state.status === "playing" && state.turn === "human";
    const win = new Set(state.winning_line ?? []);
    const last = state.last_ai_move?.cell ?? -1;
    cells.forEach((btn, i) => {
      const mark = state.board[i];
      const empty = mark === ".";
      btn.setAttribute("aria-label", `${cellName(i)}, ${empty ? "empty" : mark}`);
      btn.setAttribute("aria-disabled", String(!(playable && empty)));
      btn.dataset.owner = empty ? "" : mark === state.human ? "human" : "ai";
      btn.classList.toggle("is-win", win.has(i));
      btn.classList.toggle("is-last", i === last && state.status === "playing");
      const holder = btn.querySelector(".mark");
      if (holder.dataset.mark !== mark) {
        holder.dataset.mark = mark;
        holder.replaceChildren(...(empty ? [] : [glyph(mark)]));
      }
    });
  }

  function renderStrike(state) {
    const line = state.winning_line;
    const strike = $("strike");
    strike.classList.toggle("is-on", Boolean(line));
    if (!line) return;
    const centre = (cell) => [(cell % 3) + 0.5, Math.floor(cell / 3) + 0.5];
    const [x1, y1] = centre(line[0]);
    const [x2, y2] = centre(line[2]);
    const stretch = 0.32 / Math.hypot(x2 - x1, y2 - y1);
    const dx = (x2 - x1) * stretch;
    const dy = (y2 - y1) * stretch;
    const el = $("strike-line");
    el.setAttribute("x1", x1 - dx);
    el.setAttribute("y1", y1 - dy);
    el.setAttribute("x2", x2 + dx);
    el.setAttribute("y2", y2 + dy);
    strike.dataset.winner = state.status === "human_won" ? "human" : "ai";
  }

  function renderStatus(state) {
    const order = state.first === "human" ? "you go first" : "the AI goes first";
    $("game-meta").textContent = `Game ${state.match.game} · You play ${state.human}, ${order}`;
    const match = state.match;
    $("substatus").textContent = match.over ? `Last game: ${RESULTS[state.status]}` : "";
    $("substatus").dataset.match = match.over ? match.winner : "";
    renderHeadline();
  }

  /** The headline and the tab's title: whose turn, the result, or why nothing can be played. */
  function renderHeadline() {
    const state = shown;
    const cut = OFFLINE_STATUS[socketStatus];
    const playing = state?.status === "playing";
    const thinking = !cut && playing && state.turn === "ai";
    let text = cut ?? "Loading the game";
    let title = cut ? "Not connected" : "";
    if (!cut && state) {
      text = playing ? (thinking ? THINKING : "Your turn") : RESULTS[state.status];
      if (state.match.over) text = MATCH_RESULTS[state.match.winner];
      title = thinking ? `${THINKING}…` : text;
    }
    const over = !cut && state?.match.over;
    $("status-text").textContent = text;
    $("thinking").hidden = !thinking;
    $("status").dataset.result = cut
      ? "offline"
      : over
        ? `${state.match.winner === "human" ? "human" : "ai"}_won`
        : (state?.status ?? "loading");
    board.setAttribute("aria-disabled", String(Boolean(cut)));
    document.title = title ? `${title} · ${baseTitle}` : baseTitle;
  }

  function renderMeter(side, hp, delta, maxHp, why = "") {
    const value = Math.max(0, Math.min(maxHp, hp));
    const width = Math.round((value / maxHp) * 1000) / 10;
    $(`${side}-hp`).textContent = String(value);
    $(`${side}-fill`).style.width = `${width}%`;
    $(`${side}-ghost`).style.width = `${width}%`;
    const meter = $(`${side}-meter`);
    meter.setAttribute("aria-valuemax", String(maxHp));
    meter.setAttribute("aria-valuenow", String(value));
    meter.dataset.level = width <= 25 ? "low" : width <= 50 ? "mid" : "high";
    const badge = $(`${side}-delta`);
    badge.hidden = delta == null;
    if (delta != null) {
      badge.textContent = why || formatDelta(delta);
      badge.dataset.sign = delta > 0 ? "up" : delta < 0 ? "down" : "zero";
    }
  }

  function renderMatch(state) {
    const match = state.match;
    const adaptive = state.mode === "adaptive";
    $("mode-chip").textContent = modeName(state.mode);
    $("game-number").textContent = `Game ${match.game}`;
    $("hp-bars").hidden = !adaptive;
    renderHowItWorks(state.mode);
    if (adaptive) {
      const change = state.status !== "playing" ? match.last_hp_change : null;
      const maxHp = state.rules?.max_hp ?? 100;
      // A win heals nothing at full HP: the badge says so rather than a bare ±0.
      const won = state.status === "human_won";
      const full = won && change?.human === 0 && match.human_hp >= maxHp;
      renderMeter("human", match.human_hp, change?.human, maxHp, full ? "already at full HP" : "");
      renderMeter("ai", match.ai_hp, change?.ai, maxHp);
      $("difficulty").textContent = String(match.difficulty);
      const locked = match.locked != null ? "locked: " : "";
      $("difficulty-note").textContent =
        ` — ${locked}the AI plays its best move ${match.difficulty}% of the time, else at random`;
    }
    renderTools(state);
    $("wins").textContent = String(match.record.wins);
    $("losses").textContent = String(match.record.losses);
    $("draws").textContent = String(match.record.draws);
  }

  // Lock difficulty and Show my chances: adaptive matches only.
  function renderTools(state) {
    const match = state.match;
    const adaptive = state.mode === "adaptive";
    $("match-tools").hidden = !adaptive;
    const lock = $("lock");
    const locked = match.locked != null;
    lock.setAttribute("aria-pressed", String(locked));
    lock.disabled = locked || match.over;
    $("lock-text").textContent = locked
      ? `Difficulty locked at ${match.locked}`
      : "Lock difficulty";
    const toggle = $("chances-toggle");
    toggle.disabled = match.over;
    if (!adaptive || match.over) showChances(null);
  }

  /** The chances of the match under way (an `odds` answer), or hide them with null. */
  function showChances(odds) {
    const line = $("chances");
    const on = $("chances-toggle").getAttribute("aria-pressed") === "true";
    line.hidden = !(odds && on);
    line.textContent = odds && on ? chancesSentence(odds) : "";
  }

  // The dice panel: the commitment before the game, the seed, and after it the check.
  function renderDice(state) {
    const record = state.record;
    const panel = $("dice");
    panel.hidden = !record;
    if (!record) return;
    const dice = record.dice;
    const over = state.status !== "playing";
    // A game begun before the dice (an upgrade) has no commitment to show.
    for (const part of panel.querySelectorAll(".dice-details, .dice-seed")) part.hidden = !dice;
    if (dice) {
      $("dice-commitment").textContent = shortHex(dice.commitment);
      $("dice-commitment-full").textContent = dice.commitment;
      $("dice-server-seed").textContent = dice.server_seed ?? "revealed when the game ends";
      $("dice-client-seed").textContent = dice.client_seed;
      const later = nextSeed && !dice.client_seed.startsWith(`${nextSeed}-`);
      $("dice-next-seed").textContent = later ? ` (from your next game: ${nextSeed}-…)` : "";
      // Format 1 records (before 0.5) say nothing of it; only an explicit false is shown.
      $("dice-unseeded").hidden = dice.player_seeded !== false;
    }
    const next = state.next_commitment;
    $("dice-next").hidden = !next;
    $("dice-next-commitment").textContent = next ?? "";
    const check = $("dice-check");
    if (!dice) {
      setCheck("This game began before verifiable dice", "none");
    } else if (!dice.server_seed) {
      setCheck(
        "The server reveals its seed when the game ends, and this page checks the dice",
        "waiting",
      );
    } else if (check.dataset.commitment !== dice.commitment) {
      setCheck("Checking the dice…", "checking");
    }
    renderDownload(over ? record : null, state.signed_record);
  }

  function setCheck(text, result, commitment = "") {
    const check = $("dice-check");
    // The same words again are not written again, so the status is not read again.
    if (check.textContent !== text) check.textContent = text;
    check.dataset.result = result;
    check.dataset.commitment = commitment;
  }

  /**
   * Show the result of checking the dice of `record`: verifyRecord's answer, or null
   * when the checker could not run.
   */
  function showVerdict(record, verdict) {
    const showing = shown?.record?.dice;
    if (!showing || showing.commitment !== record.dice?.commitment) return;
    if (!verdict) {
      setCheck("The dice could not be checked: reload the page to try again", "none");
      return;
    }
    const text = verdict.ok ? RECORD_VERIFIED[verdict.signature] : `Dice check failed: ${verdict.reason}`;
    setCheck(text, verdict.ok ? "ok" : "failed", showing.commitment);
  }

  /** Offer the game's record for download: the signed one, when the server signed it. */
  function renderDownload(record, signed) {
    const link = $("dice-download");
    link.hidden = !record;
    const name = record ? `tictactoe-game-${record.game}.json` : "";
    const commitment = record?.dice?.commitment ?? "";
    if (!record || (link.download === name && link.dataset.commitment === commitment)) return;
    if (downloadUrl) URL.revokeObjectURL(downloadUrl);
    const json = JSON.stringify(signed ?? record, null, 2);
    downloadUrl = URL.createObjectURL(new Blob([json], { type: "application/json" }));
    link.href = downloadUrl;
    link.download = name;
    link.dataset.commitment = commitment;
  }

  /** "How it works": the HP rules in adaptive mode, the fixed mode's way otherwise. */
  function renderHowItWorks(mode) {
    const adaptive = mode === "adaptive";
    for (const part of $("how").querySelectorAll("[data-mode]")) {
      part.hidden = (part.dataset.mode === "adaptive") !== adaptive;
    }
    if (adaptive) return;
    const way = $(`mode-${mode}-desc`)?.textContent ?? "";
    $("how-fixed").textContent =
      `${modeName(mode)} mode — ${way}. No hit points here: the AI plays this way all match, ` +
      "and the match counts your wins, losses and draws.";
  }

  function renderActions(state) {
    const over = state.status !== "playing";
    const buttons = [$("next-game"), $("new-match"), hint, $("take-back")];
    // Take-back in the fixed modes (and practice) once you have moved; an HP match says
    // why it has none.
    const moved = state.history.some((move) => move.by === "human");
    const adaptive = state.mode === "adaptive";
    $("take-back").hidden = adaptive || !moved || state.turn !== "human";
    $("take-back-note").hidden = !adaptive || !moved || over;
    const held = buttons.find((button) => button.contains(document.activeElement));
    buttons[0].hidden = !over || state.match.over;
    buttons[1].hidden = !state.match.over;
    $("new-match-uses").hidden = !state.match.over;
    // Nothing to hint once the game is over.
    hint.hidden = over;
    // A button that vanishes under the focus hands it back to the board.
    if (held?.hidden) rove(focused, { focus: true });
  }

  function render(state) {
    const fresh = !shown || shown.version !== state.version;
    shown = state;
    board.dataset.turn = state.turn ?? "none";
    board.dataset.status = state.status;
    board.dataset.version = String(state.version);
    board.dataset.mode = state.mode;
    renderCells(state);
    renderStrike(state);
    renderStatus(state);
    renderMatch(state);
    renderActions(state);
    const said = latestMoveWords(state, modeName(state.mode));
    $("explain").textContent = said || "The AI explains each of its moves here.";
    $("explain").classList.toggle("is-empty", !said);
    renderDice(state);
    seedSettings(state);
    renderPractice(state);
    if (fresh) showHints(null);
  }

  /** On the practice page: the mistake practised, and what the latest move does. */
  function renderPractice(state) {
    const lesson = $("practice-lesson");
    if (!lesson || !state.practice) return;
    const words = practiceWords(state.practice);
    lesson.textContent = words.lesson;
    $("practice-feedback").textContent = words.feedback;
    $("practice-feedback").dataset.feedback = state.practice.feedback?.feedback ?? "";
  }

  /** Show the perfect-play value of each empty cell, or clear them with null. */
  function showHints(analysis) {
    board.classList.toggle("has-hints", Boolean(analysis));
    cells.forEach((btn, i) => {
      const value = analysis?.[String(i)];
      // Beside the button, not in it: the hint is its description, not part of its name.
      const words = value ? hintWords(value) : null;
      const label = btn.parentElement.querySelector(".hint-label");
      label.textContent = words?.label ?? "";
      label.dataset.result = value ? value.result : "";
      if (words) btn.setAttribute("aria-description", `hint: ${words.sentence}`);
      else btn.removeAttribute("aria-description");
    });
  }

  /**
   * Reflect the socket: "online", "offline" (reconnecting) or "refused"; `reason` is
   * the server's word when it refused the connection.
   */
  function setConnection(status, reason = "") {
    online = status === "online";
    socketStatus = status;
    const banner = $("connection");
    banner.hidden = online;
    banner.dataset.status = status;
    const refusal = `Connection refused: ${reason || "reload the page"}`;
    $("connection-text").textContent = status === "refused" ? refusal : "Reconnecting…";
    document.body.classList.toggle("is-offline", !online);
    renderHeadline();
    if (shown) renderCells(shown);
  }

  function announce(text, ms) {
    const notice = $("notice");
    notice.textContent = text;
    notice.classList.add("is-visible");
    clearTimeout(noticeTimer);
    noticeTimer = setTimeout(() => {
      notice.classList.remove("is-visible");
      noticeTimer = setTimeout(() => (notice.textContent = ""), 400);
    }, ms);
  }

  function showError(code) {
    // A refusal right after a server notice is its consequence (a move on the lost board).
    if (performance.now() < serverNoticeUntil) return;
    announce(
      ERROR_MESSAGES[code] ?? CLIENT_ERROR_MESSAGES[code] ?? "Something went wrong",
      NOTICE_MS,
    );
  }

  /** Show what the server's `notice` says, by its code. */
  function showNotice(code) {
    announce(NOTICE_MESSAGES[code] ?? "The server sent a notice", SERVER_NOTICE_MS);
    serverNoticeUntil = performance.now() + SERVER_NOTICE_FIRST_MS;
  }

  syncSettings();
  return {
    render,
    showHints,
    showHintsOn,
    showOdds,
    showOddsUnavailable,
    showRulesError,
    showChances,
    showSeed,
    showNumberKeys,
    showSound,
    showVerdict,
    setConnection,
    showError,
    showNotice,
    focusBoard: () => rove(focused, { focus: true }),
  };
}
