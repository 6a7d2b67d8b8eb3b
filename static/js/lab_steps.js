// The lab's step-through: the search's trace, asked for a page at a time (lab_page) and
// shown a step at a time: the position, the depth, the alpha-beta window, what the step
// did and the moves it pruned. A slider dragged far asks only for where it stops.
import { createBoard } from "./board.js";
import { announce } from "./connection.js";
import { $ } from "./dom.js";
import { setDisabled } from "./focus.js";
import {
  NO_CUTS_WORDS,
  NO_MORE_CUTS,
  prunedWords,
  RUNNING,
  runningWords,
  STEP_BOARD,
  stepNumberWords,
  stepWords,
  windowWords,
} from "./words_lab.js";
import { walkWords } from "./words_counts.js";

const PAGE_SIZE = 200;
const PAGES_KEPT = 50; // pages held in the browser, the oldest dropped first
// A jump far into a large trace runs the search again on the server, paused to let
// other players run: the empty board's plain minimax takes some seconds.
const SLOW_PAGE_MS = 500;

/**
 * The step-through. `ask(start, size)` resolves to the server's answer to `lab_page` for
 * the search the page's choices describe; `refused(reply)` says why one was refused.
 */
export function createSteps({ ask, refused, shape = undefined }) {
  const stepBoard = createBoard($("step-board"), { ...shape, label: STEP_BOARD });
  let pages = new Map(); // page number -> {events, nodes: node -> its enter event}
  let steps = null; // the trace's length, told with every page
  let whole = true; // whether those are all its steps (else a large search's first ones)
  let asking = 0; // the search the answers are for
  let wanted = 0; // the step to show: a slider dragged far asks only for where it stops
  let fetching = false;

  // A page holds the enter events of the nodes open at its start, so that a step deep in
  // the trace is shown in its place without the pages before it.
  async function pageOf(number) {
    if (pages.has(number)) return pages.get(number);
    const asked = asking;
    const start = number * PAGE_SIZE;
    const slow = setTimeout(() => {
      // A wait for the share of work, said by the asker, is not overwritten.
      if (!$("notice").textContent) announce(runningWords(start));
    }, SLOW_PAGE_MS);
    const reply = await ask(start, PAGE_SIZE);
    clearTimeout(slow);
    if ($("notice").textContent.startsWith(RUNNING)) announce("");
    if (asked !== asking) return null;
    if (!reply.ok) {
      refused(reply);
      return null;
    }
    steps = reply.steps;
    whole = reply.whole ?? true;
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
    $("step-number").textContent = stepNumberWords(step);
    $("step-of").textContent = walkWords(step, steps, whole);
    $("step").setAttribute("aria-valuetext", walkWords(step, steps, true));
    if (node) {
      stepBoard.set({ marks: node.board.replaceAll("/", ""), last: event.type === "enter" ? (event.cell ?? -1) : -1 });
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
      li.textContent = prunedWords(name);
      return li;
    });
    $("pruned").replaceChildren(...pruned);
    $("pruned").hidden = pruned.length === 0;
    setDisabled($("previous"), step === 0, $("step"));
    setDisabled($("next"), step >= steps - 1, $("step"));
    setDisabled($("last"), step >= steps - 1, $("step"));
  }

  /** Start again from the first step of a new search (a choice or the position changed). */
  async function reset() {
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
    $("step-words").textContent = NO_MORE_CUTS;
  }

  const at = () => Number($("step").value);
  for (const id of ["prune", "table", "symmetry"]) $(id).addEventListener("change", reset);
  $("previous").addEventListener("click", () => showStep(Math.max(0, at() - 1)));
  $("next").addEventListener("click", () => showStep(at() + 1));
  $("last").addEventListener("click", () => steps && showStep(steps - 1));
  $("next-cut").addEventListener("click", nextCut);
  $("step").addEventListener("input", () => showStep(at()));

  return { reset };
}
