// The History page: the player's finished games, their lifetime figures, and a replay of
// any game with its review by perfect play. Everything shown comes from the server.
// A replay has its own address (/history/<id>): opening one pushes it, so Back and
// Forward step between replays and the list, and a bookmark or a reload opens it again.
import { drawOdds } from "./calibration.js";
import { announce, connect, showConnection } from "./connection.js";
import { showDeleted } from "./deleted.js";
import { $ } from "./dom.js";
import { EVENTS } from "./protocol.js";
import { formatWhen, hideReplay, showReplay, wireControls } from "./replay.js";
import { drawMatch, matchesIn } from "./timeline.js";
import {
  CLIENT_ERROR_MESSAGES,
  LINK_COPIED,
  LINK_SELECTED,
  askedTooOften,
  errorWords,
  modeName,
  plural,
} from "./words.js";
import {
  MATCH_OVER,
  NOT_DELETED,
  REPLAY,
  matchName,
  modeOnVariant,
  replayLabel,
  replayTitle,
  resultWords,
} from "./words_history.js";

const SHOWN_MATCHES = 6;

let asked = null; // the id of the game last asked for
let shown = false; // a replay is on screen
let deleting = false; // "Delete everything" sent from this page
let pageToken = () => ""; // whose page this is (connection.js)
const PAGE_TITLE = document.title;

/** The History page's own address; a game's replay is under it. */
const historyAddress = () => $("history-main").dataset.address;
const replayAddress = (id) => `${historyAddress()}/${encodeURIComponent(id)}`;

/** The game the address names (/history/<id>, or an older link's ?game=<id>), or null. */
function gameInAddress() {
  const root = `${historyAddress()}/`;
  const path = window.location.pathname;
  if (path.startsWith(root)) return decodeURIComponent(path.slice(root.length)) || null;
  return new URLSearchParams(window.location.search).get("game");
}

// The page's notices stay until the next one.
const showNotice = (text) => announce(text);

// No answer at all (a download the server did not answer) reads as a timeout.
const unanswered = CLIENT_ERROR_MESSAGES.timeout;
const refused = (reply) => showNotice(errorWords(reply?.error, { fallback: unanswered }));

// Games with a friend are counted apart from those against the AI.
function renderFriends(counts) {
  const played = ["win", "draw", "loss"].reduce((sum, key) => sum + (counts?.[key] ?? 0), 0);
  $("with-friends").hidden = played === 0;
  $("friend-wins").textContent = counts?.win ?? 0;
  $("friend-draws").textContent = counts?.draw ?? 0;
  $("friend-losses").textContent = counts?.loss ?? 0;
  return played;
}

function renderTotals(totals) {
  const modes = Object.entries(totals.by_mode);
  const withFriends = renderFriends(totals.with_friends);
  $("totals-empty").hidden = modes.length > 0 || withFriends > 0;
  $("totals").hidden = $("by-mode").hidden = modes.length === 0;
  $("matches-won").textContent = totals.matches_won;
  $("matches-lost").textContent = totals.matches_lost;
  $("longest-unbeaten").textContent = plural(totals.longest_unbeaten, "game");
  const rows = modes.map(([mode, counts]) => {
    const row = document.createElement("tr");
    const head = document.createElement("th");
    head.scope = "row";
    head.textContent = modeName(mode);
    row.append(head, ...["win", "draw", "loss"].map((key) => cellOf(counts[key])));
    return row;
  });
  $("by-mode-rows").replaceChildren(...rows);
}

function cellOf(text) {
  const cell = document.createElement("td");
  cell.textContent = text;
  return cell;
}

function renderGames(games, open) {
  $("games").hidden = games.length === 0;
  const rows = games.map((game) => {
    const row = document.createElement("tr");
    const button = document.createElement("button");
    button.type = "button";
    button.className = "btn btn-small";
    const date = formatWhen(game.ended);
    button.textContent = REPLAY;
    button.setAttribute("aria-label", replayLabel(date));
    button.addEventListener("click", () => open(game.id));
    const action = document.createElement("td");
    action.append(button);
    const result = resultWords(game) + (game.match_over ? MATCH_OVER : "");
    const mode = modeOnVariant(modeName(game.mode), game.variant);
    row.append(cellOf(date), cellOf(mode), cellOf(result), cellOf(game.moves), action);
    return row;
  });
  $("games-rows").replaceChildren(...rows);
}

/** "Retry from your first mistake", when the server says the game has one of the player's. */
function offerRetry(id, review) {
  $("retry").hidden = !review.can_practise;
  $("retry-game").value = id;
  $("retry-page").value = pageToken(); // a page of a player since deleted is told so
}

