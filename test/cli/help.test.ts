/** `sluice --help`, `--version`, every command's `--help`, usage errors, ports in use and bad settings: messages and exit codes. */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { type Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../client/cli/main';
import { cleanEnv, sluice } from './run-sluice';

const COMMANDS = [
  'dev',
  'run',
  'status',
  'cancel',
  'result',
  'config',
  'endpoints list',
  'endpoints create',
  'endpoints update',
  'endpoints delete',
  'templates list',
  'templates create',
  'templates update',
  'platform',
  'platform users add',
  'worker',
  'console',
  'demo',
];
/** The scaler group: every command and subcommand (the whole tree is checked in-process below). */
const SCALER_COMMANDS = [
  'scaler',
  'scaler start',
  'scaler configure',
  'scaler status',
  'scaler watch',
  'scaler override',
  'scaler pause',
  'scaler resume',
  'scaler stop',
  'scaler schedule',
  'scaler schedule add',
  'scaler schedule list',
  'scaler schedule pause',
  'scaler schedule resume',
  'scaler schedule delete',
];
const version = (JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string })
  .version;

describe('sluice help and usage', () => {
  it('--help lists every command, the exit codes and the environment; --version prints the version', async () => {
    const help = await sluice(['--help']);
    expect(help.code).toBe(0);
    for (const c of ['dev', 'run', 'status', 'cancel', 'result', 'config', 'platform', 'worker', 'demo'])
      expect(help.stdout).toMatch(new RegExp(`^  ${c} `, 'm'));
    expect(help.stdout).toContain(
      'Exit codes: 0 completed, 1 failed / timed out / expired (or the command failed), 2 usage, 3 cancelled, 4 still running, 130 interrupted.',
    );
    for (const v of [
      'SLUICE_DATA_DIR',
      'TEMPORAL_ADDRESS',
      'TEMPORAL_TLS_CLIENT_CERT_PATH',
      'SLUICE_GRAPHQL_URL',
      'SLUICE_API_KEY',
    ])
      expect(help.stdout).toContain(v);
    const v = await sluice(['--version']);
    expect(v).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it("the listing of `sluice --help` (stubs: no group loaded) is the full program's, and a named command is registered in full", async () => {
    const listing = (p: Command): string => p.helpInformation();
    const full = await buildProgram({ code: 0 });
    const stubs = await buildProgram({ code: 0 }, '--help');
    expect(listing(stubs)).toBe(listing(full));
    expect(listing(await buildProgram({ code: 0 }, 'status'))).toBe(listing(full));
    // A stub has no options; the command named is complete, the others stay stubs.
    const run = await buildProgram({ code: 0 }, 'run');
    expect(run.commands.find((c) => c.name() === 'run')!.options.length).toBeGreaterThan(0);
    expect(run.commands.find((c) => c.name() === 'dev')!.options).toHaveLength(0);
    expect(stubs.commands.find((c) => c.name() === 'scale')).toBeDefined();
  });

  it('bare `sluice` prints the help on stderr and exits 2', async () => {
    const r = await sluice([]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^Usage: sluice \[options\] \[command\]/);
  });

  it('every command has --help with its options, defaults, environment and an example', async () => {
    // Four at a time: each is a process start, and a loaded machine makes fifty in a row slow.
    const helps = new Map<string, Awaited<ReturnType<typeof sluice>>>();
    const queue = [...COMMANDS];
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let c = queue.shift(); c !== undefined; c = queue.shift())
          helps.set(c, await sluice([...c.split(' '), '--help']));
      }),
    );
    for (const c of COMMANDS) {
      const r = helps.get(c)!;
      expect(r.code, c).toBe(0);
      expect(r.stdout, c).toMatch(new RegExp(`^Usage: sluice ${c} `));
      expect(r.stdout, c).toMatch(/Examples?:\n {2}(\S+=\S+ )*sluice /);
      expect(r.stderr, c).toBe('');
    }
    const run = (await sluice(['run', '--help'])).stdout;
    expect(run).toMatch(/--data-dir <dir>[\s\S]*\(default: "\.data", env:\s+SLUICE_DATA_DIR\)/);
    expect((await sluice(['dev', '--help'])).stdout).toMatch(
      /--temporal-port <n>[\s\S]*\(default: 7233\)[\s\S]*SLUICE_TEMPORAL_METRICS_PORT/,
    );
    expect((await sluice(['worker', '--help'])).stdout).toMatch(/SLUICE_QUEUE_URL[\s\S]*SLUICE_WEBHOOK_SECRET/);
    expect((await sluice(['status', '--help'])).stdout).toContain('4 still running');
    expect((await sluice(['cancel', '--help'])).stdout).toContain('Exit code: 0 the job was cancelled');
    // 22 processes: 60 s on a loaded 2-core box (load 6-8), hence room.
  }, 180_000);

  it("every command and subcommand of the program (the scaler group's included) has --help with its usage and an example", async () => {
    const all: [string, Command][] = [];
    // The commands help shows: a former name kept as a hidden alias (`scale`, `batch retry-failed`) is not among them.
    const visible = (c: Command): Command[] => {
      const shown = c.createHelp().visibleCommands(c);
      return c.commands.filter((sub) => shown.includes(sub));
    };
    const walk = (c: Command, path: string[]): void => {
      for (const sub of visible(c)) {
        const p = [...path, sub.name()];
        all.push([p.join(' '), sub]);
        walk(sub, p);
      }
    };
    walk(await buildProgram({ code: 0 }), []);
    const names = all.map(([n]) => n);
    expect(names).toEqual(expect.arrayContaining([...COMMANDS, ...SCALER_COMMANDS]));
    expect(names).not.toContain('scale');
    expect(names).not.toContain('batch retry-failed');
    // ... yet both are registered: scripts written for the former names go on working.
    const program = await buildProgram({ code: 0 });
    expect(program.commands.map((c) => c.name())).toContain('scale');
    for (const group of ['batch', 'pipeline']) {
      expect(names).not.toContain(`${group} retry-failed`);
      expect(program.commands.find((c) => c.name() === group)!.commands.map((c) => c.name())).toContain('retry-failed');
    }
    expect(names).toContain('pipeline rerun');
    for (const [name, c] of all) {
      let out = '';
      c.configureOutput({ writeOut: (t) => (out += t) }).outputHelp();
      expect(out, name).toMatch(new RegExp(`^Usage: sluice ${name} `));
      // A group's help lists its commands; a leaf's shows an example of itself.
      if (visible(c).length === 0)
        expect(out, name).toMatch(new RegExp(`Examples?:\\n {2}(\\S+=\\S+ )*sluice ${name.split(' ')[0]}`));
      else for (const sub of visible(c)) expect(out, name).toMatch(new RegExp(`^ {2}${sub.name()}\\b`, 'm'));
    }
    // The real process too, for the new command.
    const r = await sluice(['scaler', 'configure', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: sluice scaler configure \[options\] <endpoint>/);
    expect(r.stdout).toMatch(/--max-spend-per-hour <usd>\s+spend cap[\s\S]*none clears it/);
  });

  it('usage errors: a clear message without Node parser text, exit 2', async () => {
    const cases: [string[], RegExp][] = [
      [['frobnicate'], /^sluice: unknown command 'frobnicate'/],
      [['status'], /^sluice: missing required argument 'id'/],
      [['run', '--bogus'], /^sluice: unknown option '--bogus'/],
      [
        ['dev', '--port', '70000'],
        /^sluice: option '--port <n>' argument '70000' is invalid. must be an integer from 0 to 65535/,
      ],
      [['platform', 'users'], /Usage: sluice platform users/],
    ];
    for (const [args, message] of cases) {
      const r = await sluice(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(message);
      expect(r.stderr).not.toMatch(/ERR_PARSE_ARGS|TypeError|at .*\.ts:\d+/);
    }
  });
});

