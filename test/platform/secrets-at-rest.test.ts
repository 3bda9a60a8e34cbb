/** Secrets at rest: no API key or s3 secret readable in the platform's files; modes of every file it writes; upgrade of plain rows. */
import Database from 'better-sqlite3';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openUsers } from '../../platform';
import { dbFileIn } from '../../platform/core/db';
import { writeDevState } from '../../client/cli/settings';
import { addEndpoint, call, eventually, exampleCommand, testPlatform } from '../helpers/platform';

const dirs: string[] = [];
const freshDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'sluice-secrets-'));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** The bytes of the database and of its WAL and shared-memory files, whichever exist. */
const dbBytes = (dataDir: string): Buffer => {
  const db = dbFileIn(dataDir);
  return Buffer.concat([db, `${db}-wal`, `${db}-shm`].filter((f) => existsSync(f)).map((f) => readFileSync(f)));
};
const mode = (path: string): string => (statSync(path).mode & 0o777).toString(8);

const s3Config = {
  accessId: 'AKIA-ACCESS-ID-7f3a91',
  accessSecret: 'secret-access-key-6b1e0c9d4a',
  bucketName: 'bucket',
  endpointUrl: 'http://127.0.0.1:1',
};

describe('secrets at rest', () => {
  it('API keys and s3Config secrets are nowhere in platform.sqlite nor its WAL; the keys still work', async () => {
    const dataDir = freshDir();
    const first = 'sl_first-user-key-0c8b5e2f9a71';
    const p = await testPlatform({ dataDir, apiKey: first, seedExamples: false });
    const admin = openUsers(dataDir);
    const alice = admin.add('alice');
    const bob = admin.add('bob');
    admin.close();
    // Nobody takes the job (no worker can start): it stays stored, s3Config and all.
    const ep = addEndpoint(p, { name: 'idle', command: ['/nonexistent/worker'], workersMax: 0 }).id;
    const job = await call(p.url, 'POST', `/v2/${ep}/run`, { key: first, body: { input: { x: 1 }, s3Config } });
    expect(job.status, JSON.stringify(job.body)).toBe(200);
    for (const key of [alice.apiKey, bob.apiKey]) {
      expect((await call(p.url, 'GET', '/v1/templates', { key })).status).toBe(200);
    }
    expect((await call(p.url, 'GET', '/v1/templates', { key: `${alice.apiKey}x` })).status).toBe(401);
    const secrets = [first, alice.apiKey, bob.apiKey, s3Config.accessId, s3Config.accessSecret];
    const check = (): void => {
      const bytes = dbBytes(dataDir);
      for (const s of secrets) expect(bytes.includes(Buffer.from(s)), s).toBe(false);
    };
    check();
    await p.close();
    check();
    // After a restart the job is read back whole (its s3Config unsealed) and the keys still work.
    const again = await testPlatform({ dataDir, apiKey: first, seedExamples: false });
    try {
      expect(again.engine.jobs.get(ep, job.body.id).s3Config).toEqual(s3Config);
      expect((await call(again.url, 'GET', '/v1/templates', { key: alice.apiKey })).status).toBe(200);
    } finally {
      await again.close();
    }
  });

  it('an older platform’s plain keys, meta key and s3Config are protected on open, and its files made private', async () => {
    const dataDir = freshDir();
    const p = await testPlatform({ dataDir, apiKey: 'sl_placeholder-key', seedExamples: false });
    const ep = addEndpoint(p, { name: 'idle', command: ['/nonexistent/worker'], workersMax: 0 }).id;
    const job = await call(p.url, 'POST', `/v2/${ep}/run`, {
      key: 'sl_placeholder-key',
      body: { input: {}, s3Config },
    });
    await p.close();
    // What an older platform left: keys and s3Config in plain text, the first key in `meta`, modes of the umask.
    const oldKey = 'sl_legacy-plain-key-93c1d7';
    const legacy = new Database(dbFileIn(dataDir));
    legacy.prepare('UPDATE users SET api_key = ? WHERE name = ?').run(oldKey, 'default');
    legacy.prepare("INSERT INTO meta(key, value) VALUES ('default_api_key', ?)").run(oldKey);
    legacy.prepare('UPDATE jobs SET s3 = ? WHERE id = ?').run(JSON.stringify(s3Config), job.body.id);
    legacy.close();
    rmSync(join(dataDir, 'api-key'));
    chmodSync(dataDir, 0o755);
    chmodSync(dbFileIn(dataDir), 0o644);
    expect(dbBytes(dataDir).includes(Buffer.from(s3Config.accessSecret))).toBe(true);

    const upgraded = await testPlatform({ dataDir, apiKey: undefined, seedExamples: false });
    try {
      expect(upgraded.apiKey).toBe(oldKey);
      expect((await call(upgraded.url, 'GET', '/v1/templates', { key: oldKey })).status).toBe(200);
      expect(upgraded.engine.jobs.get(ep, job.body.id).s3Config).toEqual(s3Config);
      for (const s of [oldKey, s3Config.accessId, s3Config.accessSecret])
        expect(dbBytes(dataDir).includes(Buffer.from(s)), s).toBe(false);
      expect(mode(dataDir)).toBe('700');
      expect(mode(dbFileIn(dataDir))).toBe('600');
      expect(mode(join(dataDir, 'api-key'))).toBe('600');
    } finally {
      await upgraded.close();
    }
  });

  it('every file the platform writes is private: data dir 0700, database, WAL, secret, key and pod logs 0600', async () => {
    const dataDir = freshDir();
    const p = await testPlatform({ dataDir, seedExamples: false });
    try {
      const ep = addEndpoint(p, { name: 'echo', command: exampleCommand('echo'), workersMax: 1 }).id;
      const r = await call(p.url, 'POST', `/v2/${ep}/runsync`, { body: { input: { hello: 1 } } });
      expect(r.body.status).toBe('COMPLETED');
      const podsDir = join(dataDir, 'pods');
      const logs = await eventually((): string[] | undefined => {
        const found = readdirSync(podsDir).map((id) => join(podsDir, id, 'pod.log'));
        return found.length > 0 && found.every((f) => existsSync(f)) ? found : undefined;
      });
      expect(mode(dataDir)).toBe('700');
      const db = dbFileIn(dataDir);
      for (const f of [db, `${db}-wal`, `${db}-shm`, join(dataDir, 'platform.secret'), join(dataDir, 'api-key')])
        expect(mode(f), f).toBe('600');
      for (const f of logs ?? []) expect(mode(f), f).toBe('600');
      for (const id of readdirSync(podsDir)) expect(mode(join(podsDir, id)), id).toBe('700');
    } finally {
      await p.close();
    }
    // The state `sluice dev` leaves for the other commands holds the key: 0600 too.
    const devJson = join(dataDir, 'dev.json');
    writeDevState(
      {
        temporalAddress: 'x',
        namespace: 'default',
        platformUrl: 'x',
        apiKey: 'k',
        daemonUrl: 'x',
        resultsDir: 'x',
        taskQueue: 'q',
      },
      devJson,
    );
    expect(mode(devJson)).toBe('600');
  });
});
