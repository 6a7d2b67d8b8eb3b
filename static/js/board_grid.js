// The board's shape and DOM, for board.js: one ARIA grid of rows x columns, or several
// boards side by side (each its own grid, named by a caption above it), the cells in
// reading order board by board; their names (b2, or 2:b2 on several boards); and where
// an arrow key goes, within a board and on to the next one at its edge.
import { cellName } from "./protocol.js";
import { BOARDS_LABEL, boardName } from "./words.js";

const SVG_NS = "http://www.w3.org/2000/svg";

export function svg(tag, attrs) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, value);
  return el;
}

export const element = (tag, attrs = {}) => Object.assign(document.createElement(tag), attrs);

/** The shape a page asks for: `size` (a square board) or rows, columns and boards. */
export function shapeOf({ size = 3, rows = size, columns = size, boards = 1 }) {
  return { rows, columns, boards, cells: rows * columns * boards };
}

/** A cell's name: "b2" on one board, "2:b2" on several. */
export function nameOf(shape, cell) {
  const per = shape.rows * shape.columns;
  const name = cellName(cell % per, shape.columns);
  return shape.boards > 1 ? `${Math.floor(cell / per) + 1}:${name}` : name;
}

/** The board a cell is on, and its row and column there. */
function place(shape, cell) {
  const per = shape.rows * shape.columns;
  const within = cell % per;
  return [Math.floor(cell / per), Math.floor(within / shape.columns), within % shape.columns];
}

const at = (shape, board, row, col) => (board * shape.rows + row) * shape.columns + col;

// Each key's move from [board, row, column] on a shape: within the board, then past its
// edge onto the next or the previous board, if any (else it stays).
const STEPS = {
  ArrowUp: ([b, r, c], s) => (r > 0 ? [b, r - 1, c] : b > 0 ? [b - 1, s.rows - 1, c] : [b, r, c]),
  ArrowDown: ([b, r, c], s) =>
    r < s.rows - 1 ? [b, r + 1, c] : b < s.boards - 1 ? [b + 1, 0, c] : [b, r, c],
  ArrowLeft: ([b, r, c], s) =>
    c > 0 ? [b, r, c - 1] : b > 0 ? [b - 1, r, s.columns - 1] : [b, r, c],
  ArrowRight: ([b, r, c], s) =>
    c < s.columns - 1 ? [b, r, c + 1] : b < s.boards - 1 ? [b + 1, r, 0] : [b, r, c],
  Home: ([b, r], s, ctrl) => (ctrl ? [0, 0, 0] : [b, r, 0]),
  End: ([b, r], s, ctrl) =>
    ctrl ? [s.boards - 1, s.rows - 1, s.columns - 1] : [b, r, s.columns - 1],
};

/**
 * The cell an arrow key (or Home, End) moves to from `cell`; Ctrl+Home and Ctrl+End go
 * to the first and the last cell. Null for any other key.
 */
export function stepFrom(shape, cell, key, ctrl) {
  const step = Object.hasOwn(STEPS, key) ? STEPS[key] : null;
  return step ? at(shape, ...step(place(shape, cell), shape, ctrl)) : null;
}

/** One grid of rows of cells; each cell's labelled element, holder and hint label. */
function buildGrid(grid, shape, board, readOnly, parts) {
  grid.setAttribute("role", "grid");
  grid.style.setProperty("--cells", String(shape.columns));
  for (let row = 0; row < shape.rows; row++) {
    const line = element("div", { className: "board-row" });
    line.setAttribute("role", "row");
    for (let col = 0; col < shape.columns; col++) {
      const index = at(shape, board, row, col);
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
      parts.cells.push(named);
      parts.holders.push(holder);
      parts.hints.push(hint);
    }
    grid.append(line);
  }
}

/**
 * Draw the shape's cells into `root`: it becomes the grid of a single board, or the
 * group of several, each board a captioned grid. Returns the cells' parts in reading
 * order, and each board's grid and caption (none for a single board).
 */
export function buildBoards(root, shape, { label, readOnly }) {
  const parts = { cells: [], holders: [], hints: [], grids: [], captions: [] };
  if (shape.boards === 1) {
    root.classList.add("board");
    root.setAttribute("aria-label", label);
    buildGrid(root, shape, 0, readOnly, parts);
    return parts;
  }
  root.classList.replace("board", "boards") || root.classList.add("boards");
  root.style.setProperty("--boards", String(shape.boards));
  root.setAttribute("role", "group");
  root.setAttribute("aria-label", BOARDS_LABEL);
  for (let board = 0; board < shape.boards; board++) {
    const wrap = element("div", { className: "board-wrap" });
    const caption = element("p", {
      className: "board-caption",
      id: `${root.id || "board"}-caption-${board + 1}`,
      textContent: boardName(board + 1),
    });
    const grid = element("div", { className: "board" });
    grid.setAttribute("aria-labelledby", caption.id);
    buildGrid(grid, shape, board, readOnly, parts);
    wrap.append(caption, grid);
    root.append(wrap);
    parts.grids.push(grid);
    parts.captions.push(caption);
  }
  return parts;
}
