// The lab's counts: the eight kinds of search (with or without pruning, a table and
// symmetry) on one position, a small chart of their nodes with the numbers beside.
import { $ } from "./dom.js";
import { countWords, kindWords, measuredWords } from "./words_lab.js";
import { ENGINE_KIND, otherCountsWords } from "./words_counts.js";

// A bar's length: its share of the largest count, or on a log scale (counts that range
// from thousands to estimates of trillions).
const shareOf = (nodes, most, log) => (log ? Math.log10(nodes + 1) / Math.log10(most + 1) : nodes / most);

function chartRow(kind, most, log) {
  const li = document.createElement("li");
  li.dataset.kind = kind.kind;
  if (kind.estimate) li.dataset.estimate = "true";
  const name = document.createElement("span");
  name.className = "chart-name";
  name.textContent = kind.kind === "engine" ? ENGINE_KIND : kindWords(kind.kind);
  const bar = document.createElement("span");
  bar.className = "chart-bar";
  bar.setAttribute("aria-hidden", "true");
  bar.style.setProperty("--share", String(shareOf(kind.nodes, most, log)));
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
  const other = reply.most != null; // a larger variant's: capped, estimated, log scale
  chart.replaceChildren(...reply.kinds.map((kind) => chartRow(kind, most, other)));
  $("counts-note").textContent = other ? otherCountsWords(reply) : measuredWords(reply.measured);
}
