'use strict';
// The boardgame.io server of the rummy in game.js (in-memory storage, its
// socket.io transport and its lobby API on one port), or with --echo a bare
// socket.io server that answers an acknowledged `echo` event: the transport's
// own floor. Listens on 127.0.0.1 only; prints one JSON line when it serves.
// The lobby API (create and join a match) has a port of its own, --api-port:
// served on the game's port, its routes are never reached with the koa this
// version resolves to (koa-socket-2 builds the http server's handler before
// `run` adds the routes), so the lobby runs as boardgame.io's separate app.
//
//   node server.js --port 8000 --api-port 8001
//   node server.js --port 8000 --api-port 8001 --seed 7   # every match dealt alike
//   node server.js --port 8001 --echo
//
// NODE_ENV defaults to production (boardgame.io then logs no line a move, as
// deployed); its errors (an invalid or refused move) are still written to
// stderr, and bench/vs_boardgameio.py counts them.

process.env.NODE_ENV = process.env.NODE_ENV || 'production';

const { parseArgs } = require('node:util');

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8000' },
    'api-port': { type: 'string', default: '' },
    echo: { type: 'boolean', default: false },
    seed: { type: 'string', default: '' },
  },
});
const port = Number(values.port);
const listen = { port, host: '127.0.0.1' };
const apiPort = Number(values['api-port'] || port + 1);

function ready(what) {
  console.log(JSON.stringify({ serving: what, port, apiPort, pid: process.pid }));
}

if (values.echo) {
  const http = require('node:http');
  const { Server } = require('socket.io');
  const httpServer = http.createServer();
  const io = new Server(httpServer, { transports: ['websocket'] });
  io.on('connection', (socket) => {
    socket.on('echo', (payload, ack) => ack(payload));
  });
  httpServer.listen(listen, () => ready('socket.io echo'));
} else {
  const { Server } = require('boardgame.io/server');
  const { Rummy } = require('./game');
  // No browser is served: a Node client sends no Origin header, so no
  // origin needs allowing.
  // A seed (boardgame.io's Game.seed) makes every match's deal and shuffles
  // the same: the test plays one known game; the bench leaves it random.
  const game = values.seed ? { ...Rummy, seed: values.seed } : Rummy;
  const server = Server({ games: [game], origins: [] });
  // `run` hands its ports to http's `listen`, which takes { port, host }.
  const lobbyConfig = { apiPort: { port: apiPort, host: '127.0.0.1' } };
  server.run({ port: listen, lobbyConfig }).then(() => ready('boardgame.io'));
}
