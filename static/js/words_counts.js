// What the lab says of searches on the larger variants: the sides in Notakto, counts
// that are estimates or stopped at the lab's cap, the AI's own search, a walk cut short.
import { stepOfWords } from "./words_lab.js";

/** The side to move in Notakto, where both place X, by the marks placed (0 even, 1 odd). */
export const sideWords = (odd) => (odd ? "Player 2" : "Player 1");

/** What a quick win is worth on boards of `cells` cells, after the scoring's own words. */
export const topWords = (cells) =>
  ` On these boards a win on the spot is worth ${cells + 1} under depth-aware scores, ` +
  "and each move on the way costs one.";

/** The AI's own search as the counts name it. */
export const ENGINE_KIND =
  "the AI’s own search: alpha-beta, table, symmetry, move ordering and shortcuts";

/** Where the walk is; on a search too large to walk whole, that it shows the first steps. */
export function walkWords(step, steps, whole) {
  if (whole || steps == null) return stepOfWords(step, steps);
  const shown = steps.toLocaleString("en");
  return (
    `Step ${(step + 1).toLocaleString("en")} of the first ${shown}: this search is too large ` +
    "to walk whole, so the walk stops there (a depth limit, pruning or a table make it smaller)."
  );
}

/** How the counts on a larger variant were found (the server's `lab_counts` answer). */
export function otherCountsWords({ most, descents }) {
  return (
    "Counted just now on this server, each search stopped at " +
    `${most.toLocaleString("en")} positions ("more than"). Plain minimax is too large to ` +
    `walk here: its size marked ≈ is an estimate, from ${descents} random descents ` +
    "(Knuth’s method: along each, 1 + b1 + b1·b2 + …, with b the moves met at each step, " +
    "then the mean). The bars are on a log scale; the times are indicative."
  );
}
