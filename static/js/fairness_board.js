// A finished game replayed for the dice check (fairness.js), on the rule set its record
// names (docs/fairness.md): how many cells it has, and how a game on it ends. Classic
// unless the record's rules name another, as they do for every other board.

import { cellName } from "./protocol.js";

// Each rule set: its boards' size, the run that ends a game, misère, and how many boards
// (Notakto: both place X, a board with a run is dead, who kills the last one loses).
const VARIANTS = {
  classic: { size: 3, k: 3 },
  misere: { size: 3, k: 3, misere: true },
  "4x4k3": { size: 4, k: 3 },
  "4x4k4": { size: 4, k: 4 },
  notakto1: { size: 3, k: 3, boards: 1, notakto: true },
  notakto2: { size: 3, k: 3, boards: 2, notakto: true },
  notakto3: { size: 3, k: 3, boards: 3, notakto: true },
};

/** Every run of `k` cells on a `size` x `size` board: rows, columns and both diagonals. */
function runs(size, k) {
  const found = [];
  for (let row = 0; row < size; row++) {
    for (let col = 0; col < size; col++) {
      for (const [down, right] of [[0, 1], [1, 0], [1, 1], [1, -1]]) {
        const [endRow, endCol] = [row + down * (k - 1), col + right * (k - 1)];
        if (endRow >= size || endCol < 0 || endCol >= size) continue;
        found.push(Array.from({ length: k }, (_, i) => (row + down * i) * size + col + right * i));
      }
    }
  }
  return found;
}

/**
 * The board of the record's rule set, or null for a name it does not know: `cells`, how
 * many, `name(cell)`, and `outcome(marks, placed)`: the winner's mark, "draw", or null while the game
 * goes on (`marks` holds X or O per cell by role; `placed` counts the moves).
 */
export function boardOf(record) {
  const variant = VARIANTS[record.rules?.variant ?? "classic"];
  if (!variant) return null;
  const { size, k, boards = 1, misere = false, notakto = false } = variant;
  const per = size * size;
  const lines = runs(size, k);
  const on = (board) => lines.map((line) => line.map((cell) => board * per + cell));
  const allLines = Array.from({ length: boards }, (_, b) => on(b)).flat();
  const other = (mark) => (mark === "X" ? "O" : "X");

  function outcome(marks, placed) {
    const last = placed % 2 === 1 ? "X" : "O"; // the role that moved last
    if (notakto) {
      const dead = (b) => on(b).some((line) => line.every((cell) => marks[cell]));
      const over = Array.from({ length: boards }, (_, b) => b).every(dead);
      return over ? other(last) : null;
    }
    const full = (line) => marks[line[0]] && line.every((cell) => marks[cell] === marks[line[0]]);
    const made = allLines.find(full);
    if (made) return misere ? other(marks[made[0]]) : marks[made[0]];
    return marks.every(Boolean) ? "draw" : null;
  }

  const name = (cell) => {
    const within = cellName(cell % per, size);
    return boards > 1 ? `${Math.floor(cell / per) + 1}:${within}` : within;
  };
  return { cells: per * boards, outcome, name };
}
