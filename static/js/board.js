// The board, for every page that shows one: the AI page, practice, rooms and the replay.
// It draws an ARIA grid of rows x columns cells into an element (or several boards side
// by side, board_grid.js), and owns the cells, the marks, the winning line, a dead
// board's look, the hint and review marks, the arrow keys, the roving tabindex and the
// number keys (on a single board of nine cells only). The page owns what to show: it hands the board a position, and
// is told of a play. No game rule lives here: what may be played, the server says.
import { buildBoards, element, nameOf, shapeOf, stepFrom, svg } from "./board_grid.js";

export { nameOf, shapeOf }; // a board's shape and its cells' names, for the pages
import {
  BETTER_MOVE,
  BOARDS_HELP,
  BOARD_HELP,
  BOARD_HELP_DIGITS,
  BOARD_LABEL,
  ON_DEAD_BOARD,
  boardName,
  cellWords,
  deadBoardWords,
  hintDescription,
  hintWords,
  namesHelp,
} from "./words.js";

/** An X or an O drawn in strokes, which the stylesheet animates. */
function glyph(mark) {
  const root = svg("svg", { viewBox: "0 0 100 100", focusable: "false" });
  const strokes =
    mark === "X"
      ? [
          svg("line", { x1: 24, y1: 24, x2: 76, y2: 76, pathLength: 1 }),
          svg("line", { x1: 76, y1: 24, x2: 24, y2: 76, pathLength: 1 }),
        ]
      : [svg("circle", { cx: 50, cy: 50, r: 28, pathLength: 1 })];
  root.append(...strokes);
  return root;
}

/**
 * Draw a board into `root` (an empty element, which becomes the grid, or the group of
 * several) and return its handle; its shape is `size` (3 by default) or `rows`,
 * `columns` and `boards`. `onPlay(cell)` is called when the player plays a cell (a click, Enter or Space,
 * or a number key) and answers with a promise of the server's ack; without it the board
 * is read-only (a replay): no buttons, no tab stop. `colours` names each mark's colour
 * ("you" or "ai"). The handle: set(position), showHints(analysis), mark(cells),
 * tag(tags), setNumberKeys(on), remove(), focus().
 */
