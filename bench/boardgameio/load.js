'use strict';
// Closed-loop load on server.js: N concurrent games of the rummy in game.js,
// each created and joined through the lobby API and played by two real
// boardgame.io clients (`boardgame.io/client`, the SocketIO transport over a
// websocket of its own each). The seat whose turn it is makes its next move
// as soon as the server's update of its last one arrives: draw (the discard
// top when it completes a meld, else the stock), meld while it can, lay off
// while it can, then discard its highest card. A finished game is replaced by
// a new one. After --warmup seconds, moves are counted for --seconds; then
// one JSON line is printed (bench/vs_boardgameio.py reads it).
//
// A move counts when the mover's client receives the server's update of it
// (the state's _stateID past the one it moved at). A move the server refuses
// (invalid, out of turn, a stale state) is never answered with a new state:
// after --stall-seconds without one the game counts as stalled and is dropped.
//
// With --echo (against `server.js --echo`): N socket.io clients each emit an
// acknowledged `echo` event in a closed loop: the transport's round trip.
//
//   node load.js --server 127.0.0.1:8000 --api 127.0.0.1:8001 --games 64 --seconds 10
//   node load.js --server 127.0.0.1:8002 --echo --games 64 --seconds 10

process.env.NODE_ENV = process.env.NODE_ENV || 'production';

const { parseArgs } = require('node:util');
const { Client } = require('boardgame.io/client');
const { SocketIO } = require('boardgame.io/multiplayer');
const { io } = require('socket.io-client');
const { Rummy, meldKind, extendsMeld, rankOf, suitOf } = require('./game');

const { values } = parseArgs({
  options: {
    server: { type: 'string', default: '127.0.0.1:8000' },
    api: { type: 'string', default: '' },
    games: { type: 'string', default: '64' },
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    'max-moves': { type: 'string', default: '2000' },
    'stall-seconds': { type: 'string', default: '10' },
    echo: { type: 'boolean', default: false },
  },
});
const GAMES = Number(values.games);
const SECONDS = Number(values.seconds);
const WARMUP = Number(values.warmup);
const MAX_MOVES = Number(values['max-moves']);
const STALL_MS = Number(values['stall-seconds']) * 1000;
const SOCKET_OPTS = { transports: ['websocket'], forceNew: true };

const stats = {
  mode: values.echo ? 'echo' : 'games',
  moves: 0,
  by_move: {},
  round_trips: 0,
  games_started: 0,
  games_finished: 0,
  games_abandoned: 0,
  stalls: 0,
  no_move: 0,
  errors: {},
  t0: 0,
  t1: 0,
  client_cpu: 0,
};
let recording = false;
let stopping = false;

function countError(e) {
  const key = String((e && e.message) || e).slice(0, 120);
  stats.errors[key] = (stats.errors[key] || 0) + 1;
}

// --- the strategy ---------------------------------------------------------------

/** A meld in the hand (3+ cards), one holding `prefer` first; null if none. */
function findMeld(hand, prefer = null) {
  const found = [];
  const byRank = new Map();
  const bySuit = new Map();
  for (const c of hand) {
    byRank.set(rankOf(c), [...(byRank.get(rankOf(c)) || []), c]);
    bySuit.set(suitOf(c), [...(bySuit.get(suitOf(c)) || []), c]);
  }
  for (const cards of byRank.values()) if (cards.length >= 3) found.push(cards.slice(0, 4));
  for (const cards of bySuit.values()) {
    cards.sort((a, b) => a - b);
    let run = [cards[0]];
    for (let i = 1; i <= cards.length; i++) {
      if (i < cards.length && rankOf(cards[i]) === rankOf(run[run.length - 1]) + 1) {
        run.push(cards[i]);
        continue;
      }
      if (run.length >= 3) found.push(run);
      run = [cards[i]];
    }
  }
  const melds = found.filter((m) => meldKind(m) !== null);
  return melds.find((m) => m.includes(prefer)) || melds[0] || null;
}

/** The next move of the seat at this view: [name, args], or null. */
function choose(G, seat) {
  const hand = G.hands[Number(seat)];
  const top = G.discard[G.discard.length - 1];
  if (!G.drawn) {
    if (top !== undefined && findMeld([...hand, top], top)?.includes(top)) {
      return ['takeDiscard', []];
    }
    if (G.stock > 0 || G.discard.length >= 2) return ['drawStock', []];
    return top === undefined ? null : ['takeDiscard', []];
  }
  // No meld or lay-off may leave the hand holding only the card taken from
  // the discard pile: it may not be discarded, so the turn could not end.
  const strands = (played) => {
    const left = hand.filter((c) => !played.includes(c));
    return left.length === 1 && left[0] === G.taken;
  };
  const meld = findMeld(hand, G.taken);
  if (meld && !strands(meld)) return ['meld', [meld]];
  for (const card of hand) {
    const i = G.table.findIndex((m) => extendsMeld(m, card));
    if (i !== -1 && !strands([card])) return ['layOff', [card, i]];
  }
  const choices = hand.filter((c) => c !== G.taken);
  if (choices.length === 0) return null;
  choices.sort((a, b) => rankOf(b) - rankOf(a) || a - b);
  return ['discard', [choices[0]]];
}

