// What the rules dialog says: the new match in a few words, its odds, the questions asked
// before a match changes for good, and its refusals in plain words by their field. The
// words of targets, skills and promises it shares with History are in words.js.
import { errorWords, percent, plural, targetWords } from "./words.js";

/** Why something was refused (words.js's one lookup), or `fallback` for an unknown code. */
const whyWords = (code, fallback = "something went wrong") => errorWords(code, { fallback });

/** `text` with its first letter a capital, as a sentence shown alone begins. */
const sentence = (text) => text.charAt(0).toUpperCase() + text.slice(1);

/** The bounds a number must keep: "a whole number from 1 to 20". */
const wholeNumber = (min, max) => `a whole number from ${min} to ${max}`;

// --- the new match, in a few words --------------------------------------------------------

// Who starts the first game of a fixed-mode match, as the new-match summary says it.
const FIRST_WORDS = { toss: "coin toss for who starts", human: "you start", ai: "the AI starts" };

/** A fixed-mode match: "Classic · you start". */
export const fixedSummaryWords = (mode, first) => `${mode} · ${FIRST_WORDS[first]}`;

/** A match from a chance asked for (`target` 0..1), or why the chance as typed is none. */
export function targetSummaryWords(mode, target, { fits, min, max }) {
  // A target outside the bounds is no promise: the summary says so, not "Win about 1250%".
  if (!fits) return `${mode} · the chance you ask for needs ${wholeNumber(min, max)}`;
  return `${mode} · ${targetWords(target)} · rules tuned for you`;
}

/** A match by its numbers: "Adaptive · Classic rules · 100 HP each". */
export function rulesSummaryWords(mode, preset, you, ai) {
  const hp = you === ai ? `${you} HP each` : `you ${you} HP, the AI ${ai} HP`;
  return `${mode} · ${preset} rules · ${hp}`;
}

/** The odds line of the rules: a perfect and a random player's chances of a match, and
 * whether they are exact (worked out from the game) or simulated, with an interval. */
export function oddsSentence(odds) {
  const perfect = odds.perfect;
  const played = Math.round(perfect.expected_games);
  const [low, high] = perfect.interval ?? [];
  const how =
    perfect.exact === false
      ? `simulated: 95% interval ${percent(low)} to ${percent(high)} for the perfect player`
      : "exact odds";
  return (
    `A perfect player wins this match ${percent(perfect.human_match_win_prob)} of the time, ` +
    `in about ${plural(played, "game")}; a random player ${percent(odds.random.human_match_win_prob)}` +
    ` (${how})`
  );
}

/** No odds came for the rules in the form (a code the server or the page gave). */
export const noOddsWords = (code) => `No odds just now: ${whyWords(code)}`;

// --- before a match changes for good ------------------------------------------------------

/** What the match under way would lose (`match` of a snapshot in `mode`). */
export function progressWords(match, mode) {
  const { wins, losses, draws } = match.record;
  const tally = `you have won ${wins}, lost ${losses} and drawn ${draws}`;
  const stand = match.games
    ? `This match is at game ${match.game}: ${tally}.`
    : `Game ${match.game} is under way.`;
  if (mode !== "adaptive") return stand;
  return `${stand} You have ${match.human_hp} HP, the AI ${match.ai_hp}.`;
}

/** The question's line on the match that would replace it. */
export const newMatchWords = (summary) => `The new match: ${summary}.`;

/** The button that locks the AI at `level`. */
export const lockButtonWords = (level) => `Lock at ${level}`;

// --- refusals, by their field -------------------------------------------------------------

/** What a client seed may be. */
export const SEED_WORDS = "A seed is 1 to 64 letters, digits, - or _";

/** What the chance asked for takes. */
export const targetFieldWords = (min, max) => `Enter ${wholeNumber(min, max)}`;

/** What is wrong with a refused rule (`name`, its label), in plain words: what it takes. */
export function ruleWords(name, { min, max, empty }) {
  if (empty) return `${name}: enter ${wholeNumber(min, max)}`;
  return `${name} must be ${wholeNumber(min, max)}`;
}

/**
 * Why settings were refused (the server's `error`): the server's own sentence when it
 * refused the rules as a whole (`whole`, "a draw must cost ..."), else its code's words.
 */
export function refusalWords(error, { whole }) {
  if (whole && error?.message) return sentence(error.message);
  return whyWords(error?.code, "Those settings were refused");
}

/** The labels `names` of fields refused together, either of which would do: “A” or “B”. */
const eitherWords = (names) => names.map((name) => `“${name}”`).join(" or ");

/** The odds line while the fields labelled `names` are refused. */
export const noOddsUntilWords = (names) => `No odds until ${eitherWords(names)} is fixed`;

/** Start match refused: the fields labelled `names` to fix, or the refusal's `message`. */
export function notStartedWords({ names = [], message = "" }) {
  const fix = eitherWords(names);
  if (names.length) return `Not started: one setting needs a change. Fix ${fix} above.`;
  return `Not started: ${message}`;
}

// --- the target's preview -----------------------------------------------------------------

/** The preview's first line while the chance asked for is refused. */
export const NO_RULES_UNTIL = "No rules until the chance you ask for is fixed";

/** The preview's first line while the server tunes the rules. */
export const TUNING = "Working out the rules…";

/** No tuned rules came (a code the server or the page gave). */
export const noRulesWords = (code) => `No rules just now: ${whyWords(code)}`;
