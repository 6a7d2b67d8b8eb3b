// The one Socket.IO connection: state snapshots in, intentions out (answered by acks);
// and what every page shows of it: the connection banner, and the notices announced.
import { io } from "../vendor/socket.io.esm.min.js";
import { $ } from "./dom.js";
import { ERRORS, REFUSALS, SERVER_EVENTS } from "./protocol.js";
import { connectionWords } from "./words.js";

const ACK_TIMEOUT_MS = 5000;
// What "Delete everything" says (deleted.js) is loaded only when a page has it to say.
const deleted = () => import("./deleted.js");
const showDeleted = () => deleted().then((told) => told.showDeleted());

const meta = (name, fallback) =>
  document.querySelector(`meta[name="${name}"]`)?.content || fallback;

/**
 * Connect on the page's origin. `onState(snapshot)` gets every `state`,
 * `onRoom(snapshot)` every `room`, and `onNotice({code, message})` every `notice`;
 * `onStatus("online" | "offline" | "refused", message)` follows the socket, with the
 * server's reason when it refused. `onDeleted()` runs once the player's data was
 * deleted ("Delete everything", maybe in another tab, while this one was connected or
 * not): by default the page says so, goes inert, and offers a fresh start.
 */
export function connect({ onState, onRoom, onStatus, onNotice, onDeleted = showDeleted }) {
  // On the page a deletion landed on.
  if ($("deleted")?.dataset.deleted) deleted().then((told) => told.confirmDeleted());
  // The server says which transports it allows: websocket alone by default, so that
  // several server processes need no sticky sessions; polling only where configured.
  const transports = meta("socket-transports", "websocket").split(",");
  // The page says which release it is; a server of another release refuses it, and the
  // page reloads to get the server's own.
  // Under a base path (TICTACTOE_BASE_PATH) the socket's path carries it too.
  const path = meta("socket-path", "/socket.io/");
  // The page says which match it shows: the player's own, or their practice game.
  const auth = { release: meta("release", ""), view: meta("view", "match") };
  const socket = io({ path, transports, auth });
  // Whose page this is, as the server first said: named again on every reconnect, so
  // that the page hears of its player's deletion whatever cookie the browser has by then.
  socket.on(SERVER_EVENTS.player, (told) => {
    auth.page ??= told?.token;
  });
  if (onState) socket.on(SERVER_EVENTS.state, onState);
  if (onRoom) socket.on(SERVER_EVENTS.room, onRoom);
  socket.on(SERVER_EVENTS.notice, (notice) => onNotice?.(notice));
  socket.on(SERVER_EVENTS.playerDeleted, () => {
    socket.disconnect(); // the server detaches this socket: no reconnecting as the old player
    onDeleted();
  });
  socket.on("connect", () => onStatus("online"));
  socket.on("disconnect", () => onStatus("offline"));
  socket.on("connect_error", (err) => {
    const code = err?.data?.code;
    if (code === REFUSALS.reload) {
      window.location.reload();
      return;
    }
    if (code === REFUSALS.playerDeleted) {
      onDeleted();
      return;
    }
    if (code === REFUSALS.cooldown) {
      // Cut off for sending too fast: the server says when it will take us back.
      setTimeout(() => socket.connect(), Math.ceil(err.data.seconds ?? 10) * 1000);
    }
    // An active socket keeps retrying by itself; an inactive one was turned away.
    onStatus(socket.active ? "offline" : "refused", code ? err.message : "");
  });

  /** Emit `event` and resolve with the server's ack ({ok: ...}); never rejects. */
  function send(event, payload = {}, { timeoutMs = ACK_TIMEOUT_MS } = {}) {
    const fail = (code) => ({ ok: false, error: { code, message: code } });
    if (!socket.connected) return Promise.resolve(fail("offline"));
    return new Promise((resolve) => {
      socket.timeout(timeoutMs).emit(event, payload, (err, reply) => {
        if (reply?.error?.code === REFUSALS.playerDeleted) onDeleted(); // it raced the push
        resolve(err ? fail("timeout") : (reply ?? fail("bad_reply")));
      });
    });
  }

  /** Whose page this is (a token, "" until the server has said), for a form to send. */
  const pageToken = () => auth.page ?? "";

  return { send, pageToken };
}

// A question refused while the connection's share of paid work (the odds, the lab) is
// spent is asked again when the refusal says the share is back, a few times at most.
const PAID_TRIES = 10;

/**
 * Send through `send` (a connection's), asking again after each refusal that says when
 * (`retry_after`, seconds) while the answer is still `wanted()`; `waiting(seconds)` is
 * told before each wait, `waiting(null)` after it. Resolves with the last reply.
 */
export async function sendPaid(send, event, payload, { waiting = () => {}, wanted = () => true, options } = {}) {
  for (let tries = 1; ; tries++) {
    const reply = await send(event, payload, options);
    const spent = !reply.ok && reply.error?.code === ERRORS.rateLimited;
    const wait = spent ? reply.error.retry_after : undefined;
    if (wait === undefined || tries === PAID_TRIES || !wanted()) return reply;
    waiting(wait);
    await new Promise((done) => setTimeout(done, wait * 1000));
    waiting(null);
  }
}

/**
 * The connection banner (templates/_parts.html) for the socket's `status`: "online",
 * "offline" (reconnecting) or "refused", with the server's `reason`. A page that `plays`
 * also marks itself offline (its board goes dim) and words a refusal as one.
 */
export function showConnection(status, reason = "", { plays = true } = {}) {
  const online = status === "online";
  const banner = $("connection");
  banner.hidden = online;
  if (plays) {
    banner.dataset.status = status;
    document.body.classList.toggle("is-offline", !online);
  }
  if (!plays && online) return;
  $("connection-text").textContent = connectionWords(status, reason, { plays });
}

let noticeTimer = 0;

/**
 * Show `text` in the page's notice (a status region: it is read out too). It fades after
 * `ms`, or stays until the next notice when `ms` is null; no text hides it.
 */
export function announce(text, ms = null) {
  const notice = $("notice");
  notice.textContent = text;
  notice.classList.toggle("is-visible", Boolean(text));
  clearTimeout(noticeTimer);
  if (ms == null) return;
  noticeTimer = setTimeout(() => {
    notice.classList.remove("is-visible");
    noticeTimer = setTimeout(() => (notice.textContent = ""), 400);
  }, ms);
}
