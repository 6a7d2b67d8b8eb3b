// The screen-reader mode, on every page that plays (templates/_parts.html's reader_mode):
// a switch the browser remembers; while it is on, a command box and the page's one
// assertive live region. A cell's name (b2, 2:b2) plays it; `board`, `last`, `status`,
// `why`, `hint`, `undo` and `help` answer in words. The page owns what there is to say;
// this module owns the box, the parsing and the region, as board.js owns the grid.
import { CHOICES, choice, remember } from "./choices.js";
import { $ } from "./dom.js";
import { nameOf } from "./board.js";
import {
  COMMANDS,
  NOTHING_YET,
  deadCellWords,
  helpWords,
  notHereWords,
  offBoardWords,
  playedWords,
  refusedWords,
  rowWords,
  boardRowsWords,
  takenWords,
  unknownWords,
} from "./words_reader.js";
import { errorWords } from "./words.js";

const CLEAR_MS = 20000; // what was said stays readable a while (found again by a screen reader), then goes
const NBSP = "\u00a0";
const LOOKS_LIKE_CELL = /^(\d+:)?[a-z]\d+$/;

/** The position read row by row: "row 1: X, empty, O. row 2: …", board by board. */
export function boardWords(shape, marks, dead = []) {
  const per = shape.rows * shape.columns;
  const boards = Array.from({ length: shape.boards }, (_, b) => {
    const rows = Array.from({ length: shape.rows }, (_, r) => {
      const from = b * per + r * shape.columns;
      return rowWords(r + 1, marks.slice(from, from + shape.columns));
    });
    return shape.boards > 1 ? boardRowsWords(b + 1, dead.includes(b), rows) : rows.join(". ");
  });
  return `${boards.join(". ")}.`;
}

/**
 * Wire the page's reader section to its `commands`, each optional (a command a page
 * lacks is answered as such): `position()` -> {shape, marks, dead} or null;
 * `play(cell)` -> a promise of the server's ack; `last()`, `status()`, `why()` -> words;
 * `hint()` -> a promise of words; `undo()` -> a promise of the ack; `back()`, `first()`,
 * `end()` step a replay; `play` may answer in words (a string); `readOnly(typed)` words a
 * cell typed where nothing is played; `does` words `help` for the page. Returns
 * {say(text), on()}: the page says what just happened through `say`, heard only while
 * the mode is on. `options`: `region`, a page's own live region to speak in, and
 * `always`, to speak there with the mode off too.
 */
export function createReader(commands, { region = $("reader-said"), always = false } = {}) {
  const toggle = $("reader-on");
  const form = $("reader-form");
  const box = $("reader-command");
  let clearTimer = 0;
  let saidCount = 0; // how many times the region has spoken: a play's ack speaks only if nothing came first

  function show(on) {
    toggle.checked = on;
    form.hidden = !on;
    if (!on && !always) region.textContent = "";
  }
  // Loaded when the switch was first turned on (choices.js, lazyReader): that choice is kept.
  const remembered = choice(CHOICES.reader, false);
  show(remembered || toggle.checked);
  if (toggle.checked && !remembered) {
    remember(CHOICES.reader, true);
    box.focus();
  }
  toggle.addEventListener("change", () => {
    remember(CHOICES.reader, toggle.checked);
    show(toggle.checked);
    if (toggle.checked) box.focus();
  });

  /** Say `text` in the live region; the same words again are changed so they are read. */
  function say(text) {
    if ((!toggle.checked && !always) || !text) return;
    saidCount += 1;
    const again = region.textContent.replace(/\u00a0$/, "") === text;
    region.textContent = again && !region.textContent.endsWith(NBSP) ? text + NBSP : text;
    clearTimeout(clearTimer);
    clearTimer = setTimeout(() => (region.textContent = ""), CLEAR_MS);
  }

  const names = () => Object.keys(COMMANDS).filter((name) => name === "help" || commands[name] || (name === "board" && commands.position));

  // The cell a name stands for on the board shown, or why it cannot be played.
  function cellFor(typed, position) {
    const { shape, marks, dead = [] } = position;
    const cell = Array.from({ length: shape.cells }, (_, i) => i).find((i) => nameOf(shape, i) === typed);
    if (cell === undefined) {
      return { refusal: offBoardWords(typed, nameOf(shape, 0), nameOf(shape, shape.cells - 1)) };
    }
    const board = Math.floor(cell / (shape.rows * shape.columns));
    if (dead.includes(board)) return { refusal: deadCellWords(typed, board + 1) };
    if (marks[cell] === "X" || marks[cell] === "O") return { refusal: takenWords(typed, marks[cell]) };
    return { cell };
  }

  async function play(typed) {
    if (commands.readOnly) return say(commands.readOnly(typed));
    const position = commands.position?.();
    if (!position || !commands.play) return say(notHereWords(typed));
    const { cell, refusal } = cellFor(typed, position);
    if (refusal) return say(refusal);
    const count = saidCount;
    const reply = await commands.play(cell);
    if (typeof reply === "string") say(reply);
    else if (reply?.ok) {
      if (count === saidCount) say(playedWords(typed));
    } else if (reply) say(refusedWords(typed, errorWords(reply.error, { servers: true })));
  }

  const answers = {
    board() {
      const position = commands.position?.();
      return position ? boardWords(position.shape, position.marks, position.dead) : NOTHING_YET;
    },
    last: () => commands.last?.() || NOTHING_YET,
    status: () => commands.status?.(),
    why: () => commands.why?.(),
    hint: () => commands.hint?.(),
    undo: () => acted(commands.undo),
    next: () => acted(commands.next),
    back: () => acted(commands.back),
    first: () => acted(commands.first),
    end: () => acted(commands.end),
    help() {
      const shape = commands.position?.()?.shape ?? { rows: 3, columns: 3, boards: 1 };
      return helpWords(nameOf(shape, 4), names(), commands.does);
    },
  };

  // A command that asks the server: its refusal in words (or the page's own, a string);
  // what it did, the page says when the news comes.
  async function acted(command) {
    const reply = await command?.();
    if (typeof reply === "string") return reply;
    return reply && !reply.ok ? errorWords(reply.error, { servers: true }) : "";
  }

  async function run(typed) {
    const command = Object.keys(COMMANDS).find((name) => COMMANDS[name] === typed);
    if (command && !names().includes(command)) return say(notHereWords(typed));
    if (command) return say(await answers[command]());
    if (LOOKS_LIKE_CELL.test(typed)) return play(typed);
    say(unknownWords(typed));
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const typed = box.value.trim().toLowerCase();
    box.value = "";
    if (typed) run(typed);
  });

  return { say, on: () => toggle.checked };
}
