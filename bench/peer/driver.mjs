// The peer benchmark's players: plain socket.io clients for both servers, one process.
//
// Driven by bench/peer.py through JSON lines: one command a line on stdin, one event a
// line on stdout. Every player is a socket.io-client 4.8 socket of its own (forceNew:
// one websocket each, no multiplexing, no reconnection, no client framework), so that
// both servers are driven by clients of the same weight.
//
// "ours" (this project, `tictactoe serve`): one socket a game, the human; the AI is the
// server's. Each player loads / first for its own session cookie and the page's release
// (auth {"release"}), then plays adaptive matches whole: a random empty cell; `next_game`
// when a game ends; `new_match` {} (adaptive, the defaults) when the match ends.
// A round trip: from emitting `move` to having both its ack and the `state` carrying the
// AI's reply (AI delay 0: the server sends the human's state, the AI's state, the ack).
//
// "bgio" (boardgame.io, bench/peer/bgio_server.mjs): two sockets a game on namespace
// /tic-tac-toe, players "0" and "1". A match is created and both seats joined through
// the lobby REST API (their credentials go with every action), then both sockets
// `sync` to it. Player 0 emits `update` (MAKE_MOVE clickCell, a random empty cell);
// player 1 answers from its `update` handler at once with a random empty cell.
// A round trip: from player 0 emitting its move to player 0 receiving the `update`
// carrying player 1's answer. When a match ends, the next one is created the same way.
// In both, a move that ends the game gets no reply and counts as no round trip.
//
// Commands (each answered by the event named):
//   {"cmd": "start", "name", "kind": "ours"|"bgio", "url", "games"}     -> "started"
//   {"cmd": "window", "name", "seconds", "settle"}  -> "measuring", "measured", "paused"
//   {"cmd": "idle", "name", "kind", "url", "count", "concurrency"}      -> "connected"
//   {"cmd": "release", "name"}                                          -> "released"
//   {"cmd": "stop", "name"}                                             -> "stopped"
//   {"cmd": "quit"}
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import readline from "node:readline";
import http from "node:http";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
const modules = process.env.BGIO_MODULES ?? path.join(here, "..", "..", ".bench", "peer", "node_modules");
const require = createRequire(path.join(modules, "index.js"));
const { io } = require("socket.io-client");

const GAME = "tic-tac-toe";
const CALL_TIMEOUT = 10_000;
const RELEASE = /<meta name="release" content="([^"]*)"/;

function send(event) {
  process.stdout.write(JSON.stringify(event) + "\n");
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function randomEmpty(cells, empty) {
  const free = [];
  for (let i = 0; i < cells.length; i++) if (empty(cells[i])) free.push(i);
  return free[Math.floor(Math.random() * free.length)];
}

class Timeout extends Error {}

// A socket's newest value (a state) and the ways to wait for one.
class Watched {
  constructor() {
    this.value = null;
    this.waiters = [];
  }

  set(value) {
    this.value = value;
    for (const waiter of [...this.waiters]) {
      if (waiter.ready(value)) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        clearTimeout(waiter.timer);
        waiter.resolve(value);
      }
    }
  }

  fail(error) {
    for (const waiter of this.waiters.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.reject(error);
    }
  }

  until(ready, ms = CALL_TIMEOUT) {
    if (this.value !== null && ready(this.value)) return Promise.resolve(this.value);
    return new Promise((resolve, reject) => {
      const waiter = { ready, resolve, reject };
      waiter.timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        reject(new Timeout("no such state"));
      }, ms);
      this.waiters.push(waiter);
    });
  }
}

function connectSocket(url, options) {
  const socket = io(url, {
    transports: ["websocket"],
    forceNew: true,
    reconnection: false,
    timeout: CALL_TIMEOUT,
    ...options,
  });
  const connected = new Promise((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("connect_error", (err) => reject(new Error(`connect_error: ${err.message}`)));
  });
  return { socket, connected };
}

// --- this project's server ---------------------------------------------------------

// HTTP/1.1 with keep-alive through node:http (lighter than fetch): status, headers, body.
const agent = new http.Agent({ keepAlive: true, maxSockets: 50 });

