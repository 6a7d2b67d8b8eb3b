// The page: renders server snapshots into the DOM and turns input into intentions.
// No game rules live here; every decision comes from the server's `state`.

import {
  CLIENT_ERROR_MESSAGES,
  CLIENT_SEED,
  ERROR_MESSAGES,
  NOTICE_MESSAGES,
  cellName,
} from "./protocol.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const NOTICE_MS = 3500;
const SERVER_NOTICE_MS = 10000; // what the server tells unasked is read more slowly
const SERVER_NOTICE_FIRST_MS = 2000; // errors that follow from it do not replace it at once

const RESULTS = { human_won: "You win!", ai_won: "AI wins", draw: "Draw" };


const STRATEGIES = {
  perfect: (name) => `AI played the perfect move at ${name}`,
  lookahead: (name) => `AI played ${name} by lookahead (depth 2)`,
  heuristic: (name) => `AI played ${name} by heuristic: the best odds`,
  random: (name) => `AI played a random move at ${name}`,
};


const formatDelta = (n) => (n > 0 ? `+${n}` : n < 0 ? `-${-n}` : "±0");

function formatMicros(us) {
  if (us < 1000) return `${Math.round(us)} µs`;
  if (us < 1e6) return `${(us / 1000).toFixed(1)} ms`;
  return `${(us / 1e6).toFixed(2)} s`;
}

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

function hintText(value) {
  return value.result === "draw" ? "draw" : `${value.result} in ${value.plies}`;
}

