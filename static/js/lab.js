// The lab: the AI's search on any position, made visible. The server searches; this page
// asks for a node's children when it is opened (lab_children), for the search's trace a
// page at a time (lab_page) and for the counts of the eight kinds of search (lab_counts),
// and draws what it is told. No game rule lives here: a hand-set move is one of the
// moves the server listed.
import { createBoard } from "./board.js";
import { connect } from "./connection.js";
import { setDisabled } from "./focus.js";
import { ERROR_MESSAGES, EVENTS, labAddress } from "./protocol.js";
import {
  FATALIST_WORDS,
  NO_CUTS_WORDS,
  SCORING_ABOUT,
  choiceWords,
  countWords,
  kindWords,
  measuredWords,
  nodeWords,
  playedWords,
  stepOfWords,
  stepWords,
  toMoveWords,
  windowWords,
} from "./words.js";

const $ = (id) => document.getElementById(id);
const FATALIST = "XO..X....";
const PAGE_SIZE = 200;
// A jump far into a large trace runs the search again on the server, paused to let
// other players run: the empty board's plain minimax takes some seconds.
const PAGE_TIMEOUT_MS = 30000;
const SLOW_PAGE_MS = 500;

let send = null;
let root = $("lab").dataset.board; // the position the lab shows
const earlier = []; // positions before the hand-set moves, for Undo
let rootAnswer = null; // the root's children under the chosen scoring
let me = "X"; // the side to move at the root: every value is its

const options = () => {
  const depth = $("depth").value;
  return { scoring: $("scoring").value, ...(depth ? { depth: Number(depth) } : {}) };
};

function refused(reply) {
  const code = reply?.error?.code;
  $("notice").textContent = ERROR_MESSAGES[code] ?? reply?.error?.message ?? "No answer";
}

const markOf = (child) => child.board[child.cell];

// The AI's move in a game, when the lab was opened from it ("Why this move?"): shown
// beside the search's choice while the lab shows that game's position.
const played = (() => {
  const asked = new URLSearchParams(window.location.search);
  const cell = asked.get("played") ?? "";
  const decision = asked.get("how") ?? "";
  if (!/^[0-8]$/.test(cell) || root[Number(cell)] !== "." || !/^[a-z]{0,16}$/.test(decision)) {
    return null;
  }
  return { board: root, cell: Number(cell), decision };
})();
const fromGame = () => played !== null && root === played.board;

// --- the position: set up by hand ---------------------------------------------------------

const board = createBoard($("lab-board"), {
  label: "Position to search",
  onPlay: async (cell) => {
    const child = rootAnswer?.children.find((found) => found.cell === cell);
    if (!child) return { ok: false };
    earlier.push(root);
    await show(child.board);
    return { ok: true };
  },
});

async function show(position) {
  root = position;
  $("notice").textContent = "";
  const address = labAddress($("lab").dataset.address, root, fromGame() ? played : null);
  window.history.replaceState(null, "", address);
  board.set({ marks: root, playable: false });
  setDisabled($("undo"), earlier.length === 0, $("lab-board").querySelector('[tabindex="0"]'));
  await Promise.all([loadRoot(), loadChoices(), loadCounts(), resetSteps()]);
}

async function loadRoot() {
  const reply = await send(EVENTS.labChildren, { board: root, ...options() });
  if (!reply.ok) return refused(reply);
  rootAnswer = reply;
  me = reply.children.length ? markOf(reply.children[0]) : null;
  board.set({ marks: root, playable: reply.children.length > 0 });
  const { scoring, depth } = options();
  $("to-move").textContent = toMoveWords(me, reply.value, scoring, { depth });
  const inGame = fromGame()
    ? playedWords(played.cell, played.decision, reply, me, scoring, { depth })
    : "";
  $("choice-played").textContent = inGame;
  $("choice-played").hidden = !inGame;
  buildTree(reply);
}

// --- the choice under two scorings: the fatalist and the fighter ---------------------------

