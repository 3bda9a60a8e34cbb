/** Worker pods apart from the platform: as root, a template's command cannot read the platform's database. */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dbFileIn } from '../../platform/core/db';
import { defaultPodUser } from '../../platform/pods/pod-user';
import { addEndpoint, call, testPlatform } from '../helpers/platform';
import { tsxCommand } from '../helpers/tsx-command';

type P = Awaited<ReturnType<typeof testPlatform>>;

const readFileWorker = (): string[] => {
  return tsxCommand(join(__dirname, 'fixtures', 'read-file-worker.ts'));
};

const asRoot = process.getuid?.() === 0;

describe.skipIf(!asRoot)('pods of a platform running as root run as nobody, apart from its state', () => {
  let p: P;
  let ep: string;
  beforeAll(async () => {
    // The platform's default as root (defaultPodUser), which the test helper turns off for other tests.
    p = await testPlatform({ pods: { podUser: defaultPodUser() ?? null } });
    ep = addEndpoint(p, { name: 'reader', command: readFileWorker(), workersMax: 1 }).id;
  });
  afterAll(() => p.dispose());

  it("a pod's handler that reads the platform database is refused; its HOME is outside the state dir", async () => {
    const r = await call(p.url, 'POST', `/v2/${ep}/runsync`, { body: { input: { path: dbFileIn(p.dataDir) } } });
    expect(r.body.status, JSON.stringify(r.body)).toBe('COMPLETED');
    expect(r.body.output).toMatchObject({ uid: 65534, error: 'EACCES' });
    expect(r.body.output.home.startsWith(p.dataDir)).toBe(false);
    expect(r.body.output.cwd).toBe(r.body.output.home);
    // The same handler reads a file it may read: the refusal is the state dir's, not a broken handler.
    const own = await call(p.url, 'POST', `/v2/${ep}/runsync`, { body: { input: { path: __filename } } });
    expect(own.body.output.read).toBeGreaterThan(0);
  });
});

describe.skipIf(asRoot)('pods of a platform not running as root', () => {
  it('share its user: isolation needs a root platform (docs/platform.md "Threat model"), so nothing to test here', () => {
    expect(process.getuid?.()).not.toBe(0);
  });
});
