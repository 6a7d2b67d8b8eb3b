// What the pages say of a game's dice and its record (docs/fairness.md): the AI page's
// dice panel, the replay's check of a signed record, and each reason fairness.js gives
// when a check fails. words.js has the rest.

/** A game record that passed the page's check, in plain words, by what its signature said
 * (the details are in the downloadable record). */
export const RECORD_VERIFIED = Object.freeze({
  verified: "Dice checked ✓",
  unchecked: "Dice checked ✓ (this browser cannot check the signature)",
  unsigned: "Dice checked ✓ (the record is unsigned)",
});

// --- the AI page's dice panel -----------------------------------------------------------

/** The server seed's place while the game goes on. */
export const SEED_HIDDEN = "revealed when the game ends";

/** The client seed the next game will start from, when it is not this game's. */
export const nextSeedWords = (seed) => ` (from your next game: ${seed}-…)`;

/** The dice check's line, by where the game is. */
export const DICE_CHECK = Object.freeze({
  none: "This game began before verifiable dice",
  waiting: "Dice fixed before the game: checked here when it ends",
  checking: "Checking the dice…",
  unchecked: "The dice could not be checked: reload the page to try again",
});

/** A dice check that failed, with the checker's reason. */
export const diceFailedWords = (reason) => `Dice check failed: ${reason}`;

// --- the replay's signed record ---------------------------------------------------------

export const RECORD_CHECK = Object.freeze({
  checking: "Checking the record…",
  unchecked: "The record could not be checked: reload the page to try again",
});

/** A record check that failed, with the checker's reason. */
export const recordFailedWords = (reason) => `Check failed: ${reason}`;

// --- why a check failed (fairness.js) -----------------------------------------------------

/** Who moves, as a reason names them. */
export const WHO = Object.freeze({ human: "you", ai: "the AI" });

/** Each reason a record fails its check, as the page shows it after "Dice check failed: ". */
export const MISMATCHES = Object.freeze({
  aiMove: (index, cell) => `AI move ${index} at ${cell}`,
  noRoll: (move) => `${move}: the record has no roll`,
  rollOrder: (move, n, next) => `${move}: its roll is stream number ${n}, expected ${next}`,
  roll: (move, roll, said) => `${move}: the dice give roll ${roll}, the record says ${said}`,
  difficulty: (move, level, said) => `${move}: the difficulty is ${level}, the record says ${said}`,
  decision: (move, roll, level, decision, said) =>
    `${move}: roll ${roll} against difficulty ${level} means a ${decision} move, the record says ${said}`,
  candidates: (move) => `${move}: its candidates are not sorted cells`,
  pickOrder: (move, n, next) => `${move}: its pick is stream number ${n}, expected ${next}`,
  pick: (move, cell, cells, said) =>
    `${move}: the dice pick ${cell} from ${cells}, the record says ${said}`,
  firstBy: (firstBy) => `unknown first_by ${firstBy}`,
  firstPlayer: (first) => `unknown first player ${first}`,
  first: (dice, said) => `who starts: the dice say ${dice}, the record says ${said}`,
  keys: (status) => `the server's keys answered ${status}`,
  base64: (name) => `the signed record's ${name} is not base64`,
  format: "not a signed record of format 1",
  payload: "the signed payload is not JSON",
  unknownKey: (key) => `signed by key ${key}, which is not one of this server's keys`,
  signature: (key) => `the signature does not match the record's bytes (key ${key})`,
  notOver: (status, revealed) =>
    `the game is not over (status ${status})${revealed ? ": moves are missing" : ""}`,
  noRules: "the record has no mode or rules",
  noFirst: "the record's first player is neither side",
  notEmpty: (index) => `move ${index} is not on an empty cell`,
  afterEnd: (index) => `move ${index} comes after the game was over`,
  notTurn: (index, who) => `move ${index} is not the ${who}'s turn`,
  ending: (status, said) => `the moves end with the game ${status}, the record says ${said}`,
  noDice: "the game began before verifiable dice",
  seedHidden: "the server seed is not revealed yet",
  seedForm: "the server seed is not 64 hex digits",
  commitment: "the server seed does not match the commitment",
  unreadable: (error) => `the record could not be read (${error})`,
});
