// Why a game's record fails its check (fairness.js, docs/fairness.md), as the page shows
// it after "Dice check failed: ". Loaded with the checker, once a game ends; words.js has
// the rest of the dice's words.

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
