import { describe, expect, it } from 'vitest';
import { resultsUrlOf } from '../../config/settings';
import { loadConfig } from '../../worker/config';
import { ConfigError } from '../../config/errors';

const base = { SLUICE_QUEUE_URL: 'http://127.0.0.1:8080/v2', SLUICE_API_KEY: 'key' };

describe('daemon configuration', () => {
  it('has documented defaults', () => {
    const c = loadConfig(base);
    expect(c).toMatchObject({
      TEMPORAL_ADDRESS: 'localhost:7233',
      TEMPORAL_NAMESPACE: 'default',
      SLUICE_TASK_QUEUE: 'sluice',
      SLUICE_DAEMON_PORT: 8288,
      SLUICE_RESULTS_DIR: '.data/results',
      SLUICE_WEBHOOK_FALLBACK_MS: 30_000,
      SLUICE_WEBHOOK_CONFIRM: 'binding',
      SLUICE_TEMPORAL_METRICS_PORT: 9464,
      SLUICE_HEAP_GROWING_PERCENT: 50,
    });
    expect(c.TEMPORAL_TLS).toBeUndefined();
  });

  it('takes the results store as SLUICE_RESULTS_URL (s3://, file:// or a directory), else SLUICE_RESULTS_DIR', () => {
    expect(resultsUrlOf(loadConfig(base))).toBe('.data/results');
    expect(resultsUrlOf(loadConfig({ ...base, SLUICE_RESULTS_DIR: '/srv/results' }))).toBe('/srv/results');
    for (const url of [
      's3://my-bucket/sluice/results',
      's3://my-bucket',
      'file:///srv/results',
      '/srv/results',
      'results',
    ]) {
      expect(resultsUrlOf(loadConfig({ ...base, SLUICE_RESULTS_DIR: '/srv/other', SLUICE_RESULTS_URL: url }))).toBe(
        url,
      );
    }
  });

  it('reads Temporal Cloud settings', () => {
    const c = loadConfig({
      ...base,
      TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233',
      TEMPORAL_NAMESPACE: 'ns.acct',
      TEMPORAL_API_KEY: 'secret',
      TEMPORAL_TLS: 'true',
    });
    expect(c).toMatchObject({
      TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233',
      TEMPORAL_NAMESPACE: 'ns.acct',
      TEMPORAL_API_KEY: 'secret',
      TEMPORAL_TLS: true,
    });
  });

  const bad: [Record<string, string>, RegExp][] = [
    [{ SLUICE_QUEUE_URL: '' }, /^SLUICE_QUEUE_URL: is required$/],
    [{ SLUICE_QUEUE_URL: 'ftp://x' }, /^SLUICE_QUEUE_URL: must be an http\(s\) URL$/],
    [{ SLUICE_API_KEY: '' }, /^SLUICE_API_KEY: is required$/],
    [{ TEMPORAL_ADDRESS: 'no-port' }, /^TEMPORAL_ADDRESS: must be host:port$/],
    [{ SLUICE_DAEMON_PORT: '70000' }, /^SLUICE_DAEMON_PORT: must be a port number/],
    [{ SLUICE_DAEMON_PORT: 'abc' }, /^SLUICE_DAEMON_PORT: must be a port number/],
    [{ SLUICE_WEBHOOK_SECRET: 'short' }, /^SLUICE_WEBHOOK_SECRET: must be at least 16 characters$/],
    [{ TEMPORAL_TLS: 'maybe' }, /^TEMPORAL_TLS: /],
    [{ SLUICE_PUBLIC_URL: 'not a url' }, /^SLUICE_PUBLIC_URL: must be an http\(s\) URL$/],
    [{ SLUICE_WEBHOOK_FALLBACK_MS: '10' }, /^SLUICE_WEBHOOK_FALLBACK_MS: /],
    [{ SLUICE_WEBHOOK_CONFIRM: 'trust' }, /^SLUICE_WEBHOOK_CONFIRM: must be binding or status$/],
    [{ SLUICE_HEAP_GROWING_PERCENT: '-5' }, /^SLUICE_HEAP_GROWING_PERCENT: /],
    [{ SLUICE_HEAP_GROWING_PERCENT: 'lots' }, /^SLUICE_HEAP_GROWING_PERCENT: must be a number/],
    [
      { TEMPORAL_TLS_CLIENT_CERT_PATH: '/x.pem' },
      /^TEMPORAL_TLS_CLIENT_KEY_PATH: is required with TEMPORAL_TLS_CLIENT_CERT_PATH$/,
    ],
    [
      { SLUICE_RESULTS_URL: 'gs://bucket/results' },
      /^SLUICE_RESULTS_URL: must be s3:\/\/bucket\/prefix, file:\/\/\/dir or a directory path$/,
    ],
    [{ SLUICE_RESULTS_URL: 's3://Bad_Bucket/results' }, /^SLUICE_RESULTS_URL: not an s3:\/\/bucket\/prefix URL/],
    [{ SLUICE_RESULTS_URL: 's3://bucket/../results' }, /^SLUICE_RESULTS_URL: invalid key prefix/],
  ];
  for (const [override, message] of bad) {
    it(`refuses ${JSON.stringify(override)} naming the variable`, () => {
      const env = { ...base, ...override };
      let err: unknown;
      try {
        loadConfig(env);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toMatch(message);
    });
  }

  it('names every missing or invalid variable at once', () => {
    let err: unknown;
    try {
      loadConfig({ TEMPORAL_ADDRESS: 'no-port', SLUICE_DAEMON_PORT: 'abc' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).issues.map((i) => i.variable).sort()).toEqual([
      'SLUICE_API_KEY',
      'SLUICE_DAEMON_PORT',
      'SLUICE_QUEUE_URL',
      'TEMPORAL_ADDRESS',
    ]);
  });
});