function request(url, { method = "GET", body } = {}) {
  return new Promise((resolve, reject) => {
    const headers = body === undefined ? {} : { "content-type": "application/json" };
    const req = http.request(url, { method, headers, agent, timeout: CALL_TIMEOUT }, (reply) => {
      const chunks = [];
      reply.on("data", (chunk) => chunks.push(chunk));
      reply.on("end", () =>
        resolve({ status: reply.statusCode, headers: reply.headers, body: Buffer.concat(chunks).toString() }),
      );
      reply.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Timeout(`${method} ${url}`)));
    req.on("error", reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

async function loadPage(url) {
  const reply = await request(url + "/");
  const body = reply.body;
  const cookies = (reply.headers["set-cookie"] ?? []).map((line) => line.split(";", 1)[0]);
  if (reply.status !== 200 || cookies.length === 0) throw new Error(`GET / ${reply.status}, no cookie`);
  const release = RELEASE.exec(body);
  return { cookie: cookies.join("; "), release: release ? release[1] : "" };
}

class OursPlayer {
  constructor(url) {
    this.url = url;
    this.state = new Watched();
    this.arrived = new Map(); // version -> arrival time, since the last move
  }

  async open() {
    const page = await loadPage(this.url);
    const { socket, connected } = connectSocket(this.url, {
      extraHeaders: { Cookie: page.cookie },
      auth: { release: page.release },
      // No permessage-deflate offered (boardgame.io's server turns it down, and so does
      // ours): the echo in ours' place (--echo) would accept it and compress every frame.
      perMessageDeflate: false,
    });
    this.socket = socket;
    socket.on("state", (state) => {
      this.arrived.set(state.version, performance.now());
      if (this.state.value === null || state.version >= this.state.value.version) this.state.set(state);
    });
    socket.on("disconnect", () => this.state.fail(new Error("disconnected")));
    await connected;
    await this.state.until(() => true);
  }

  call(event, payload) {
    return this.socket.timeout(CALL_TIMEOUT).emitWithAck(event, payload);
  }

  // One step from the newest state: a move (a round trip), next_game or new_match.
  async step(tally) {
    const state = await this.state.until((s) => s.turn !== "ai");
    if (state.match.over) {
      if (tally.measuring) tally.matches++;
      return this.expect(await this.call("new_match", {}), tally);
    }
    if (state.turn === null) {
      if (tally.measuring) tally.games++;
      return this.expect(await this.call("next_game", {}), tally);
    }
    const cell = randomEmpty(state.board, (mark) => mark === ".");
    const version = state.version;
    this.arrived.clear();
    const started = performance.now();
    const ack = await this.call("move", { cell, version });
    const acked = performance.now();
    if (!this.expect(ack, tally)) return;
    const after = await this.state.until((s) => s.version >= version + 1);
    if (after.turn === null && after.version === version + 1) return; // the move ended the game
    await this.state.until((s) => s.version >= version + 2);
    const replied = this.arrived.get(version + 2);
    if (tally.measuring && replied !== undefined) tally.latencies.push(Math.max(acked, replied) - started);
  }

  expect(ack, tally) {
    if (tally.measuring) tally.events++;
    if (ack && ack.ok) return true;
    tally.error(ack?.error?.code ?? "bad_ack");
    return false;
  }

  close() {
    this.socket?.close();
  }
}

// --- boardgame.io ------------------------------------------------------------------

async function lobby(url, route, body) {
  const reply = await request(`${url}/games/${GAME}${route}`, { method: "POST", body });
  if (reply.status !== 200) throw new Error(`lobby ${route}: ${reply.status}`);
  return JSON.parse(reply.body);
}

// One seat's socket: the newest state of the match it is synced to.
class Seat {
  constructor(url, playerID) {
    this.url = url;
    this.playerID = playerID;
    this.state = new Watched();
    this.matchID = null;
    this.credentials = null;
    this.onUpdate = null;
  }

  async open() {
    const { socket, connected } = connectSocket(`${this.url}/${GAME}`, {});
    this.socket = socket;
    socket.on("sync", (matchID, info) => {
      if (matchID === this.matchID) this.state.set(info.state);
    });
    socket.on("update", (matchID, state) => {
      if (matchID !== this.matchID) return;
      if (this.state.value === null || state._stateID >= this.state.value._stateID) this.state.set(state);
      this.onUpdate?.(state);
    });
    socket.on("disconnect", () => this.state.fail(new Error("disconnected")));
    await connected;
  }

  // Join the match's seat (credentials from the lobby) and wait for its first state.
  async sync(matchID, credentials) {
    this.matchID = matchID;
    this.credentials = credentials;
    this.state.value = null;
    this.socket.emit("sync", matchID, this.playerID, credentials, 2);
    return this.state.until((s) => s._stateID === 0);
  }

  move(cell, stateID) {
    const action = {
      type: "MAKE_MOVE",
      payload: { type: "clickCell", args: [cell], playerID: this.playerID, credentials: this.credentials },
    };
    this.socket.emit("update", action, stateID, this.matchID, this.playerID);
  }

  close() {
    this.socket?.close();
  }
}

const emptyCell = (cell) => cell === null;

class BgioGame {
  constructor(url) {
    this.url = url;
    this.seats = [new Seat(url, "0"), new Seat(url, "1")];
    this.ready = false;
  }

  async open() {
    await Promise.all(this.seats.map((seat) => seat.open()));
    // Player 1 is the second networked player: it answers its turn at once.
    const [, second] = this.seats;
    second.onUpdate = (state) => {
      if (state.ctx.gameover === undefined && state.ctx.currentPlayer === "1") {
        second.move(randomEmpty(state.G.cells, emptyCell), state._stateID);
      }
    };
    await this.newMatch();
  }

  // A match through the lobby: create, join both seats, sync both sockets to it.
  async newMatch() {
    this.ready = false;
    const { matchID } = await lobby(this.url, "/create", { numPlayers: 2 });
    const joined = await Promise.all(
      this.seats.map((seat) =>
        lobby(this.url, `/${matchID}/join`, { playerID: seat.playerID, playerName: `p${seat.playerID}` }),
      ),
    );
    await Promise.all(this.seats.map((seat, i) => seat.sync(matchID, joined[i].playerCredentials)));
    this.ready = true;
  }

  async step(tally) {
    const [first] = this.seats;
    if (!this.ready) return this.newMatch();
    const state = await first.state.until((s) => s.ctx.gameover !== undefined || s.ctx.currentPlayer === "0");
    if (state.ctx.gameover !== undefined) {
      if (tally.measuring) tally.games++;
      return this.newMatch();
    }
    const stateID = state._stateID;
    const started = performance.now();
    first.move(randomEmpty(state.G.cells, emptyCell), stateID);
    if (tally.measuring) tally.events++;
    const after = await first.state.until((s) => s._stateID >= stateID + 1);
    if (after.ctx.gameover !== undefined && after._stateID === stateID + 1) return; // it ended the game
    await first.state.until((s) => s._stateID >= stateID + 2);
    if (tally.measuring) tally.latencies.push(performance.now() - started);
  }

  close() {
    for (const seat of this.seats) seat.close();
  }
}

// --- pools ---------------------------------------------------------------------------

class Tally {
  constructor() {
    this.latencies = [];
    this.events = 0;
    this.games = 0;
    this.matches = 0;
    this.errors = {};
    this.measuring = false;
  }

  error(kind) {
    this.errors[kind] = (this.errors[kind] ?? 0) + 1;
  }
}

function errorKind(err) {
  return err instanceof Timeout ? "timeout" : String(err?.message ?? err).slice(0, 60);
}

// N games on one server, connected once, playing only during windows.
class Pool {
  constructor(kind, url, games) {
    this.kind = kind;
    this.url = url;
    this.games = games;
    this.players = [];
    this.tally = new Tally();
    this.playing = false;
    this.stopped = false;
    this.gate = null;
    this.openGate = null;
    this.busy = 0;
    this.loops = [];
  }

  makePlayer() {
    return this.kind === "ours" ? new OursPlayer(this.url) : new BgioGame(this.url);
  }

  async start() {
    this.pause();
    const errors = new Tally();
    await forEachLimited(this.games, 20, async () => {
      const player = this.makePlayer();
      try {
        await player.open();
        this.players.push(player);
      } catch (err) {
        errors.error(`connect: ${errorKind(err)}`);
        player.close();
      }
    });
    this.loops = this.players.map((player) => this.loop(player));
    return errors.errors;
  }

  async loop(player) {
    while (!this.stopped) {
      if (!this.playing) {
        await this.gate;
        continue;
      }
      this.busy++;
      const tally = this.tally;
      try {
        await player.step(tally);
      } catch (err) {
        tally.error(errorKind(err));
        if (player instanceof BgioGame) player.ready = false; // start over on a new match
        await sleep(100);
      } finally {
        this.busy--;
      }
    }
  }

  pause() {
    this.playing = false;
    this.gate = new Promise((resolve) => {
      this.openGate = resolve;
    });
  }

  play() {
    this.playing = true;
    this.openGate();
  }

  async window(seconds, settle) {
    const tally = (this.tally = new Tally());
    this.play();
    await sleep(settle * 1000);
    const cpu = process.cpuUsage();
    send({ event: "measuring" });
    tally.measuring = true;
    const started = performance.now();
    await sleep(seconds * 1000);
    tally.measuring = false;
    const elapsed = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    send({
      event: "measured",
      seconds: elapsed,
      latencies_ms: tally.latencies.map((ms) => Math.round(ms * 1000) / 1000),
      events: tally.events,
      games: tally.games,
      matches: tally.matches,
      errors: tally.errors,
      driver_cpu_s: (used.user + used.system) / 1e6,
    });
    this.pause();
    while (this.busy) await sleep(10); // the steps under way finish before the next window
    await sleep(200);
  }

  async stop() {
    this.stopped = true;
    this.openGate();
    for (const player of this.players) player.close();
    await Promise.allSettled(this.loops);
  }
}

async function forEachLimited(count, concurrency, work) {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      await work(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

// K idle players: ours each with its own cookie; boardgame.io's each seated in a match
// (K / 2 matches, both seats joined and synced). Connected, then left alone.
async function connectIdle(kind, url, count, concurrency) {
  const players = [];
  const errors = new Tally();
  const units = kind === "ours" ? count : Math.ceil(count / 2);
  await forEachLimited(units, concurrency, async () => {
    const player = kind === "ours" ? new OursPlayer(url) : new BgioGame(url);
    try {
      if (player instanceof BgioGame) {
        await Promise.all(player.seats.map((seat) => seat.open()));
        await player.newMatch();
      } else {
        await player.open();
      }
      players.push(player);
    } catch (err) {
      errors.error(`connect: ${errorKind(err)}`);
      player.close();
    }
  });
  return { players, errors: errors.errors };
}

// --- commands --------------------------------------------------------------------------

const pools = new Map();
const idle = new Map();

async function handle(command) {
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  switch (command.cmd) {
    case "start": {
      const pool = new Pool(command.kind, command.url, command.games);
      pools.set(command.name, pool);
      const errors = await pool.start();
      send({ event: "started", connected: pool.players.length, errors, seconds: seconds() });
      break;
    }
    case "window":
      await pools.get(command.name).window(command.seconds, command.settle ?? 1);
      send({ event: "paused" });
      break;
    case "stop":
      await pools.get(command.name)?.stop();
      pools.delete(command.name);
      send({ event: "stopped" });
      break;
    case "idle": {
      const { players, errors } = await connectIdle(command.kind, command.url, command.count, command.concurrency ?? 50);
      idle.set(command.name, players);
      const sockets = players.length * (command.kind === "ours" ? 1 : 2);
      send({ event: "connected", players: sockets, errors, seconds: seconds() });
      break;
    }
    case "release":
      for (const player of idle.get(command.name) ?? []) player.close();
      idle.delete(command.name);
      send({ event: "released" });
      break;
    case "quit":
      process.exit(0);
      break;
    default:
      send({ event: "error", message: `unknown command ${command.cmd}` });
  }
}

// Commands run one after the other, in the order they came.
let queue = Promise.resolve();
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  if (!line.trim()) return;
  const command = JSON.parse(line);
  queue = queue
    .then(() => handle(command))
    .catch((err) => send({ event: "error", message: String(err?.stack ?? err) }));
});
process.stdin.on("end", () => queue.then(() => process.exit(0)));
