// A match in a picture: both sides' HP after every game, and the AI's difficulty, as an
// inline SVG line chart with a table of the same numbers for screen readers and anyone.
import {
  THE_NUMBERS,
  TIMELINE_COLUMNS,
  TIMELINE_KEYS,
  TIMELINE_START,
  gamesAxis,
  timelineLabel,
} from "./words_history.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const WIDTH = 320;
const HEIGHT = 160;
const PAD = { left: 30, right: 10, top: 10, bottom: 24 };

/**
 * The adaptive matches in a list of history summaries (newest first), oldest game
 * first within each: a match starts at its game 1; the newest may be under way.
 */
export function matchesIn(games) {
  const matches = [];
  let current = null;
  for (const game of [...games].reverse()) {
    if (!game.hp_after) continue;
    if (game.game === 1 || !current) {
      current = { games: [], over: false };
      matches.push(current);
    }
    current.games.push(game);
    current.over = game.match_over;
  }
  return matches.reverse();
}

function svg(name, attributes) {
  const element = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  return element;
}

/** The points of each series: the starting HP, then the HP after every game. */
function series(match) {
  const first = match.games[0];
  const human = [first.hp_before.human, ...match.games.map((g) => g.hp_after.human)];
  const ai = [first.hp_before.ai, ...match.games.map((g) => g.hp_after.ai)];
  const difficulty = [first.difficulty_before, ...match.games.map((g) => g.difficulty_after)];
  return { human, ai, difficulty, max: Math.max(100, first.max_hp) };
}

function line(points, max, className) {
  const step = (WIDTH - PAD.left - PAD.right) / Math.max(1, points.length - 1);
  const y = (v) => PAD.top + (1 - Math.max(0, v) / max) * (HEIGHT - PAD.top - PAD.bottom);
  const coords = points.map((v, i) => `${(PAD.left + i * step).toFixed(1)},${y(v).toFixed(1)}`);
  return svg("polyline", { points: coords.join(" "), class: className, fill: "none" });
}

function axes(max, games) {
  const group = svg("g", { class: "timeline-axes" });
  const bottom = HEIGHT - PAD.bottom;
  group.append(svg("line", { x1: PAD.left, y1: PAD.top, x2: PAD.left, y2: bottom }));
  group.append(svg("line", { x1: PAD.left, y1: bottom, x2: WIDTH - PAD.right, y2: bottom }));
  for (const [value, y] of [[max, PAD.top + 4], [0, bottom]]) {
    const label = svg("text", { x: PAD.left - 4, y, "text-anchor": "end" });
    label.textContent = value;
    group.append(label);
  }
  const label = svg("text", { x: (WIDTH + PAD.left) / 2, y: HEIGHT - 6, "text-anchor": "middle" });
  label.textContent = gamesAxis(games);
  group.append(label);
  return group;
}

function table(data, caption) {
  const element = document.createElement("table");
  element.className = "timeline-table";
  const head = element.createCaption();
  head.textContent = caption;
  const header = element.createTHead().insertRow();
  for (const text of TIMELINE_COLUMNS) {
    const cell = document.createElement("th");
    cell.scope = "col";
    cell.textContent = text;
    header.append(cell);
  }
  const body = element.createTBody();
  data.human.forEach((hp, i) => {
    const row = body.insertRow();
    // HP at 0 once it has run out, as the game page shows it.
    const shown = [hp, data.ai[i]].map((value) => Math.max(0, value));
    for (const text of [i === 0 ? TIMELINE_START : i, ...shown, data.difficulty[i]]) {
      row.insertCell().textContent = text;
    }
  });
  return element;
}

/** A figure for one match: the chart, its legend, and the numbers as a table. */
export function drawMatch(match, title) {
  const data = series(match);
  const figure = document.createElement("figure");
  figure.className = "timeline";
  const caption = document.createElement("figcaption");
  caption.textContent = title;
  const last = data.human.length - 1;
  const chart = svg("svg", {
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
    role: "img",
    "aria-label": timelineLabel(title, data.human, data.ai),
  });
  chart.append(
    axes(data.max, last),
    line(data.difficulty, 100, "timeline-difficulty"),
    line(data.human, data.max, "timeline-you"),
    line(data.ai, data.max, "timeline-ai"),
  );
  const legend = document.createElement("p");
  legend.className = "timeline-legend";
  for (const [name, text] of TIMELINE_KEYS) {
    const key = document.createElement("span");
    key.className = `key key-${name}`;
    key.textContent = text;
    legend.append(key);
  }
  const details = document.createElement("details");
  const summary = document.createElement("summary");
  summary.textContent = THE_NUMBERS;
  details.append(summary, table(data, title));
  figure.append(caption, chart, legend, details);
  return figure;
}