async function loadChoices() {
  const ask = (scoring) => send(EVENTS.labChildren, { board: root, scoring });
  const [plain, aware] = await Promise.all([ask("result"), ask("depth")]);
  if (!plain.ok || !aware.ok) return refused(plain.ok ? aware : plain);
  const mover = plain.children.length ? markOf(plain.children[0]) : null;
  $("choice-result").textContent = choiceWords("result", plain, mover);
  $("choice-depth").textContent = choiceWords("depth", aware, mover);
  const differ = plain.best !== aware.best && plain.value === -1;
  $("choice-note").textContent = differ ? FATALIST_WORDS : "";
  $("choices").dataset.differ = String(differ);
}

// --- the tree: an ARIA treeview, children fetched when a node is opened --------------------

const tree = $("tree");
const items = new WeakMap(); // treeitem -> {path, moves, board, value, loaded}
let nodeCount = 0;

function miniBoard(position) {
  const holder = document.createElement("span");
  holder.className = "mini";
  holder.setAttribute("aria-hidden", "true");
  const grid = document.createElement("div");
  holder.append(grid);
  createBoard(grid, { label: "" }).set({ marks: position });
  return holder;
}

// Each node is an <li> holding its treeitem and, once it has moves, their group, which
// the treeitem owns: so a node's name and visible text are its own words only.
function treeItem(node, { chosen = false } = {}) {
  const holder = document.createElement("li");
  holder.setAttribute("role", "none");
  const li = document.createElement("div");
  li.setAttribute("role", "treeitem");
  li.tabIndex = -1;
  li.classList.toggle("is-chosen", chosen);
  const row = document.createElement("div");
  row.className = "node";
  // The node's name is its visible words: the line, the value, and whether it is chosen.
  const words = document.createElement("span");
  words.className = "node-words";
  words.id = `node-${(nodeCount += 1)}`;
  const { scoring, depth } = options();
  words.textContent = nodeWords(node.moves, node.value, me, scoring, { chosen, depth });
  li.setAttribute("aria-labelledby", words.id);
  row.append(miniBoard(node.board), words);
  li.append(row);
  holder.append(li);
  if (node.open) {
    li.setAttribute("aria-expanded", "false");
    const group = document.createElement("ul");
    group.setAttribute("role", "group");
    group.id = `${words.id}-moves`;
    group.hidden = true;
    li.setAttribute("aria-owns", group.id);
    holder.append(group);
  }
  items.set(li, node);
  return holder;
}

const itemIn = (holder) => holder.firstElementChild;
const groupOf = (li) => li.nextElementSibling;

function fillGroup(li, answer) {
  const node = items.get(li);
  groupOf(li).replaceChildren(
    ...answer.children.map((child) => {
      const moves = [...node.moves, { mark: markOf(child), cell: child.cell }];
      const path = [...node.path, child.cell];
      const item = { path, moves, board: child.board, value: child.value, open: child.open };
      return treeItem(item, { chosen: child.cell === answer.best });
    }),
  );
  node.loaded = true;
}

function buildTree(answer) {
  const holder = treeItem({ path: [], moves: [], board: root, value: answer.value, open: true });
  tree.replaceChildren(holder);
  const top = itemIn(holder);
  top.tabIndex = 0;
  if (answer.children.length) {
    fillGroup(top, answer);
    setOpen(top, true);
  } else {
    top.removeAttribute("aria-expanded");
    top.removeAttribute("aria-owns");
  }
}

function setOpen(li, open) {
  li.setAttribute("aria-expanded", String(open));
  groupOf(li).hidden = !open;
}

async function expand(li) {
  const node = items.get(li);
  if (!node.loaded) {
    const path = node.path.join("");
    const reply = await send(EVENTS.labChildren, { board: root, path, ...options() });
    if (!reply.ok) return refused(reply);
    if (!reply.children.length) {
      li.removeAttribute("aria-expanded");
      li.removeAttribute("aria-owns");
      return;
    }
    fillGroup(li, reply);
  }
  setOpen(li, true);
}

const visible = () =>
  [...tree.querySelectorAll('[role="treeitem"]')].filter((li) => !li.parentElement.closest("[hidden]"));

function focusItem(li) {
  if (!li) return;
  for (const item of tree.querySelectorAll('[role="treeitem"]')) item.tabIndex = -1;
  li.tabIndex = 0;
  li.focus();
}

const parentItem = (li) => li.parentElement.parentElement.closest("li")?.firstElementChild;

