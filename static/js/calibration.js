// Promises checked in the open: the player's skill line, and their targeted matches'
// chance promised against the share won, as an inline SVG chart (with a title and a
// description) and a table of the same numbers, its text equivalent.
import { $ } from "./dom.js";
import { matchesIn } from "./timeline.js";
import {
  calibrationWords,
  chanceWords,
  keptWords,
  skillLineWords,
  skillMeaningWords,
} from "./words.js";
import {
  CHANCE_PROMISED,
  SHARE_WON,
  calibrationDescription,
  intervalWords,
  ofWords,
  rangeWords,
  unfinishedWords,
} from "./words_history.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const SIZE = 240;
const PAD = { left: 52, right: 20, top: 12, bottom: 36 };
const SHOWN_PROMISES = 20;

function svg(name, attributes, text = null) {
  const element = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  if (text !== null) element.textContent = text;
  return element;
}

// A chance's place on either axis: 0 at the bottom or left, 1 at the top or right.
const span = SIZE - PAD.left - PAD.right;
const x = (p) => (PAD.left + p * span).toFixed(1);
const y = (p) => (PAD.top + (1 - p) * (SIZE - PAD.top - PAD.bottom)).toFixed(1);

function axes() {
  const group = svg("g", { class: "calibration-axes" });
  group.append(
    svg("line", { x1: x(0), y1: y(0), x2: x(1), y2: y(0) }),
    svg("line", { x1: x(0), y1: y(0), x2: x(0), y2: y(1) }),
    svg("line", { x1: x(0), y1: y(0), x2: x(1), y2: y(1), class: "calibration-kept" }),
  );
  for (const p of [0, 0.5, 1]) {
    const label = `${p * 100}%`;
    group.append(
      svg("text", { x: x(p), y: Number(y(0)) + 14, "text-anchor": "middle" }, label),
      svg("text", { x: PAD.left - 6, y: Number(y(p)) + 4, "text-anchor": "end" }, label),
    );
  }
  group.append(
    svg("text", { x: x(0.5), y: SIZE - 4, "text-anchor": "middle" }, CHANCE_PROMISED),
    svg("text", { x: 12, y: y(0.5), "text-anchor": "middle", transform: `rotate(-90 12 ${y(0.5)})` }, SHARE_WON),
  );
  return group;
}

/** One bucket: its share won at its mean promise, and the 95% interval as a bar. */
function mark(bucket) {
  const [low, high] = bucket.interval;
  const at = x(bucket.promised);
  const group = svg("g", { class: "calibration-bucket" });
  group.append(
    svg("line", { x1: at, y1: y(low), x2: at, y2: y(high), class: "calibration-interval" }),
    svg("line", { x1: Number(at) - 4, y1: y(low), x2: Number(at) + 4, y2: y(low), class: "calibration-interval" }),
    svg("line", { x1: Number(at) - 4, y1: y(high), x2: Number(at) + 4, y2: y(high), class: "calibration-interval" }),
    svg("circle", { cx: at, cy: y(bucket.observed), r: 4.5, class: "calibration-point" }),
  );
  return group;
}

function row(cells, header = false) {
  const element = document.createElement("tr");
  cells.forEach((text, i) => {
    const cell = document.createElement(i === 0 && header ? "th" : "td");
    if (i === 0 && header) cell.scope = "row";
    cell.textContent = text;
    element.append(cell);
  });
  return element;
}

function drawCalibration(calibration) {
  $("calibration").hidden = calibration.matches === 0;
  if (calibration.matches === 0) return;
  $("calibration-summary").textContent = calibrationWords(calibration);
  $("calibration-svg-desc").textContent = calibrationDescription(calibration);
  const chart = $("calibration-svg");
  chart.replaceChildren(
    $("calibration-svg-title"),
    $("calibration-svg-desc"),
    axes(),
    ...calibration.buckets.map(mark),
  );
  const rows = calibration.buckets.map((b) => {
    const chances = [chanceWords(b.promised), chanceWords(b.observed), intervalWords(b.interval)];
    return row([rangeWords(b), ofWords(b.won, b.matches), ...chances], true);
  });
  $("calibration-rows").replaceChildren(...rows);
}

/** Each targeted match (newest first): when, the ask, the promise beside what happened. */
function drawPromises(games, when) {
  const matches = matchesIn(games.filter((game) => game.kind !== "friend"))
    .filter((match) => match.games[0].promise)
    .slice(0, SHOWN_PROMISES);
  $("promises").hidden = matches.length === 0;
  const rows = matches.map((match) => {
    const last = match.games.at(-1);
    const promise = match.games[0].promise;
    const happened = match.over
      ? keptWords(promise, last.hp_after.human > 0)
      : unfinishedWords(promise);
    return row([when(last.ended), `${Math.round(promise.target * 100)}%`, happened], true);
  });
  $("promises-rows").replaceChildren(...rows);
}

/** History's card of the skill and the promises: from the `history` ack. */
export function drawOdds(reply, when) {
  const { skill, calibration } = reply;
  $("odds-card").hidden = !skill;
  if (!skill) return;
  $("skill-line").textContent = skillLineWords(skill);
  $("skill-meaning").textContent = skillMeaningWords(skill);
  drawCalibration(calibration);
  drawPromises(reply.games, when);
}
