// The lab's counts: the eight kinds of search (with or without pruning, a table and
// symmetry) on one position, a small chart of their nodes with the numbers beside.
import { $ } from "./dom.js";
import { countWords, kindWords, measuredWords } from "./words_lab.js";

function chartRow(kind, most) {
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
}

/** Show the counts of the server's `lab_counts` answer `reply`, or why there are none. */
export function showCounts(reply) {
  const chart = $("chart");
  if (!reply.ok) {
    chart.replaceChildren();
    $("counts-note").textContent = reply.error?.message ?? "";
    return;
  }
  const most = Math.max(...reply.kinds.map((kind) => kind.nodes));
  chart.replaceChildren(...reply.kinds.map((kind) => chartRow(kind, most)));
  $("counts-note").textContent = measuredWords(reply.measured);
}