tree.addEventListener("keydown", async (event) => {
  const li = event.target.closest('[role="treeitem"]');
  if (!li) return;
  const shown = visible();
  const at = shown.indexOf(li);
  const expanded = li.getAttribute("aria-expanded");
  const moves = {
    ArrowDown: () => focusItem(shown[at + 1]),
    ArrowUp: () => focusItem(shown[at - 1]),
    Home: () => focusItem(shown[0]),
    End: () => focusItem(shown.at(-1)),
    ArrowRight: async () => {
      if (expanded === "false") await expand(li);
      else if (expanded === "true") focusItem(groupOf(li).querySelector('[role="treeitem"]'));
    },
    ArrowLeft: () => (expanded === "true" ? setOpen(li, false) : focusItem(parentItem(li))),
    Enter: async () => (expanded === "true" ? setOpen(li, false) : expanded && expand(li)),
  };
  const act = moves[event.key];
  if (!act) return;
  event.preventDefault();
  await act();
});

tree.addEventListener("click", async (event) => {
  const li = event.target.closest('[role="treeitem"]');
  if (!li) return;
  focusItem(li);
  const expanded = li.getAttribute("aria-expanded");
  if (expanded === "true") setOpen(li, false);
  else if (expanded === "false") await expand(li);
});

// --- the step-through: the search's trace, a page at a time ----------------------------------

const stepBoard = createBoard($("step-board"), { label: "Position at this step" });
const PAGES_KEPT = 50; // pages held in the browser, the oldest dropped first
let pages = new Map(); // page number -> {events, nodes: node -> its enter event}
let steps = null; // the trace's length, told with every page
let asking = 0; // the search the answers are for
let wanted = 0; // the step to show: a slider dragged far asks only for where it stops
let fetching = false;

const searchOptions = () => ({
  ...options(),
  prune: $("prune").checked,
  table: $("table").checked,
  symmetry: $("symmetry").checked,
});

// A page holds the enter events of the nodes open at its start, so that a step deep in
// the trace is shown in its place without the pages before it.
async function pageOf(number) {
  if (pages.has(number)) return pages.get(number);
  const asked = asking;
  const start = number * PAGE_SIZE;
  const slow = setTimeout(() => {
    $("notice").textContent = `Running the search to step ${(start + 1).toLocaleString("en")}…`;
  }, SLOW_PAGE_MS);
  const payload = { board: root, ...searchOptions(), start, size: PAGE_SIZE };
  const reply = await send(EVENTS.labPage, payload, { timeoutMs: PAGE_TIMEOUT_MS });
  clearTimeout(slow);
  if ($("notice").textContent.startsWith("Running the search")) $("notice").textContent = "";
  if (asked !== asking) return null;
  if (!reply.ok) {
    refused(reply);
    return null;
  }
  steps = reply.steps;
  const nodes = new Map();
  for (const event of [...reply.opened, ...reply.events]) {
    if (event.type === "enter") nodes.set(event.node, event);
  }
  const found = { events: reply.events, nodes };
  pages.set(number, found);
  if (pages.size > PAGES_KEPT) pages.delete(pages.keys().next().value);
  $("step").max = String(steps - 1);
  return found;
}

async function eventAt(step) {
  const found = await pageOf(Math.floor(step / PAGE_SIZE));
  const event = found?.events[step % PAGE_SIZE];
  return event ? { event, node: found.nodes.get(event.node) } : null;
}

async function showStep(step) {
  wanted = step;
  if (fetching) return; // the answer being waited for goes on to ``wanted`` of ``asking``
  fetching = true;
  try {
    for (;;) {
      // A new search (a choice changed) while a page was awaited asks again for its own.
      const [target, search] = [wanted, asking];
      const found = await eventAt(target);
      if (target !== wanted || search !== asking) continue;
      if (found) drawStep(target, found);
      return;
    }
  } finally {
    fetching = false;
  }
}

