// The Train page's chart: cards passed and failed, day by day, as stacked bars in an
// inline SVG (the page's own drawing, no library), described in words for screen readers.
import { chartWords, dayName } from "./words_train.js";

const WIDTH = 300;
const HEIGHT = 140;
const BASE = 118; // the bars' foot; the day labels go under it
const TOP = 12;

function svg(tag, attrs) {
  const made = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [key, value] of Object.entries(attrs)) made.setAttribute(key, value);
  return made;
}

/** Draw `bars` ([{day, passed, failed}], oldest first) into the chart `root`. */
export function drawChart(root, desc, bars) {
  for (const old of root.querySelectorAll("g")) old.remove();
  const most = Math.max(1, ...bars.map((bar) => bar.passed + bar.failed));
  const step = WIDTH / bars.length;
  const scale = (BASE - TOP) / most;
  const group = svg("g", { "aria-hidden": "true" });
  group.append(svg("line", { x1: 0, y1: BASE, x2: WIDTH, y2: BASE, class: "chart-axis" }));
  bars.forEach((bar, i) => {
    const x = i * step + step * 0.18;
    const width = step * 0.64;
    const passed = bar.passed * scale;
    const failed = bar.failed * scale;
    if (passed) group.append(svg("rect", { x, y: BASE - passed, width, height: passed, class: "bar-passed" }));
    if (failed) {
      group.append(svg("rect", { x, y: BASE - passed - failed, width, height: failed, class: "bar-failed" }));
    }
    if ((bars.length - 1 - i) % 4 === 0) {
      const last = i === bars.length - 1; // the newest day's name ends at the chart's edge
      const at = last ? { x: WIDTH, class: "chart-today" } : { x: x + width / 2, class: "chart-day" };
      const label = svg("text", { ...at, y: HEIGHT - 6 });
      label.textContent = dayName(bar.day);
      group.append(label);
    }
  });
  const topLabel = svg("text", { x: 2, y: TOP - 2, class: "chart-most" });
  topLabel.textContent = String(most);
  group.append(topLabel);
  root.append(group);
  desc.textContent = chartWords(bars);
}
