// What the lab says beyond the words of values, lines and steps it shares with the other
// pages (words.js): its boards' names, its waits and its refusals.
import { errorWords } from "./words_rules.js";

/** The accessible names of the lab's two boards. */
export const POSITION_BOARD = "Position to search";
export const STEP_BOARD = "Position at this step";

/** A refusal of the lab's question (the server's `error`), or no answer at all. */
export const refusedWords = (error) => errorWords(error?.code) ?? error?.message ?? "No answer";

/** A step's number as the step-through shows it: "1,024". */
export const stepNumberWords = (step) => (step + 1).toLocaleString("en");

/** How the wait for a page of the trace far from the start begins, and says where. */
export const RUNNING = "Running the search";
export const runningWords = (step) => `${RUNNING} to step ${stepNumberWords(step)}…`;

/** A move the search left unvisited, by its name. */
export const prunedWords = (name) => `${name}: pruned`;

/** The search holds no cut after the step shown. */
export const NO_MORE_CUTS = "No more cuts in this search.";

/** The connection banner's words while the page is not connected and no reason came. */
export const RECONNECTING = "Reconnecting…";