export function createBoard(root, { label = BOARD_LABEL, onPlay = null, colours = {}, ...asked }) {
  const readOnly = !onPlay;
  const shape = shapeOf(asked);
  const { rows, columns, cells: count } = shape;
  const perBoard = rows * columns;
  let focused = 0;
  let busy = null; // the play on its way to the server: the marks it was made on
  let numberKeys = count <= 9;
  let shown = { marks: ".".repeat(count), playable: false, last: -1, line: null, dead: [] };
  let tagged = {}; // cell -> {kinds, words}: the page's own names for cells

  const { cells, holders, hints, grids, captions } = buildBoards(root, shape, { label, readOnly });
  const strikeLine = svg("line", { pathLength: 1 });
  const strike = svg("svg", {
    class: "strike",
    viewBox: `0 0 ${columns} ${rows}`,
    "aria-hidden": "true",
    focusable: "false",
  });
  strike.append(strikeLine);
  root.append(strike);

  // What the keys do, said once for screen readers beside the grid.
  const help = element("p", { className: "visually-hidden", id: `${root.id || "board"}-help` });
  const digits = element("span", { textContent: BOARD_HELP_DIGITS });
  if (!readOnly) {
    const names = namesHelp(nameOf(shape, 4));
    help.append(BOARD_HELP, digits, ".", names, grids.length ? BOARDS_HELP : "");
    root.after(help);
    root.setAttribute("aria-describedby", help.id);
  } else {
    // Each grid is read-only: several boards' group may not say so (ARIA).
    for (const grid of grids.length ? grids : [root]) grid.setAttribute("aria-readonly", "true");
  }

  const labelOf = (i) => cellWords(nameOf(shape, i), shown.marks[i]);
  const deadAt = (i) => shown.dead.includes(Math.floor(i / perBoard));

  /** Draw `position`: {marks (X, O or . per cell), playable, last, line, dead boards}. */
  function set(position) {
    shown = { last: -1, line: null, playable: false, dead: [], ...position };
    // A new position to play on is the server's answer, even before the play's ack (the
    // AI's reply, or the next turn on one device, is pushed first): it takes a move.
    if (busy && shown.playable && shown.marks !== busy.marks) busy = null;
    render();
  }

  // A dead board (Notakto's): greyed and crossed, said in its caption, its cells inert.
  function renderDead() {
    grids.forEach((grid, b) => {
      const dead = shown.dead.includes(b);
      grid.dataset.dead = String(dead);
      captions[b].textContent = dead ? deadBoardWords(b + 1) : boardName(b + 1);
    });
  }

  function render() {
    const { marks, playable, last, line } = shown;
    const win = new Set(line ?? []);
    renderDead();
    cells.forEach((cell, i) => {
      const mark = marks[i] === "X" || marks[i] === "O" ? marks[i] : "";
      const best = holders[i].dataset.best === "true";
      const dead = deadAt(i) ? ON_DEAD_BOARD : "";
      const said = [labelOf(i), dead, best ? BETTER_MOVE : "", tagged[i]?.words ?? ""];
      cell.setAttribute("aria-label", said.filter(Boolean).join(", "));
      if (!readOnly) cell.setAttribute("aria-disabled", String(!(playable && !mark && !dead)));
      const face = readOnly ? cell.firstElementChild.firstElementChild : cell.firstElementChild;
      const box = readOnly ? cell.firstElementChild : cell;
      box.dataset.mark = mark;
      box.dataset.colour = colours[mark] ?? "";
      box.classList.toggle("is-win", win.has(i));
      box.classList.toggle("is-last", i === last);
      if (face.dataset.mark === mark) return;
      face.dataset.mark = mark;
      face.replaceChildren(...(mark ? [glyph(mark)] : []));
    });
    renderStrike(line);
  }

  function renderStrike(line) {
    strike.classList.toggle("is-on", Boolean(line));
    if (!line) return;
    const centre = (cell) => [(cell % columns) + 0.5, Math.floor(cell / columns) + 0.5];
    const [x1, y1] = centre(line[0]);
    const [x2, y2] = centre(line.at(-1));
    const stretch = 0.32 / Math.hypot(x2 - x1, y2 - y1);
    const [dx, dy] = [(x2 - x1) * stretch, (y2 - y1) * stretch];
    const ends = { x1: x1 - dx, y1: y1 - dy, x2: x2 + dx, y2: y2 + dy };
    for (const [name, value] of Object.entries(ends)) strikeLine.setAttribute(name, value);
    const mark = shown.marks[line[0]];
    strike.dataset.mark = mark;
    strike.dataset.colour = colours[mark] ?? "";
  }

  /** Show the perfect-play value of each empty cell (the server's analysis), or none. */
  function showHints(analysis) {
    root.classList.toggle("has-hints", Boolean(analysis));
    cells.forEach((cell, i) => {
      const value = analysis?.[String(i)];
      // Beside the cell, not in it: the hint is its description, not part of its name.
      const words = value ? hintWords(value) : null;
      hints[i].textContent = words?.label ?? "";
      hints[i].dataset.result = value ? value.result : "";
      if (words) cell.setAttribute("aria-description", hintDescription(words.sentence));
      else cell.removeAttribute("aria-description");
    });
  }

  /** Ring the cells the review names as better than the move shown, or none with []. */
  function mark(better) {
    const marked = new Set(better);
    holders.forEach((holder, i) => (holder.dataset.best = String(marked.has(i))));
    render();
  }

  /**
   * Name cells beside them, seen and read alike: `tags` maps a cell to {kinds, words}
   * (["played", "best"], "AI’s move, best"); other cells lose theirs. A page shows tags
   * or hints, not both: they share the label beside the cell.
   */
  function tag(tags) {
    tagged = tags;
    holders.forEach((holder, i) => {
      holder.dataset.tag = (tags[i]?.kinds ?? []).join(" ");
      hints[i].textContent = tags[i]?.words ?? "";
    });
    render();
  }

  /** Change the colour of each mark ({X, O} -> "you" or "ai"). */
  function setColours(next) {
    colours = next;
  }

  // --- playing: a click, Enter or Space (the button's own), or a number key ----------

  // Roving tabindex: exactly one cell is in the tab order.
  function rove(cell, { focus = false } = {}) {
    focused = cell;
    if (readOnly) return;
    cells.forEach((btn, i) => (btn.tabIndex = i === cell ? 0 : -1));
    if (focus) cells[cell].focus();
  }

  // Inert from the play until the server answers (its ack, or a new position to play
  // on), so one click is one move; a refused play puts the position back as it was shown.
  async function play(cell) {
    if (busy || deadAt(cell)) return; // a dead board's cells are inert
    const made = (busy = { marks: shown.marks });
    for (const btn of cells) btn.setAttribute("aria-disabled", "true");
    let reply = null;
    try {
      reply = await onPlay(cell);
    } finally {
      if (busy === made) {
        busy = null; // not a later play's
        if (!reply?.ok) render();
      }
    }
  }

  // A cell's name typed (b2, 2:b2) takes the focus there; a digit after a letter ends a name.
  const byName = new Map(Array.from({ length: count }, (_, i) => [nameOf(shape, i), i]));
  let typed = "";
  function typeName(key) {
    typed = (typed + key.toLowerCase()).slice(-4);
    const cell = [2, 3, 4].map((n) => byName.get(typed.slice(-n))).find((i) => i !== undefined);
    if (cell !== undefined) typed = "";
    return cell ?? null;
  }

  function onKey(event) {
    const to = stepFrom(shape, focused, event.key, event.ctrlKey);
    if (to !== null) {
      event.preventDefault();
      rove(to, { focus: true });
      return;
    }
    const naming = !numberKeys || !/^\d$/.test(event.key) || /[a-z]$/.test(typed);
    if (naming && /^[a-z0-9:]$/i.test(event.key) && !(event.ctrlKey || event.metaKey)) {
      const named = typeName(event.key);
      if (named !== null) {
        event.preventDefault();
        rove(named, { focus: true });
      }
      return;
    }
    // Keys 1-9 play a cell in reading order, while the player keeps the setting on.
    if (!numberKeys || !/^[1-9]$/.test(event.key) || Number(event.key) > count) return;
    if (event.ctrlKey || event.altKey || event.metaKey) return;
    event.preventDefault();
    rove(Number(event.key) - 1, { focus: true });
    play(focused);
  }

  const listeners = {
    click(event) {
      const btn = event.target.closest("button[data-cell]");
      if (!btn) return;
      rove(Number(btn.dataset.cell));
      play(focused);
    },
    keydown: onKey,
    // A cell focused by other means (a screen reader, a script) is where the keys start.
    focusin(event) {
      const btn = event.target.closest("button[data-cell]");
      if (btn) rove(Number(btn.dataset.cell));
    },
  };
  if (!readOnly) for (const [type, on] of Object.entries(listeners)) root.addEventListener(type, on);

  /** Take the board out of `root`, to draw another there. */
  function remove() {
    for (const [type, on] of Object.entries(listeners)) root.removeEventListener(type, on);
    help.remove();
    root.replaceChildren();
    root.classList.replace("boards", "board");
    for (const name of ["role", "aria-label", "aria-describedby"]) root.removeAttribute(name);
  }

  /** Whether keys 1-9 play cells: the keys, and the board's description of them. */
  function setNumberKeys(on) {
    numberKeys = on && count <= 9;
    digits.hidden = !numberKeys;
  }
  setNumberKeys(numberKeys);

  return {
    set,
    showHints,
    mark,
    tag,
    setColours,
    setNumberKeys,
    remove,
    /** Give the focus to the cell in the tab order. */
    focus: () => rove(focused, { focus: true }),
  };
}
