/** The payload codec and its key file: sealed and opened across a key rotation, plain payloads passed through, tampering and unknown keys refused, bad files named. */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { afterAll, describe, expect, it } from 'vitest';
import { AesGcmPayloadCodec, ENCRYPTED_ENCODING, KEY_ID_METADATA } from '../../common/payload-codec';
import { ConfigError } from '../../config/errors';
import { loadPayloadKeys, payloadDataConverter } from '../../config/payload-keys';

const k1 = randomBytes(32);
const k2 = randomBytes(32);
const text = (b: Uint8Array | null | undefined) => Buffer.from(b ?? []).toString();

describe('AesGcmPayloadCodec', () => {
  const plain = defaultPayloadConverter.toPayload({ secret: 'marker-123' });

  it('seals with the current key id and a fresh IV, and opens after a rotation', async () => {
    const old = new AesGcmPayloadCodec({ current: 'k1', keys: new Map([['k1', k1]]) });
    const [a, b] = await old.encode([plain, plain]);
    expect(text(a!.metadata!.encoding)).toBe(ENCRYPTED_ENCODING);
    expect(text(a!.metadata![KEY_ID_METADATA])).toBe('k1');
    expect(text(a!.data)).not.toContain('marker-123');
    expect(Buffer.from(a!.data!).equals(Buffer.from(b!.data!))).toBe(false);
    const rotated = new AesGcmPayloadCodec({
      current: 'k2',
      keys: new Map([
        ['k1', k1],
        ['k2', k2],
      ]),
    });
    const [opened] = await rotated.decode([a!]);
    expect(defaultPayloadConverter.fromPayload(opened!)).toEqual({ secret: 'marker-123' });
    const [sealed2] = await rotated.encode([plain]);
    expect(text(sealed2!.metadata![KEY_ID_METADATA])).toBe('k2');
    await expect(old.decode([sealed2!])).rejects.toThrow(/key "k2", which is not among the payload keys/);
  });

  it('passes plain payloads through and refuses a tampered one', async () => {
    const codec = new AesGcmPayloadCodec({ current: 'k1', keys: new Map([['k1', k1]]) });
    expect(await codec.decode([plain])).toEqual([plain]);
    const [sealed] = await codec.encode([plain]);
    const data = Buffer.from(sealed!.data!);
    data[20] = data[20]! ^ 1;
    await expect(codec.decode([{ ...sealed!, data }])).rejects.toThrow();
  });
});

describe('the payload key file (SLUICE_PAYLOAD_KEY_FILE)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-keyfile-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, body: unknown, mode = 0o600) => {
    const file = join(dir, name);
    writeFileSync(file, typeof body === 'string' ? body : JSON.stringify(body));
    chmodSync(file, mode);
    return file;
  };
  const b64 = (b: Buffer) => b.toString('base64');

  it('reads the keys of a file only its owner can read', () => {
    const keys = loadPayloadKeys(write('ok.json', { current: 'k2', keys: { k1: b64(k1), k2: b64(k2) } }, 0o400));
    expect(keys.current).toBe('k2');
    expect(keys.keys.get('k1')!.equals(k1)).toBe(true);
    expect(payloadDataConverter({}).payloadCodecs).toBeUndefined();
  });

  it('refuses other modes, bad JSON, short keys and an unknown current key, naming the variable', () => {
    const cases: [string, RegExp][] = [
      [write('open.json', { current: 'k1', keys: { k1: b64(k1) } }, 0o644), /mode 0644/],
      [write('group.json', { current: 'k1', keys: { k1: b64(k1) } }, 0o640), /mode 0640/],
      [write('bad.json', '{not json'), /is not JSON/],
      [
        write('short.json', { current: 'k1', keys: { k1: b64(randomBytes(16)) } }),
        /keys\.k1 must be 32 bytes in base64/,
      ],
      [write('current.json', { current: 'k9', keys: { k1: b64(k1) } }), /current must name one of keys/],
      [join(dir, 'missing.json'), /cannot read .*ENOENT/],
    ];
    for (const [file, message] of cases) {
      let err: unknown;
      try {
        loadPayloadKeys(file);
      } catch (e) {
        err = e;
      }
      expect(err, file).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).variable).toBe('SLUICE_PAYLOAD_KEY_FILE');
      expect((err as Error).message).toMatch(message);
    }
  });
});
