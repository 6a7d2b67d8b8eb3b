// The lab's rule set as the page was given it (templates/lab.html): the variant's name,
// its boards' shape, and a position as the board draws it. The server knows the rules;
// this only reads the page and writes positions out.
import { shapeOf } from "./board.js";
import { $ } from "./dom.js";

const data = $("lab").dataset;

/** The variant's name, as the protocol and the address spell it. */
export const VARIANT = data.variant || "classic";

/** Rows, columns, boards and cells of the page's variant. */
export const SHAPE = shapeOf({
  rows: Number(data.rows || 3),
  columns: Number(data.columns || 3),
  boards: Number(data.boards || 1),
});

/** In Notakto both sides place X: the sides are the first and the second player. */
export const NOTAKTO = VARIANT.startsWith("notakto");

/** The empty board in the notation: boards of "." separated by "/". */
export const EMPTY_BOARD = Array.from({ length: SHAPE.boards }, () =>
  ".".repeat(SHAPE.rows * SHAPE.columns),
).join("/");

/** A position's cells in one row, as the board draws them (no "/"). */
export const flat = (text) => text.replaceAll("/", "");

/** How many marks a position holds. */
export const stones = (text) => flat(text).replaceAll(".", "").length;
