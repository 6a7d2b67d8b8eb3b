// The screen-reader mode on the Train page (reader.js): the card due, or when none is due
// the puzzle, read and answered by a typed cell (the same answer as a click); `status`,
// `next`; the verdict is said in the page's one assertive live region, mode on or off.
import { shapeOf } from "./board.js";
import { $ } from "./dom.js";
import { createReader } from "./reader.js";
import {
  NEXT_CARD_FIRST,
  NEXT_PUZZLE_FIRST,
  NOTHING_TO_TRAIN,
  SOLVED_ALREADY,
  TRAIN_DOES,
} from "./words_train.js";

/**
 * `page`: now() -> the task to answer ({card} or {puzzle, solved}) or null; answerCard(cell), answerPuzzle(cell): the page's answers to a click; nextPuzzle().
 * Returns the reader ({say, on}): the page says its verdicts through it.
 */
export function createTrainReader(page) {
  const item = () => page.now()?.card ?? page.now()?.puzzle;
  return createReader(
    {
      position() {
        const shown = item();
        if (!shown) return null;
        return { shape: shapeOf(shown), marks: shown.board.replaceAll("/", ""), dead: shown.dead ?? [] };
      },
      async play(cell) {
        const now = page.now();
        if (now.solved) return SOLVED_ALREADY;
        await (now.card ? page.answerCard(cell) : page.answerPuzzle(cell));
        return ""; // the verdict, or the refusal, the page has said
      },
      status() {
        // The words the page shows: the question, then the cards due or the rating.
        const now = page.now();
        if (!now) return NOTHING_TO_TRAIN;
        const shown = now.card ? ["card-prompt", "due-count"] : ["puzzle-prompt", "puzzle-rating"];
        return shown.map((id) => $(id).textContent).join(" ");
      },
      async next() {
        const now = page.now();
        if (now?.card) return NEXT_CARD_FIRST;
        if (!now?.solved) return NEXT_PUZZLE_FIRST;
        await page.nextPuzzle();
        return $("puzzle-prompt").textContent; // the new puzzle's question
      },
      does: TRAIN_DOES,
    },
    { region: $("train-said"), always: true },
  );
}
