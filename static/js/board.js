// The board, for every page that shows one: the AI page, practice, rooms and the replay.
// It draws an ARIA grid of `size` x `size` cells into an element, and owns the cells, the
// marks, the winning line, the hint and review marks, the arrow keys, the roving tabindex
// and the number keys. The page owns what to show: it hands the board a position, and
// is told of a play. No game rule lives here: what may be played, the server says.
import { cellName } from "./protocol.js";
import {
  BETTER_MOVE,
  BOARD_HELP,
  BOARD_HELP_DIGITS,
  BOARD_LABEL,
  cellWords,
  hintDescription,
  hintWords,
} from "./words.js";

const SVG_NS = "http://www.w3.org/2000/svg";

function svg(tag, attrs) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, value);
  return el;
}

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

const element = (tag, attrs = {}) => Object.assign(document.createElement(tag), attrs);

/**
 * Draw a board into `root` (an empty element, which becomes the grid) and return its
 * handle. `onPlay(cell)` is called when the player plays a cell (a click, Enter or Space,
 * or a number key) and answers with a promise of the server's ack; without it the board
 * is read-only (a replay): no buttons, no tab stop. `colours` names each mark's colour
 * ("you" or "ai"). The handle: set(position), showHints(analysis), mark(cells),
 * tag(tags), setNumberKeys(on), focus().
 */
export function createBoard(root, { size = 3, label = BOARD_LABEL, onPlay = null, colours = {} }) {
  const readOnly = !onPlay;
  const count = size * size;
  let focused = 0;
  let busy = false; // a play is on its way to the server
  let numberKeys = size <= 3;
  let shown = { marks: ".".repeat(count), playable: false, last: -1, line: null };
  let tagged = {}; // cell -> {kinds, words}: the page's own names for cells

  root.classList.add("board");
  root.setAttribute("role", "grid");
  root.setAttribute("aria-label", label);
  root.style.setProperty("--cells", String(size));
  const cells = [];
  const holders = [];
  const hints = [];
  for (let row = 0; row < size; row++) {
    const line = element("div", { className: "board-row" });
    line.setAttribute("role", "row");
    for (let col = 0; col < size; col++) {
      const index = row * size + col;
      const holder = element("div", { className: "board-cell" });
      holder.setAttribute("role", "gridcell");
      const cell = readOnly
        ? element("span", { className: "cell" })
        : element("button", { type: "button", className: "cell", tabIndex: index ? -1 : 0 });
      // The labelled element carries the cell's number: the button, or the read-only cell.
      const named = readOnly ? holder : cell;
      named.dataset.cell = String(index);
      const mark = element("span", { className: "mark" });
      mark.setAttribute("aria-hidden", "true");
      cell.append(mark);
      const hint = element("span", { className: "hint-label" });
      hint.setAttribute("aria-hidden", "true");
      holder.append(cell, hint);
      line.append(holder);
      cells.push(named);
      holders.push(holder);
      hints.push(hint);
    }
    root.append(line);
  }
  const strikeLine = svg("line", { pathLength: 1 });
  const strike = svg("svg", {
    class: "strike",
    viewBox: `0 0 ${size} ${size}`,
    "aria-hidden": "true",
    focusable: "false",
  });
  strike.append(strikeLine);
  root.append(strike);

  // What the keys do, said once for screen readers beside the grid.
  const help = element("p", { className: "visually-hidden", id: `${root.id || "board"}-help` });
  const digits = element("span", { textContent: BOARD_HELP_DIGITS });
  if (!readOnly) {
    help.append(BOARD_HELP, digits, ".");
    root.after(help);
    root.setAttribute("aria-describedby", help.id);
  } else {
    root.setAttribute("aria-readonly", "true");
  }

  const labelOf = (i) => cellWords(cellName(i, size), shown.marks[i]);

  /** Draw `position`: {marks (X, O or . per cell), playable, last, line}. */
  function set(position) {
    shown = { last: -1, line: null, playable: false, ...position };
    render();
  }

  function render() {
    const { marks, playable, last, line } = shown;
    const win = new Set(line ?? []);
    cells.forEach((cell, i) => {
      const mark = marks[i] === "X" || marks[i] === "O" ? marks[i] : "";
      const best = holders[i].dataset.best === "true";
      const said = [labelOf(i), best ? BETTER_MOVE : "", tagged[i]?.words ?? ""];
      cell.setAttribute("aria-label", said.filter(Boolean).join(", "));
      if (!readOnly) cell.setAttribute("aria-disabled", String(!(playable && !mark)));
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
    const centre = (cell) => [(cell % size) + 0.5, Math.floor(cell / size) + 0.5];
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

  // Inert from the play until the server answers, so one click is one move; a refused
  // play puts the position back as it was shown.
  async function play(cell) {
    if (busy) return;
    busy = true;
    for (const btn of cells) btn.setAttribute("aria-disabled", "true");
    let reply = null;
    try {
      reply = await onPlay(cell);
    } finally {
      busy = false;
      if (!reply?.ok) render();
    }
  }

  const STEPS = {
    ArrowUp: (row, col) => [Math.max(row - 1, 0), col],
    ArrowDown: (row, col) => [Math.min(row + 1, size - 1), col],
    ArrowLeft: (row, col) => [row, Math.max(col - 1, 0)],
    ArrowRight: (row, col) => [row, Math.min(col + 1, size - 1)],
    Home: (row, col, ctrl) => (ctrl ? [0, 0] : [row, 0]),
    End: (row, col, ctrl) => (ctrl ? [size - 1, size - 1] : [row, size - 1]),
  };

  function onKey(event) {
    const step = STEPS[event.key];
    if (step) {
      event.preventDefault();
      const [row, col] = step(Math.floor(focused / size), focused % size, event.ctrlKey);
      rove(row * size + col, { focus: true });
      return;
    }
    // Keys 1-9 play a cell in reading order, while the player keeps the setting on.
    if (!numberKeys || !/^[1-9]$/.test(event.key) || Number(event.key) > count) return;
    if (event.ctrlKey || event.altKey || event.metaKey) return;
    event.preventDefault();
    rove(Number(event.key) - 1, { focus: true });
    play(focused);
  }

  if (!readOnly) {
    root.addEventListener("click", (event) => {
      const btn = event.target.closest("button[data-cell]");
      if (!btn) return;
      rove(Number(btn.dataset.cell));
      play(focused);
    });
    root.addEventListener("keydown", onKey);
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
    /** Give the focus to the cell in the tab order. */
    focus: () => rove(focused, { focus: true }),
  };
}
