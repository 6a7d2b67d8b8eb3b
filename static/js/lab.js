// The lab: the AI's search on any position, made visible. The server searches; this page
// asks for a node's children when it is opened (lab_children), for the search's trace a
// page at a time (lab_page) and for the counts of the eight kinds of search (lab_counts),
// and draws what it is told. No game rule lives here: a hand-set move is one of the
// moves the server listed. This module holds the position and the choice under two
// scorings, and wires the tree (lab_tree.js), the steps (lab_steps.js) and the counts
// (lab_counts.js).
import { createBoard } from "./board.js";
import { $ } from "./dom.js";
import { announce, connect, sendPaid, showConnection } from "./connection.js";
import { setDisabled } from "./focus.js";
import { showCounts } from "./lab_counts.js";
import { EMPTY_BOARD, flat, NOTAKTO, SHAPE, stones, VARIANT } from "./lab_shape.js";
import { createSteps } from "./lab_steps.js";
import { createTree, markOf } from "./lab_tree.js";
import { EVENTS, labAddress } from "./protocol.js";
import {
  answerWords,
  BEST_TAG,
  choiceWords,
  FATALIST_WORDS,
  nodeWords,
  PLAYED_TAG,
  playedWords,
  POSITION_BOARD,
  refusedWords,
  SCORING_ABOUT,
  toMoveWords,
  useShape,
  waitingWords,
} from "./words_lab.js";
import { sideWords, topWords } from "./words_counts.js";

const FATALIST = "XO..X....";
// A jump far into a large trace runs the search again on the server, paused to let
// other players run: the empty board's plain minimax takes some seconds.
const PAGE_TIMEOUT_MS = 30000;

let send = null;
let root = $("lab").dataset.board; // the position the lab shows
const earlier = []; // positions before the hand-set moves, for Undo
let rootAnswer = null; // the root's children under the chosen scoring
let me = "X"; // the side to move at the root: every value is its

useShape(SHAPE);

// Every question names the variant, but classic's are asked as before variants.
const onVariant = VARIANT === "classic" ? {} : { variant: VARIANT };
const options = () => {
  const depth = $("depth").value;
  const scoring = { scoring: $("scoring").value, ...onVariant };
  return { ...scoring, ...(depth ? { depth: Number(depth) } : {}) };
};

// The side to move at the root, by its mark; in Notakto, where both place X, by its turn.
const sideAt = (position, mark) => (NOTAKTO ? sideWords(stones(position) % 2) : mark);

function refused(reply) {
  announce(refusedWords(reply?.error));
}

// The AI's move in a game, when the lab was opened from it ("Why this move?"): the
// answer at the top, marked on the board and shown beside the search's choice while the
// lab shows that game's position. The roll and the difficulty are the game's, if it had
// them (an address without them, or an older one, still opens).
const played = (() => {
  const asked = new URLSearchParams(window.location.search);
  const cell = asked.get("played") ?? "";
  const decision = asked.get("how") ?? "";
  const free = /^\d{1,2}$/.test(cell) && flat(root)[Number(cell)] === ".";
  if (!free || !/^[a-z]{0,16}$/.test(decision)) {
    return null;
  }
  const percent = (name) => {
    const text = asked.get(name) ?? "";
    return /^(100|[1-9]?\d)$/.test(text) ? Number(text) : null;
  };
  const chance = { roll: percent("roll"), difficulty: percent("level") };
  const player = asked.get("player") === "them" ? "them" : null; // someone else's game
  return { board: root, cell: Number(cell), decision, ...chance, player };
})();
const fromGame = () => played !== null && root === played.board;

// Who played each side, while the position follows from the game's: the AI moved at the
// game's position, the player ("you", or "them" in someone else's game) the other.
function whoMoves(mark) {
  const game = [...flat(played?.board ?? "")];
  const now = flat(root);
  if (!mark || !played || game.some((was, cell) => was !== "." && now[cell] !== was)) return null;
  const ai = sideAt(played.board, game.filter((was) => was !== ".").length % 2 ? "O" : "X");
  return mark === ai ? "ai" : (played.player ?? "you");
}

// --- the position: set up by hand ---------------------------------------------------------

const board = createBoard($("lab-board"), {
  ...SHAPE,
  label: POSITION_BOARD,
  onPlay: async (cell) => {
    const child = rootAnswer?.children.find((found) => found.cell === cell);
    if (!child) return { ok: false };
    earlier.push(root);
    await show(child.board);
    return { ok: true };
  },
});

// The tree's nodes, asked for when opened; their values are the side to move's at the root.
const tree = createTree($("tree"), {
  shape: SHAPE,
  load: async (path) => {
    const reply = await send(EVENTS.labChildren, { board: root, path, ...options() });
    if (reply.ok) return reply;
    refused(reply);
    return null;
  },
  name: (node, chosen) => {
    const { scoring, depth } = options();
    return nodeWords(node.moves, node.value, me, scoring, { chosen, depth });
  },
});

