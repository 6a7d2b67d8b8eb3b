// The page: renders server snapshots into the DOM and turns input into intentions.
// No game rules live here; every decision comes from the server's `state`.

import {
  CLIENT_ERROR_MESSAGES,
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
 * intentions: play(cell), nextGame(), newMatch(settings), toggleHints(on).
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

  // Keys 1-9 play a cell in reading order unless the player is typing in a control.
  document.addEventListener("keydown", (event) => {
    if (!/^[1-9]$/.test(event.key) || event.ctrlKey || event.altKey || event.metaKey) return;
    if (event.target.closest?.("input, select, textarea, [contenteditable]")) return;
    event.preventDefault();
    const cell = Number(event.key) - 1;
    rove(cell, { focus: board.contains(document.activeElement) });
    play(cell);
  });

  $("next-game").addEventListener("click", () => actions.nextGame());
  $("new-match").addEventListener("click", () => actions.newMatch(readSettings()));
  hint.addEventListener("click", () => {
    const on = hint.getAttribute("aria-pressed") !== "true";
    hint.setAttribute("aria-pressed", String(on));
    if (!on) showHints(null);
    actions.toggleHints(on);
  });

  form.addEventListener("input", () => {
    formTouched = true;
    syncSettings();
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    actions.newMatch(readSettings());
  });

  function readSettings() {
    return {
      mode: form.elements.mode.value,
      human_hp: Number($("human-start").value),
      ai_hp: Number($("ai-start").value),
    };
  }

  function syncSettings() {
    const adaptive = form.elements.mode.value === "adaptive";
    const group = $("hp-settings");
    group.hidden = !adaptive;
    group.disabled = !adaptive;
    for (const side of ["human", "ai"]) {
      $(`${side}-start-out`).textContent = $(`${side}-start`).value;
    }
  }

  // The form starts from the current match until the player changes it.
  function seedSettings(state) {
    if (formTouched) return;
    form.elements.mode.value = state.mode;
    $("human-start").value = state.match.start_human_hp;
    $("ai-start").value = state.match.start_ai_hp;
    syncSettings();
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

  function renderMeter(side, hp, delta) {
    const value = Math.max(0, Math.min(100, hp));
    $(`${side}-hp`).textContent = String(value);
    $(`${side}-fill`).style.width = `${value}%`;
    $(`${side}-ghost`).style.width = `${value}%`;
    const meter = $(`${side}-meter`);
    meter.setAttribute("aria-valuenow", String(value));
    meter.dataset.level = value <= 25 ? "low" : value <= 50 ? "mid" : "high";
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
      renderMeter("human", match.human_hp, change?.human);
      renderMeter("ai", match.ai_hp, change?.ai);
      $("difficulty").textContent = String(match.difficulty);
      $("difficulty-note").textContent =
        ` — the AI plays the perfect move ${match.difficulty}% of the time`;
    }
    $("wins").textContent = String(match.record.wins);
    $("losses").textContent = String(match.record.losses);
    $("draws").textContent = String(match.record.draws);
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
    seedSettings(state);
    if (fresh) showHints(null);
  }

  /** Show the perfect-play value of each empty cell, or clear them with null. */
  function showHints(analysis) {
    board.classList.toggle("has-hints", Boolean(analysis));
    cells.forEach((btn, i) => {
      const value = analysis?.[String(i)];
      const label = btn.querySelector(".hint-label");
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
    setConnection,
    showError,
    showNotice,
    focusBoard: () => rove(focused, { focus: true }),
  };
}