// --- a game ---------------------------------------------------------------------

async function post(path, body) {
  const answer = await fetch(`http://${values.api}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!answer.ok) throw new Error(`${path}: HTTP ${answer.status}`);
  return answer.json();
}

async function playGame() {
  const { matchID } = await post('/games/rummy/create', { numPlayers: 2 });
  const credentials = [];
  for (const playerID of ['0', '1']) {
    const joined = await post(`/games/rummy/${matchID}/join`, {
      playerID,
      playerName: `bot ${playerID}`,
    });
    credentials.push(joined.playerCredentials);
  }
  stats.games_started += 1;
  return new Promise((resolve) => {
    let done = false;
    let movesMade = 0;
    const seats = ['0', '1'].map((playerID, i) => ({
      playerID,
      client: Client({
        game: Rummy,
        multiplayer: SocketIO({ server: values.server, socketOpts: SOCKET_OPTS }),
        matchID,
        playerID,
        credentials: credentials[i],
        debug: false,
      }),
      pending: null, // [stateID moved at, move name, stall timer]
      lastActed: -1,
    }));

    function finish(outcome) {
      if (done) return;
      done = true;
      for (const seat of seats) {
        if (seat.pending) clearTimeout(seat.pending[2]);
        seat.client.stop();
      }
      if (outcome === 'finished') stats.games_finished += 1;
      else if (outcome === 'stalled') stats.stalls += 1;
      else if (outcome === 'abandoned') stats.games_abandoned += 1;
      resolve();
    }

    function onState(seat, state) {
      if (done || !state) return;
      if (seat.pending) {
        if (state._stateID <= seat.pending[0]) return; // still waiting for this move's update
        clearTimeout(seat.pending[2]);
        if (recording) {
          stats.moves += 1;
          stats.by_move[seat.pending[1]] = (stats.by_move[seat.pending[1]] || 0) + 1;
        }
        seat.pending = null;
      }
      if (state.ctx.gameover !== undefined) return finish('finished');
      if (state.ctx.currentPlayer !== seat.playerID || state._stateID <= seat.lastActed) return;
      if (stopping) return finish('stopped');
      if (movesMade >= MAX_MOVES) return finish('abandoned');
      const move = choose(state.G, seat.playerID);
      if (move === null) {
        stats.no_move += 1;
        return finish('stalled');
      }
      const [name, args] = move;
      seat.lastActed = state._stateID;
      seat.pending = [state._stateID, name, setTimeout(() => finish('stalled'), STALL_MS)];
      movesMade += 1;
      seat.client.moves[name](...args);
    }

    for (const seat of seats) {
      // Moves are made after the update that triggers them has been handled.
      seat.client.subscribe((state) => queueMicrotask(() => onState(seat, state)));
      seat.client.start();
    }
  });
}

async function gamesLoop() {
  while (!stopping) {
    try {
      await playGame();
    } catch (e) {
      countError(e);
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

// --- the echo floor ---------------------------------------------------------------

async function echoLoop() {
  const socket = io(`http://${values.server}`, SOCKET_OPTS);
  await new Promise((resolve) => socket.once('connect', resolve));
  while (!stopping) {
    await socket.emitWithAck('echo', 'x');
    if (recording) stats.round_trips += 1;
  }
  socket.close();
}

// --- the run ----------------------------------------------------------------------

async function main() {
  const loops = [];
  for (let i = 0; i < GAMES; i++) loops.push((values.echo ? echoLoop : gamesLoop)());
  await new Promise((r) => setTimeout(r, WARMUP * 1000));
  const cpu0 = process.cpuUsage();
  stats.t0 = Date.now() / 1000;
  recording = true;
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  recording = false;
  stats.t1 = Date.now() / 1000;
  const cpu = process.cpuUsage(cpu0);
  stats.client_cpu = (cpu.user + cpu.system) / 1e6;
  stopping = true;
  await Promise.race([Promise.all(loops), new Promise((r) => setTimeout(r, STALL_MS + 1000))]);
  console.log(JSON.stringify(stats));
  process.exit(0);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
