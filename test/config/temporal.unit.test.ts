/**
 * The Temporal connection as the parsed settings resolve it: a private CA, a temporal.toml profile
 * under the TEMPORAL_* variables, as in Temporal's own tools. Pure parse: files only, no server.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ConfigError } from '../../config/errors';
import { loadClientConfig } from '../../config/settings';
import { temporalConnectOptions } from '../../config/temporal';
import { loadConfig } from '../../worker/config';

const dir = mkdtempSync(join(tmpdir(), 'sluice-config-'));
const file = (name: string, text: string): string => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const ca = file('ca.pem', '-----BEGIN CERTIFICATE-----\nprivate CA\n-----END CERTIFICATE-----\n');
const toml = file(
  'temporal.toml',
  `[profile.default]
address = "default.example:7233"

[profile.prod]
address = "temporal.prod.internal:7233"
namespace = "orders"

[profile.prod.tls]
server_ca_cert_path = "${ca}"
server_name = "temporal.prod.internal"
`,
);
const daemon = { SLUICE_QUEUE_URL: 'http://127.0.0.1:8080/v2', SLUICE_API_KEY: 'key' };
const errorOf = (f: () => unknown): ConfigError => {
  try {
    f();
  } catch (err) {
    return err as ConfigError;
  }
  throw new Error('no error');
};

describe('the Temporal connection settings', () => {
  it('trusts the private CA of TEMPORAL_TLS_SERVER_CA_CERT_PATH (TLS on)', () => {
    const c = loadConfig({ ...daemon, TEMPORAL_ADDRESS: 'temporal.lan:7233', TEMPORAL_TLS_SERVER_CA_CERT_PATH: ca });
    expect(c.TEMPORAL_ADDRESS).toBe('temporal.lan:7233');
    const o = temporalConnectOptions(c.temporal);
    expect(o.address).toBe('temporal.lan:7233');
    expect(o.tls).toMatchObject({ serverRootCACertificate: expect.anything() });
    const tls = o.tls as { serverRootCACertificate: Uint8Array };
    expect(Buffer.from(tls.serverRootCACertificate).toString()).toContain('private CA');
  });

  it('takes the temporal.toml profile TEMPORAL_PROFILE names, with its TLS', () => {
    const c = loadClientConfig({ TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'prod' });
    expect(c).toMatchObject({ TEMPORAL_ADDRESS: 'temporal.prod.internal:7233', TEMPORAL_NAMESPACE: 'orders' });
    expect(c.temporal.fromFile).toEqual(['TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE']);
    const tls = temporalConnectOptions(c.temporal).tls as { serverNameOverride?: string };
    expect(tls.serverNameOverride).toBe('temporal.prod.internal');
  });

  it('lets the TEMPORAL_* variables override the profile, and reads its default profile', () => {
    const c = loadClientConfig({ TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'prod', TEMPORAL_NAMESPACE: 'billing' });
    expect(c).toMatchObject({ TEMPORAL_ADDRESS: 'temporal.prod.internal:7233', TEMPORAL_NAMESPACE: 'billing' });
    expect(loadClientConfig({ TEMPORAL_CONFIG_FILE: toml })).toMatchObject({
      TEMPORAL_ADDRESS: 'default.example:7233',
      TEMPORAL_NAMESPACE: 'default',
    });
  });

  it('reads no temporal.toml where another source stands for the whole connection', () => {
    const c = loadClientConfig({ TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'prod' }, { configFile: false });
    expect(c).toMatchObject({ TEMPORAL_ADDRESS: 'localhost:7233', TEMPORAL_NAMESPACE: 'default' });
    expect(temporalConnectOptions(c.temporal).tls).toBeUndefined();
  });

  it('keeps plain connections plain, and TLS on with an API key unless TEMPORAL_TLS=false', () => {
    expect(temporalConnectOptions(loadClientConfig({}).temporal).tls).toBeUndefined();
    expect(temporalConnectOptions(loadClientConfig({ TEMPORAL_API_KEY: 'k' }).temporal)).toMatchObject({
      tls: true,
      apiKey: 'k',
    });
    expect(
      temporalConnectOptions(loadClientConfig({ TEMPORAL_API_KEY: 'k', TEMPORAL_TLS: 'false' }).temporal).tls,
    ).toBe(false);
  });

  it('names a missing profile, config file or CA file', () => {
    expect(errorOf(() => loadClientConfig({ TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'nope' })).variable).toBe(
      'TEMPORAL_PROFILE',
    );
    expect(errorOf(() => loadClientConfig({ TEMPORAL_CONFIG_FILE: join(dir, 'absent.toml') })).variable).toBe(
      'TEMPORAL_CONFIG_FILE',
    );
    expect(errorOf(() => loadClientConfig({ TEMPORAL_TLS_SERVER_CA_CERT_PATH: join(dir, 'absent.pem') })).message).toBe(
      `TEMPORAL_TLS_SERVER_CA_CERT_PATH: no such file: ${join(dir, 'absent.pem')}`,
    );
  });
});
