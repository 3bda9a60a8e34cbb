/** The production image's Dockerfile, read by a small parser (no Docker engine here): LTS Node, non-root, an init, a health check, no dev dependency at run time. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(__dirname, '..', '..');

interface Instruction {
  keyword: string;
  args: string;
}
interface Stage {
  name: string | undefined;
  image: string;
  instructions: Instruction[];
}

/** Instructions of a Dockerfile: comments dropped, `\` continuations joined, keywords upper-cased. */
function parseDockerfile(text: string): Instruction[] {
  const out: Instruction[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) continue;
    if (line.startsWith('#')) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1).trimEnd()} `;
      continue;
    }
    const full = (pending + line).trim();
    pending = '';
    const m = /^(\S+)\s*(.*)$/.exec(full);
    if (m) out.push({ keyword: m[1]!.toUpperCase(), args: m[2]! });
  }
  return out;
}

/** The build stages, their FROM image with global ARG defaults substituted. */
function stages(instructions: Instruction[]): Stage[] {
  const args: Record<string, string> = {};
  const out: Stage[] = [];
  for (const i of instructions) {
    if (i.keyword === 'ARG' && out.length === 0) {
      const [k, v] = i.args.split('=');
      if (v !== undefined) args[k!] = v;
    } else if (i.keyword === 'FROM') {
      const [image, as, name] = i.args
        .replace(/^--platform=\S+\s+/, '')
        .replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a, b) => args[a ?? b] ?? '')
        .split(/\s+/);
      out.push({ image: image!, name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] });
    } else out.at(-1)?.instructions.push(i);
  }
  return out;
}

/** End of life of the Node release lines (nodejs.org release schedule); odd lines are never LTS. */
const NODE_EOL: Record<number, string> = { 18: '2025-04-30', 20: '2026-04-30', 22: '2027-04-30', 24: '2028-04-30' };

const dockerfile = parseDockerfile(readFileSync(join(root, 'Dockerfile'), 'utf8'));
const all = stages(dockerfile);
const runtime = all.at(-1)!;
const of = (s: Stage, keyword: string) => s.instructions.filter((i) => i.keyword === keyword);
const npmInstalls = (s: Stage) => of(s, 'RUN').filter((i) => /\bnpm (ci|install|i)\b/.test(i.args));

describe('the Dockerfile', () => {
  it('parses continuations and stages', () => {
    const parsed = stages(parseDockerfile('ARG B=x:1\n# c\nFROM ${B} AS one\nRUN a \\\n  b\nFROM one\nUSER u'));
    expect(parsed).toEqual([
      { image: 'x:1', name: 'one', instructions: [{ keyword: 'RUN', args: 'a b' }] },
      { image: 'one', name: undefined, instructions: [{ keyword: 'USER', args: 'u' }] },
    ]);
  });

  it('builds every stage from an LTS Node image that is not past its end of life', () => {
    const names = new Set(all.map((s) => s.name));
    for (const s of all.filter((s) => !names.has(s.image))) {
      const m = /^node:(\d+)[.-]/.exec(s.image) ?? /^node:(\d+)$/.exec(s.image);
      expect(m, `${s.image} is a node image with a major version tag`).not.toBeNull();
      const eol = NODE_EOL[Number(m![1])];
      expect(eol, `node ${m![1]} is an LTS line`).toBeDefined();
      expect(Date.parse(eol!), `node ${m![1]} reaches end of life on ${eol}`).toBeGreaterThan(Date.now());
    }
  });

  it('is multi-stage: a build stage, and a runtime stage with production dependencies only', () => {
    expect(all.length).toBeGreaterThanOrEqual(2);
    expect(of(runtime, 'RUN').some((i) => /npm run build|tsc/.test(i.args))).toBe(false);
    for (const i of npmInstalls(runtime)) expect(i.args).toMatch(/--omit=dev/);
    // node_modules copied into the runtime stage come from a stage that installed with --omit=dev.
    const copies = of(runtime, 'COPY').filter((i) => /node_modules/.test(i.args));
    expect(copies.length + npmInstalls(runtime).length).toBeGreaterThan(0);
    for (const c of copies) {
      const from = /--from=(\S+)/.exec(c.args)?.[1];
      const stage = all.find((s) => s.name === from);
      expect(stage, `node_modules come from stage ${from}`).toBeDefined();
      const installs = npmInstalls(stage!);
      expect(installs.length).toBeGreaterThan(0);
      for (const i of installs) expect(i.args).toMatch(/--omit=dev/);
    }
  });

  it('runs as a user other than root, under an init, with a health check', () => {
    const user = of(runtime, 'USER').at(-1)?.args.split(':')[0];
    expect(user).toBeDefined();
    expect(['root', '0']).not.toContain(user);
    const health = of(runtime, 'HEALTHCHECK').at(-1)?.args ?? 'NONE';
    expect(health).toMatch(/CMD/);
    const entrypoint = JSON.parse(of(runtime, 'ENTRYPOINT').at(-1)!.args) as string[];
    expect(entrypoint[0]).toMatch(/(^|\/)(tini|dumb-init|docker-init)$/);
    // compose's `command:` gives only sluice's arguments.
    expect(entrypoint.at(-1)).toMatch(/sluice(\.c?js)?$/);
  });

  it('leaves secrets, local state and build output out of the build context', () => {
    const ignored = readFileSync(join(root, '.dockerignore'), 'utf8').split('\n');
    for (const p of ['.env', '.data', 'dist', 'node_modules', '.tools']) expect(ignored).toContain(p);
  });
});
