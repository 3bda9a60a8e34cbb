/**
 * Control-plane benchmark: how fast the worker pool follows a GraphQL workersMax change, and how
 * fast it scales up for a burst of jobs, with the simulated cold start at 0, at its default
 * (1000 ms) and with FlashBoot (100 ms). Real worker processes (examples/handlers/sleep.ts).
 * See bench/README.md, "Control plane".
 *
 *   npx tsx bench/control-plane/index.ts [--reps R=5] [--workers N=4] [--json]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { request } from 'undici';
import { exampleCommand } from '../../platform/control-plane/seed';
import { startPlatform, type Platform } from '../../platform';
import { burst, scaleUp, type Phases, type Sample } from './scenarios';

interface Mode {
  name: string;
  /** Undefined: the platform's default cold start. */
  coldStartMs?: number;
  flashBoot: boolean;
}

const MODES: Mode[] = [
  { name: 'cold start 0', coldStartMs: 0, flashBoot: false },
  { name: 'cold start default (1000 ms)', flashBoot: false },
  { name: 'FLASHBOOT (100 ms)', flashBoot: true },
];
const SCENARIOS: [label: (n: number) => string, run: typeof scaleUp][] = [
  [(n) => `workersMax 1→${n} (GraphQL)`, scaleUp],
  [(n) => `burst of ${2 * n} jobs, 0→${n}`, burst],
];

interface Row {
  scenario: string;
  mode: string;
  reps: number;
  firstMs: { p50: number; max: number };
  allMs: { p50: number; max: number };
  triggerMsP50: number;
  /** Medians over the reps of the per-rep mean phase durations (see scenarios.ts). */
  phasesMsP50: Phases;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function withPlatform<T>(mode: Mode, fn: (p: Platform, templateId: string) => Promise<T>): Promise<T> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sluice-bench-cp-'));
  const p = await startPlatform({
    port: 0,
    apiKey: 'bench-key',
    dataDir,
    seedExamples: false,
    logger: pino({ level: 'silent' }),
    pods: { ...(mode.coldStartMs !== undefined ? { coldStartMs: mode.coldStartMs } : {}), stopGraceMs: 3000 },
  });
  try {
    const res = await request(`${p.url}/v1/templates`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer bench-key' },
      body: JSON.stringify({
        name: 'bench-sleep',
        imageName: 'sluice/example-sleep:local',
        isServerless: true,
        dockerStartCmd: exampleCommand('sleep'),
      }),
    });
    const template = (await res.body.json()) as { id: string };
    return await fn(p, template.id);
  } finally {
    await p.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      reps: { type: 'string', default: '5' },
      workers: { type: 'string', default: '4' },
      json: { type: 'boolean', default: false },
    },
  });
  const reps = Number(values.reps);
  const workers = Number(values.workers);
  if (!Number.isInteger(reps) || reps < 1) throw new Error(`--reps must be a positive integer, got ${values.reps}`);
  if (!Number.isInteger(workers) || workers < 2)
    throw new Error(`--workers must be an integer >= 2, got ${values.workers}`);
  const load0 = loadavg()[0]!;
  const rows: Row[] = [];
  for (const mode of MODES) {
    await withPlatform(mode, async (p, templateId) => {
      for (const [label, run] of SCENARIOS) {
        await run(p, templateId, workers, mode.flashBoot, -1); // warm-up: tsx's compile cache, first spawns
        const samples: Sample[] = [];
        for (let i = 0; i < reps; i++) samples.push(await run(p, templateId, workers, mode.flashBoot, i));
        const first = samples.map((s) => s.firstMs);
        const all = samples.map((s) => s.allMs);
        rows.push({
          scenario: label(workers),
          mode: mode.name,
          reps,
          firstMs: { p50: median(first), max: Math.max(...first) },
          allMs: { p50: median(all), max: Math.max(...all) },
          triggerMsP50: median(samples.map((s) => s.triggerMs)),
          phasesMsP50: {
            spawn: median(samples.map((s) => s.phases.spawn)),
            cold: median(samples.map((s) => s.phases.cold)),
            boot: median(samples.map((s) => s.phases.boot)),
            take: median(samples.map((s) => s.phases.take)),
          },
        });
        if (!values.json) process.stderr.write('.');
      }
    });
  }
  const env = {
    node: process.version,
    cpus: cpus().length,
    cpu: cpus()[0]?.model ?? '?',
    load: [load0, loadavg()[0]!],
  };
  if (values.json) {
    console.log(JSON.stringify({ workers, reps, rows, env }, null, 2));
    return;
  }
  const pad = (s: string, n: number): string => s.padEnd(n);
  const num = (n: number): string => `${Math.round(n)}`.padStart(5);
  console.log(
    `\n${pad('scenario', 28)}${pad('cold start', 30)}${pad('first worker', 15)}${pad(`all ${workers} workers`, 15)}spawn / cold / boot / take`,
  );
  console.log(`${pad('', 58)}${pad('p50 / max', 15)}${pad('p50 / max', 15)}(p50 of per-worker means)`);
  for (const r of rows) {
    const ph = r.phasesMsP50;
    console.log(
      `${pad(r.scenario, 28)}${pad(r.mode, 30)}${pad(`${num(r.firstMs.p50)} /${num(r.firstMs.max)}`, 15)}${pad(`${num(r.allMs.p50)} /${num(r.allMs.max)}`, 15)}${num(ph.spawn)} /${num(ph.cold)} /${num(ph.boot)} /${num(ph.take)}`,
    );
  }
  console.log(
    `\n${reps} reps per row after one warm-up; node ${env.node}, ${env.cpus} × ${env.cpu}, load ${env.load.map((l) => l.toFixed(2)).join(' → ')}`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
