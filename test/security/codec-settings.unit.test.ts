/** The codec endpoint's settings: off by default, and never on without the payload keys and a token. */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../config/errors';
import { loadConfig } from '../../worker/config';

const base = { SLUICE_QUEUE_URL: 'http://127.0.0.1:8080/v2', SLUICE_API_KEY: 'key' };

const issues = (env: Record<string, string>) => {
  try {
    loadConfig({ ...base, ...env });
  } catch (err) {
    if (err instanceof ConfigError) return err.issues.map((i) => i.variable);
    throw err;
  }
  return [];
};

describe('codec endpoint settings', () => {
  it('is off by default', () => {
    expect(loadConfig(base).SLUICE_CODEC_ENDPOINT).toBe(false);
  });

  it('needs the payload key file and a token when on', () => {
    expect(issues({ SLUICE_CODEC_ENDPOINT: 'true' })).toEqual(['SLUICE_PAYLOAD_KEY_FILE', 'SLUICE_CODEC_TOKEN_FILE']);
    expect(issues({ SLUICE_CODEC_ENDPOINT: 'true', SLUICE_PAYLOAD_KEY_FILE: '/k.json' })).toEqual([
      'SLUICE_CODEC_TOKEN_FILE',
    ]);
    expect(
      issues({ SLUICE_CODEC_ENDPOINT: 'true', SLUICE_PAYLOAD_KEY_FILE: '/k.json', SLUICE_CODEC_TOKEN: 'short' }),
    ).toEqual(['SLUICE_CODEC_TOKEN']);
    expect(
      issues({ SLUICE_CODEC_ENDPOINT: 'true', SLUICE_PAYLOAD_KEY_FILE: '/k.json', SLUICE_CODEC_TOKEN: 'x'.repeat(32) }),
    ).toEqual([]);
  });
});