/** The read-only link to the game shown, for anyone, with a Copy button. */
function showShareLink(id) {
  const field = $("share-link");
  field.value = new URL(`g/${id}`, $("replay").dataset.root).href;
  $("share").hidden = false;
}

async function copyShareLink() {
  const field = $("share-link");
  field.select();
  try {
    await navigator.clipboard.writeText(field.value);
    showNotice(LINK_COPIED);
  } catch {
    showNotice(LINK_SELECTED);
  }
}

/** Download all the games as one file; a refusal (asked for too often, the server
 * busy) is said on the page instead of being saved as the file. */
function wireDownload() {
  const link = $("download-all");
  link.addEventListener("click", async (event) => {
    event.preventDefault();
    const headers = { Accept: "application/json" };
    const reply = await fetch(link.href, { headers }).catch(() => null);
    if (!reply?.ok) {
      const seconds = Number(reply?.headers.get("Retry-After"));
      if (reply?.status === 429 && seconds > 0) return showNotice(askedTooOften(seconds));
      return refused(await reply?.json().catch(() => null));
    }
    const file = URL.createObjectURL(await reply.blob());
    const save = document.createElement("a");
    Object.assign(save, { href: file, download: "tictactoe-games.json" });
    save.click();
    setTimeout(() => URL.revokeObjectURL(file), 0);
  });
}

/** Ask first, then delete everything stored about this player and start afresh. */
function wireForget() {
  const dialog = $("forget-dialog");
  $("forget").addEventListener("click", () => {
    dialog.showModal();
    $("forget-cancel").focus();
  });
  $("forget-cancel").addEventListener("click", () => dialog.close());
  $("forget-confirm").addEventListener("click", async () => {
    deleting = true;
    const reply = await fetch(dialog.dataset.action, { method: "POST" }).catch(() => null);
    dialog.close();
    deleting = Boolean(reply?.ok);
    if (deleting) window.location.assign(dialog.dataset.home);
    else showNotice(NOT_DELETED);
  });
}

/** The HP matches of `games`, each named: over, under way (the server's `underWay`, the
 * id of its newest game) or abandoned for a newer match. */
function renderMatches(games, underWay) {
  const againstAi = games.filter((game) => game.kind !== "friend");
  const matches = matchesIn(againstAi).slice(0, SHOWN_MATCHES);
  $("matches").hidden = matches.length === 0;
  const figures = matches.map((match) => {
    const last = match.games[match.games.length - 1];
    const ended = formatWhen(last.ended);
    return drawMatch(match, matchName(match.over, last.id === underWay, ended));
  });
  $("timelines").replaceChildren(...figures);
}

/** Back to the list alone: the address is History's own again. */
function closeReplay() {
  asked = null;
  shown = false;
  hideReplay();
  $("share").hidden = $("retry").hidden = true;
  document.title = PAGE_TITLE;
}

function start() {
  let send = null;
  // `push`: a new step in the browser's history (a Replay button), not one it went to.
  const open = async (id, { push = false } = {}) => {
    asked = id;
    const reply = await send(EVENTS.historyGame, { id });
    if (asked !== id) return;
    if (!reply.ok) return refused(reply);
    const address = replayAddress(id);
    if (push && window.location.pathname !== address) history.pushState({ id }, "", address);
    else if (window.location.pathname !== address) history.replaceState({ id }, "", address);
    showReplay(reply.game, reply.review, { signed: reply.signed_record });
    document.title = replayTitle(formatWhen(reply.game.ended), PAGE_TITLE);
    // A game with a friend is theirs too: it is not shared, nor practised against the AI.
    const friend = reply.game.kind === "friend";
    if (friend) $("share").hidden = $("retry").hidden = true;
    else {
      showShareLink(reply.game.id);
      offerRetry(reply.game.id, reply.review);
    }
    shown = true;
  };
  const load = async () => {
    const reply = await send(EVENTS.history);
    if (!reply.ok) return refused(reply);
    renderTotals(reply.totals);
    renderGames(reply.games, (id) => open(id, { push: true }));
    renderMatches(reply.games, reply.under_way);
    drawOdds(reply, formatWhen);
    const wanted = gameInAddress();
    if (wanted && !shown) open(wanted);
  };
  window.addEventListener("popstate", () => {
    const wanted = gameInAddress();
    if (wanted) open(wanted);
    else closeReplay();
  });
  const onStatus = (status, message) => {
    showConnection(status, message, { plays: false });
    if (status === "online") load();
  };
  // Deleted from another tab: this one says so (connection.js); from this page, it goes
  // to the page that says what was deleted.
  ({ send, pageToken } = connect({ onStatus, onDeleted: () => deleting || showDeleted() }));
  wireControls();
  $("share-copy").addEventListener("click", copyShareLink);
  wireDownload();
  wireForget();
}

start();