describe('sluice: a port in use names the port and what changes it (exit 2)', () => {
  let taken: Server;
  let port: number;
  beforeAll(async () => {
    taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    port = (taken.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((r) => taken.close(() => r())));

  it('platform --port, dev --daemon-port, and the Temporal metrics port of dev and worker', async () => {
    const cases: [string[], Record<string, string>, RegExp][] = [
      [
        ['platform', '--port', String(port)],
        {},
        new RegExp(`port ${port} \\(the platform\\) is in use; choose another with --port`),
      ],
      [
        ['dev', '--port', '0', '--temporal-port', String(port)],
        {},
        new RegExp(`port ${port} \\(the Temporal dev server\\) is in use; choose another with --temporal-port`),
      ],
      [
        ['dev', '--port', '0', '--daemon-port', String(port)],
        { TEMPORAL_ADDRESS: '127.0.0.1:1' },
        new RegExp(`port ${port} \\(the daemon\\) is in use; choose another with --daemon-port`),
      ],
      [
        ['dev', '--port', '0', '--daemon-port', '0'],
        { TEMPORAL_ADDRESS: '127.0.0.1:1', SLUICE_TEMPORAL_METRICS_PORT: String(port) },
        new RegExp(`port ${port} \\(Temporal's runtime metrics\\) is in use; set SLUICE_TEMPORAL_METRICS_PORT`),
      ],
      [
        ['worker'],
        {
          SLUICE_QUEUE_URL: 'http://127.0.0.1:1/v2',
          SLUICE_API_KEY: 'k',
          SLUICE_DAEMON_PORT: '0',
          SLUICE_TEMPORAL_METRICS_PORT: String(port),
        },
        /SLUICE_TEMPORAL_METRICS_PORT to another port \(0 turns them off\)/,
      ],
      [
        ['worker'],
        { SLUICE_QUEUE_URL: 'http://127.0.0.1:1/v2', SLUICE_API_KEY: 'k', SLUICE_DAEMON_PORT: String(port) },
        new RegExp(`port ${port} \\(the daemon\\) is in use; set SLUICE_DAEMON_PORT`),
      ],
    ];
    for (const [args, env, message] of cases) {
      const r = await sluice(args, { env: cleanEnv(env) });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });
});

describe('sluice: bad settings are all reported at once (exit 2)', () => {
  it('worker names every missing and invalid variable', async () => {
    const r = await sluice(['worker'], { env: cleanEnv({ TEMPORAL_ADDRESS: 'no-port', SLUICE_DAEMON_PORT: 'abc' }) });
    expect(r.code).toBe(2);
    for (const m of [
      'TEMPORAL_ADDRESS: must be host:port',
      'SLUICE_QUEUE_URL: is required',
      'SLUICE_API_KEY: is required',
      'SLUICE_DAEMON_PORT: must be a port number',
    ])
      expect(r.stderr).toContain(m);
  });

  it('the job commands and config name every invalid variable', async () => {
    const env = cleanEnv({ TEMPORAL_ADDRESS: 'no-port', SLUICE_QUEUE_URL: 'ftp://x', TEMPORAL_TLS: 'maybe' });
    for (const args of [['config'], ['status', 'job/x'], ['run', '--endpoint', 'echo', '--input', '{}']]) {
      const r = await sluice(args, { env });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(
        /invalid settings:\n {2}TEMPORAL_ADDRESS: must be host:port\n {2}TEMPORAL_TLS: .*\n {2}SLUICE_QUEUE_URL: must be an http\(s\) URL/,
      );
    }
  });
});
