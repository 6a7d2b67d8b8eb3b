// The board a game record is played on, for the page's check of a record (fairness.js):
// each variant's shape and rule as webapp/game/variant.py names them (a record's rules
// name the variant only off classic), its cells' names, and how a game on it ends. In
// Notakto both players place X, a board with three in a row is dead, and whoever kills
// the last live board loses; under misère whoever makes the line loses.
import { cellName } from "./protocol.js";

const VARIANTS = {
  classic: { rows: 3, columns: 3, k: 3 },
  misere: { rows: 3, columns: 3, k: 3, misere: true },
  "4x4k3": { rows: 4, columns: 4, k: 3 },
  "4x4k4": { rows: 4, columns: 4, k: 4 },
  notakto1: { rows: 3, columns: 3, k: 3, notakto: true },
  notakto2: { rows: 3, columns: 3, k: 3, notakto: true, boards: 2 },
  notakto3: { rows: 3, columns: 3, k: 3, notakto: true, boards: 3 },
};

/** Every run of k cells on one board of rows x columns, as lists of cells. */
function linesOf({ rows, columns, k }) {
  const lines = [];
  for (let row = 0; row < rows; row++) {
    for (let col = 0; col < columns; col++) {
      for (const [down, right] of [
        [0, 1],
        [1, 0],
        [1, 1],
        [1, -1],
      ]) {
        const at = (i) => (row + down * i) * columns + col + right * i;
        const cells = Array.from({ length: k }, (_, i) => at(i));
        const endRow = row + down * (k - 1);
        const endCol = col + right * (k - 1);
        if (endRow < rows && endCol >= 0 && endCol < columns) lines.push(cells);
      }
    }
  }
  return lines;
}

/**
 * The board of the variant called `name` (classic when none), or null for a name no
 * variant has: {cells, isCell, nameOf, markOf(placed), dead(marks, cell), outcome(marks,
 * placed)}; `marks` holds "X", "O" or null per cell, `placed` counts the marks placed.
 */
export function recordBoard(name = "classic") {
  const variant = Object.hasOwn(VARIANTS, name) ? VARIANTS[name] : null;
  if (!variant) return null;
  const { rows, columns, misere = false, notakto = false, boards = 1 } = variant;
  const per = rows * columns;
  const cells = per * boards;
  const lines = linesOf(variant);
  const isCell = (cell) => Number.isInteger(cell) && cell >= 0 && cell < cells;
  const named = (cell) => cellName(cell % per, columns);
  const nameOf = (cell) => {
    if (!isCell(cell)) return String(cell);
    return boards > 1 ? `${Math.floor(cell / per) + 1}:${named(cell)}` : named(cell);
  };
  // The owner of a line on board `b`, or null.
  const lineOn = (marks, b) =>
    lines
      .map((line) => line.map((cell) => marks[b * per + cell]))
      .find((held) => held[0] && held.every((mark) => mark === held[0]))?.[0] ?? null;
  const deadBoard = (marks, b) => notakto && lineOn(marks, b) !== null;
  const other = (mark) => (mark === "X" ? "O" : "X");
  return {
    cells,
    isCell,
    nameOf,
    /** The mark the next move places: X and O in turn, X throughout Notakto. */
    markOf: (placed) => (notakto || placed % 2 === 0 ? "X" : "O"),
    /** Whether `cell` is on a dead board (Notakto's). */
    dead: (marks, cell) => deadBoard(marks, Math.floor(cell / per)),
    /** The winner's role ("X" first, "O" second), "draw", or null while it goes on. */
    outcome(marks, placed) {
      const last = placed % 2 === 1 ? "X" : "O"; // who moved last, by role
      if (notakto) {
        const live = Array.from({ length: boards }, (_, b) => b).some((b) => !deadBoard(marks, b));
        return live ? null : other(last);
      }
      const owner = lineOn(marks, 0);
      if (owner) return misere ? other(owner) : owner;
      return marks.every(Boolean) ? "draw" : null;
    },
  };
}
