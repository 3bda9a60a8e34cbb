// bench/cli/marks.cjs: preloaded (`node -r`) by bench/cli/start.ts into one `sluice` command, it
// splits the command's wall time (ms) and writes it as one JSON line to stderr at exit: `boot`
// (Node's own start, until this preload runs), `load` (every module loaded, wherever it happens),
// `connect` (Temporal's Connection.connect), `calls` (from connected to the connection's close:
// the command's calls and its output), `exit` (from the close to the process's exit) and `other`
// (parsing the command line, the settings). Loading is counted in `load` only.
/* global require, process */
/* eslint-disable @typescript-eslint/no-require-imports -- a preload script: CommonJS, run by `node -r` */
const Module = require('node:module');
const { performance } = require('node:perf_hooks');

const boot = performance.now();
let load = 0;
let depth = 0;
/** Time and loading so far at each mark. */
const marks = {};
const mark = (name) => (marks[name] ??= { t: performance.now(), load });

const original = Module._load;
Module._load = function (request) {
  const t = performance.now();
  depth++;
  try {
    const m = original.apply(this, arguments);
    if (request === '@temporalio/client' && m.Connection && !m.Connection.connect.marked) hook(m.Connection);
    return m;
  } finally {
    if (--depth === 0) load += performance.now() - t;
  }
};

/** Marks when the command connects, is connected and closes its Temporal connection. */
function hook(Connection) {
  const connect = Connection.connect;
  Connection.connect = async function (...args) {
    mark('connect');
    try {
      return await connect.apply(this, args);
    } finally {
      mark('connected');
    }
  };
  Connection.connect.marked = true;
  const close = Connection.prototype.close;
  Connection.prototype.close = function (...args) {
    mark('close');
    return close.apply(this, args);
  };
}

/** Wall time between two marks, the loading in it aside. */
const span = (a, b) => (a && b ? b.t - a.t - (b.load - a.load) : 0);

process.on('exit', () => {
  const end = { t: performance.now(), load };
  const split = {
    boot,
    load,
    connect: span(marks.connect, marks.connected),
    calls: span(marks.connected, marks.close),
    exit: span(marks.close, end),
  };
  const other = end.t - Object.values(split).reduce((a, b) => a + b, 0);
  const out = Object.fromEntries(Object.entries({ ...split, other }).map(([k, v]) => [k, Math.round(v)]));
  process.stderr.write(`sluice-marks ${JSON.stringify(out)}\n`);
});