function explanation(state) {
  const move = state.last_ai_move;
  if (!move) return "";
  const name = cellName(move.cell);
  const time = move.think_us == null ? "" : ` (thought for ${formatMicros(move.think_us)})`;
  if (move.roll != null && move.difficulty != null) {
    const perfect = move.decision === "perfect";
    const roll = perfect
      ? `AI rolled ${move.roll} under difficulty ${move.difficulty}: perfect move`
      : `AI rolled ${move.roll}, not under ${move.difficulty}: random move`;
    return `${roll} at ${name}${time}`;
  }
  const say = STRATEGIES[move.decision] ?? ((n) => `AI played ${n}`);
  return say(name) + time;
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
  const board = $("board");
  const cells = [...board.querySelectorAll("button[data-cell]")];
  const form = $("settings");
  const hint = $("hint");
  let shown = null;
  let online = false;
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
  async function play(cell) {
    if (cells[cell].getAttribute("aria-disabled") !== "false") return;
    for (const btn of cells) btn.setAttribute("aria-disabled", "true");
    const reply = await actions.play(cell);
    if (!reply.ok && shown) renderCells(shown);
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
  $("new-match").addEventListener("click", () => actions.newMatch(readSettings()));
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
    hint.setAttribute("aria-pressed", String(on));
    if (!on) showHints(null);
    actions.toggleHints(on);
  });

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
    actions.newMatch(readSettings());
  });
  $("new-seed").addEventListener("click", () => actions.newSeed());

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
    return { mode: form.elements.mode.value, ...readAsk() };
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
    const group = $("rules-settings");
    group.hidden = !adaptive;
    group.disabled = !adaptive;
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
  }

  // The form starts from the current match until the player changes it.
  function seedSettings(state) {
    if (formTouched) return;
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

  function clearRulesError() {
    for (const input of ruleInputs) markField(input, null);
    $("settings-error").hidden = true;
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
    clearRulesError();
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
    const playing = state.status === "playing";
    const thinking = playing && state.turn === "ai";
    const mark = state.human;
    const order = state.first === "human" ? "you go first" : "the AI goes first";
    $("game-meta").textContent = `Game ${state.match.game} · You play ${mark}, ${order}`;
    $("status-text").textContent = playing
      ? thinking
        ? "AI is thinking"
        : "Your turn"
      : RESULTS[state.status];
    $("thinking").hidden = !thinking;
    $("status").dataset.result = state.status;
    const match = state.match;
    const won = match.winner === "human" ? "You won the match!" : "The AI won the match";
    $("substatus").textContent = match.over ? won : "";
    $("substatus").dataset.match = match.over ? match.winner : "";
  }

  function renderMeter(side, hp, delta, maxHp) {
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
      badge.textContent = formatDelta(delta);
      badge.dataset.sign = delta > 0 ? "up" : delta < 0 ? "down" : "zero";
    }
  }

  function renderMatch(state) {
    const match = state.match;
    const adaptive = state.mode === "adaptive";
    // The mode's name is the label of its option in the new-match form.
    $("mode-chip").textContent = $(`mode-${state.mode}`)?.labels[0]?.textContent ?? state.mode;
    $("game-number").textContent = `Game ${match.game}`;
    $("hp-bars").hidden = !adaptive;
    if (adaptive) {
      const change = state.status !== "playing" ? match.last_hp_change : null;
      const maxHp = state.rules?.max_hp ?? 100;
      renderMeter("human", match.human_hp, change?.human, maxHp);
      renderMeter("ai", match.ai_hp, change?.ai, maxHp);
      $("difficulty").textContent = String(match.difficulty);
      const locked = match.locked != null ? "locked: " : "";
      $("difficulty-note").textContent =
        ` — ${locked}the AI plays the perfect move ${match.difficulty}% of the time`;
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
      const later = nextSeed && nextSeed !== dice.client_seed;
      $("dice-next-seed").textContent = later ? ` (your next game uses ${nextSeed})` : "";
    }
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
    renderDownload(over ? record : null);
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
    const text = verdict.ok ? "Dice verified" : `Dice check failed: ${verdict.reason}`;
    setCheck(text, verdict.ok ? "ok" : "failed", showing.commitment);
  }

  function renderDownload(record) {
    const link = $("dice-download");
    link.hidden = !record;
    const name = record ? `tictactoe-game-${record.game}.json` : "";
    const commitment = record?.dice?.commitment ?? "";
    if (!record || (link.download === name && link.dataset.commitment === commitment)) return;
    if (downloadUrl) URL.revokeObjectURL(downloadUrl);
    const json = JSON.stringify(record, null, 2);
    downloadUrl = URL.createObjectURL(new Blob([json], { type: "application/json" }));
    link.href = downloadUrl;
    link.download = name;
    link.dataset.commitment = commitment;
  }

  function renderActions(state) {
    const over = state.status !== "playing";
    const next = $("next-game");
    const again = $("new-match");
    const hadFocus = next.contains(document.activeElement) || again.contains(document.activeElement);
    next.hidden = !over || state.match.over;
    again.hidden = !state.match.over;
    // A button that vanishes under the focus hands it back to the board.
    if (hadFocus && next.hidden && again.hidden) rove(focused, { focus: true });
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
    const said = explanation(state);
    $("explain").textContent = said || "The AI explains each of its moves here.";
    $("explain").classList.toggle("is-empty", !said);
    renderDice(state);
    seedSettings(state);
    if (fresh) showHints(null);
  }

  /** Show the perfect-play value of each empty cell, or clear them with null. */
  function showHints(analysis) {
    board.classList.toggle("has-hints", Boolean(analysis));
    cells.forEach((btn, i) => {
      const value = analysis?.[String(i)];
      // Beside the button, not in it: the hint is its description, not part of its name.
      const label = btn.parentElement.querySelector(".hint-label");
      label.textContent = value ? hintText(value) : "";
      label.dataset.result = value ? value.result : "";
      if (value) btn.setAttribute("aria-description", `hint: ${hintText(value)}`);
      else btn.removeAttribute("aria-description");
    });
  }

  /**
   * Reflect the socket: "online", "offline" (reconnecting) or "refused"; `reason` is
   * the server's word when it refused the connection.
   */
  function setConnection(status, reason = "") {
    online = status === "online";
    const banner = $("connection");
    banner.hidden = online;
    banner.dataset.status = status;
    const refusal = `Connection refused: ${reason || "reload the page"}`;
    $("connection-text").textContent = status === "refused" ? refusal : "Reconnecting…";
    document.body.classList.toggle("is-offline", !online);
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