function drawStep(step, { event, node }) {
  $("step").value = String(step);
  $("step-number").textContent = (step + 1).toLocaleString("en");
  $("step-of").textContent = stepOfWords(step, steps);
  $("step").setAttribute("aria-valuetext", stepOfWords(step, steps));
  if (node) {
    stepBoard.set({ marks: node.board, last: event.type === "enter" ? (event.cell ?? -1) : -1 });
    $("step-depth").textContent = String(node.depth);
  }
  if ("alpha" in event) {
    $("alpha").textContent = windowWords(event.alpha, "alpha");
    $("beta").textContent = windowWords(event.beta, "beta");
  }
  $("step-words").textContent = stepWords(event);
  $("steps").dataset.type = event.type;
  const pruned = (event.skipped_names ?? []).map((name) => {
    const li = document.createElement("li");
    li.textContent = `${name}: pruned`;
    return li;
  });
  $("pruned").replaceChildren(...pruned);
  $("pruned").hidden = pruned.length === 0;
  setDisabled($("previous"), step === 0, $("step"));
  setDisabled($("next"), step >= steps - 1, $("step"));
  setDisabled($("last"), step >= steps - 1, $("step"));
}

async function resetSteps() {
  asking += 1;
  pages = new Map();
  steps = null;
  $("step").max = "0";
  await showStep(0);
}

async function nextCut() {
  // Plain minimax never cuts: nothing to look for, through a trace of millions of steps.
  if (!$("prune").checked) {
    $("step-words").textContent = NO_CUTS_WORDS;
    return;
  }
  const from = Number($("step").value) + 1;
  for (let step = from; steps === null || step < steps; step++) {
    const found = await eventAt(step);
    if (!found) return;
    if (found.event.type === "cut") return showStep(step);
  }
  $("step-words").textContent = "No more cuts in this search.";
}

// --- the counts: eight kinds of search, a small chart with the numbers beside ---------------

async function loadCounts() {
  const reply = await send(EVENTS.labCounts, { board: root, ...options() });
  const chart = $("chart");
  if (!reply.ok) {
    chart.replaceChildren();
    $("counts-note").textContent = reply.error?.message ?? "";
    return;
  }
  const most = Math.max(...reply.kinds.map((kind) => kind.nodes));
  chart.replaceChildren(
    ...reply.kinds.map((kind) => {
      const li = document.createElement("li");
      const name = document.createElement("span");
      name.className = "chart-name";
      name.textContent = kindWords(kind.kind);
      const bar = document.createElement("span");
      bar.className = "chart-bar";
      bar.setAttribute("aria-hidden", "true");
      bar.style.setProperty("--share", String(kind.nodes / most));
      const numbers = document.createElement("span");
      numbers.className = "chart-numbers";
      numbers.textContent = countWords(kind);
      li.append(name, bar, numbers);
      return li;
    }),
  );
  $("counts-note").textContent = measuredWords(reply.measured);
}

// --- wiring -----------------------------------------------------------------------------------

function explainScoring() {
  $("scoring-about").textContent = SCORING_ABOUT[$("scoring").value];
}

function wire() {
  $("scoring").addEventListener("change", () => {
    explainScoring();
    show(root);
  });
  $("depth").addEventListener("change", () => show(root));
  for (const id of ["prune", "table", "symmetry"]) $(id).addEventListener("change", resetSteps);
  $("undo").addEventListener("click", () => earlier.length && show(earlier.pop()));
  $("clear").addEventListener("click", () => {
    earlier.push(root);
    show(".........");
  });
  $("fatalist").addEventListener("click", () => {
    earlier.push(root);
    $("scoring").value = "depth";
    explainScoring();
    show(FATALIST);
  });
  $("previous").addEventListener("click", () => showStep(Math.max(0, Number($("step").value) - 1)));
  $("next").addEventListener("click", () => showStep(Number($("step").value) + 1));
  $("last").addEventListener("click", () => steps && showStep(steps - 1));
  $("next-cut").addEventListener("click", nextCut);
  $("step").addEventListener("input", () => showStep(Number($("step").value)));
}

function start() {
  explainScoring();
  wire();
  let started = false;
  const onStatus = (status, message) => {
    $("connection").hidden = status === "online";
    if (status !== "online") $("connection-text").textContent = message || "Reconnecting…";
    if (status === "online" && !started) {
      started = true;
      show(root);
    }
  };
  ({ send } = connect({ onStatus }));
}

start();