// The trace of the search the choices describe, a page at a time.
const steps = createSteps({
  shape: SHAPE,
  ask: (start, size) => {
    const search = {
      ...options(),
      prune: $("prune").checked,
      table: $("table").checked,
      symmetry: $("symmetry").checked,
    };
    const payload = { board: root, ...search, start, size };
    return send(EVENTS.labPage, payload, { timeoutMs: PAGE_TIMEOUT_MS });
  },
  refused,
});

async function show(position) {
  root = position;
  announce("");
  const address = labAddress($("lab").dataset.address, root, fromGame() ? played : null, VARIANT);
  window.history.replaceState(null, "", address);
  board.tag({});
  board.set({ marks: flat(root), playable: false });
  setDisabled($("undo"), earlier.length === 0, $("lab-board").querySelector('[tabindex="0"]'));
  // The counts last: on the larger variants they are the costliest answer, and the
  // connection's budget of work would refuse the others after them for a while.
  await Promise.all([loadRoot(), loadChoices(), steps.reset()]);
  await loadCounts();
}

async function loadRoot() {
  const reply = await send(EVENTS.labChildren, { board: root, ...options() });
  if (!reply.ok) return refused(reply);
  rootAnswer = reply;
  me = reply.children.length ? sideAt(root, markOf(reply.children[0])) : null;
  board.set({ marks: flat(root), playable: reply.children.length > 0, dead: reply.dead ?? [] });
  const { scoring, depth } = options();
  $("to-move").textContent = toMoveWords(me, reply.value, scoring, { depth, who: whoMoves(me) });
  const inGame = fromGame()
    ? playedWords(played.cell, played.decision, reply, me, scoring, { depth })
    : "";
  $("choice-played").textContent = inGame;
  $("choice-played").hidden = !inGame;
  tree.build(root, reply);
}

async function loadCounts() {
  showCounts(await send(EVENTS.labCounts, { board: root, ...options() }));
}

// --- the choice under two scorings: the fatalist and the fighter ---------------------------

async function loadChoices() {
  const ask = (scoring) => send(EVENTS.labChildren, { board: root, scoring, ...onVariant });
  const [plain, aware] = await Promise.all([ask("result"), ask("depth")]);
  if (!plain.ok || !aware.ok) return refused(plain.ok ? aware : plain);
  const mover = plain.children.length ? sideAt(root, markOf(plain.children[0])) : null;
  $("choice-result").textContent = choiceWords("result", plain, mover);
  $("choice-depth").textContent = choiceWords("depth", aware, mover);
  const differ = plain.best !== aware.best && plain.value === -1;
  $("choice-note").textContent = differ ? FATALIST_WORDS : "";
  $("choices").dataset.differ = String(differ);
  showAnswer(aware);
}

// "Why this move?" answered first: in words at the top, and marked on the board.
function showAnswer(aware) {
  const said = fromGame() ? answerWords(played, aware) : "";
  $("answer").textContent = said;
  $("answer-card").hidden = !said;
  if (!said) return board.tag({});
  const best = aware.children.filter((child) => child.value === aware.value).map((c) => c.cell);
  const tags = Object.fromEntries(best.map((cell) => [cell, { kinds: ["best"], words: BEST_TAG }]));
  const both = best.includes(played.cell);
  const words = both ? `${PLAYED_TAG}, ${BEST_TAG}` : PLAYED_TAG;
  tags[played.cell] = { kinds: both ? ["played", "best"] : ["played"], words };
  board.tag(tags);
}

// --- wiring -----------------------------------------------------------------------------------

function explainScoring() {
  const scoring = $("scoring").value;
  const top = VARIANT !== "classic" && scoring === "depth" ? topWords(SHAPE.cells) : "";
  $("scoring-about").textContent = SCORING_ABOUT[scoring] + top;
}

function wire() {
  $("scoring").addEventListener("change", () => {
    explainScoring();
    show(root);
  });
  $("depth").addEventListener("change", () => show(root));
  $("undo").addEventListener("click", () => earlier.length && show(earlier.pop()));
  $("clear").addEventListener("click", () => {
    earlier.push(root);
    show(EMPTY_BOARD);
  });
  // Other rules: the lab at their empty board.
  $("variant").addEventListener("change", () => {
    window.location.assign(labAddress($("lab").dataset.address, "", null, $("variant").value));
  });
  $("fatalist")?.addEventListener("click", () => {
    earlier.push(root);
    $("scoring").value = "depth";
    explainScoring();
    show(FATALIST);
  });
}

function start() {
  explainScoring();
  wire();
  let started = false;
  const onStatus = (status, message) => {
    showConnection(status, message, { plays: false });
    if (status === "online" && !started) {
      started = true;
      show(root);
    }
  };
  const { send: ask } = connect({ onStatus });
  send = (event, payload, options) => askPaid(ask, event, payload, options);
}

// A question refused while this connection's share of the lab's work is spent (the
// counts of a large search spend it for a moment) is asked again; the notice says so.
function askPaid(ask, event, payload, options) {
  let said = "";
  const waiting = (wait) => {
    if (wait !== null) announce((said = waitingWords(wait)));
    else if ($("notice").textContent === said) announce("");
  };
  return sendPaid(ask, event, payload, { waiting, options });
}

start();
