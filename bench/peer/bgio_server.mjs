// boardgame.io's own server with a plain tic-tac-toe, for bench/peer.py only.
//
// boardgame.io 0.50 (koa + socket.io, in-memory storage: its default without
// FLATFILE_DIR) serving one game, "tic-tac-toe": two networked players, "0" plays first,
// a move is `clickCell(cell)`, and the game ends on three in a row or a full board.
// Its lobby REST API (POST /games/tic-tac-toe/create, .../<matchID>/join) and its
// socket.io master (namespace /tic-tac-toe: "sync", "update") are boardgame.io's own;
// the only addition is GET /healthz, for support.testing.ServerProcess.
//
// boardgame.io is installed by bench/peer.py into .bench/peer/ (never into the project's
// package.json, never served):
//
//     node bench/peer/bgio_server.mjs --port 8000      (or PORT=8000)
//
// Listens on 127.0.0.1 only. BGIO_MODULES overrides where node_modules is.
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
const modules = process.env.BGIO_MODULES ?? path.join(here, "..", "..", ".bench", "peer", "node_modules");
const require = createRequire(path.join(modules, "index.js"));
const { Server } = require("boardgame.io/server");
const { INVALID_MOVE } = require("boardgame.io/core");

const LINES = [
  [0, 1, 2], [3, 4, 5], [6, 7, 8],
  [0, 3, 6], [1, 4, 7], [2, 5, 8],
  [0, 4, 8], [2, 4, 6],
];

function won(cells) {
  return LINES.some(([a, b, c]) => cells[a] !== null && cells[a] === cells[b] && cells[a] === cells[c]);
}

// The game as boardgame.io's tutorial writes it: G holds the cells, one move a turn.
export const TicTacToe = {
  name: "tic-tac-toe",
  minPlayers: 2,
  maxPlayers: 2,
  setup: () => ({ cells: Array(9).fill(null) }),
  turn: { minMoves: 1, maxMoves: 1 },
  moves: {
    clickCell: ({ G, playerID }, cell) => {
      if (!Number.isInteger(cell) || cell < 0 || cell > 8 || G.cells[cell] !== null) {
        return INVALID_MOVE;
      }
      G.cells[cell] = playerID;
    },
  },
  endIf: ({ G, ctx }) => {
    if (won(G.cells)) return { winner: ctx.currentPlayer };
    if (G.cells.every((cell) => cell !== null)) return { draw: true };
  },
};

function option(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : fallback;
}

const port = Number(option("port", process.env.PORT ?? "8000"));
const host = option("host", "127.0.0.1");
const server = Server({ games: [TicTacToe], origins: [] });
server.router.get("/healthz", (ctx) => {
  ctx.body = "ok";
});
// koa-socket-2 makes app.listen(port) call the http server's listen(port): all interfaces.
const listen = server.app.listen;
server.app.listen = (portNumber, callback) => listen(portNumber, host, callback);
await server.run(port);
console.log(`boardgame.io serving tic-tac-toe on ${host}:${port}`);
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => process.exit(0));
