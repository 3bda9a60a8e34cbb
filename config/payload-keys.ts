/**
 * The payload keys file (SLUICE_PAYLOAD_KEY_FILE) and the secret files beside it: read only when no
 * one but the owner can read them (mode 0600 or 0400), else a ConfigError naming the variable. The
 * data converter every Temporal client and worker of sluice takes: the codec when a key file is set.
 */
import { readFileSync, statSync } from 'node:fs';
import { type DataConverter } from '@temporalio/common';
import { z } from 'zod';
import { AesGcmPayloadCodec, KEY_BYTES, type PayloadKeys } from '../common/payload-codec';
import { ConfigError } from './errors';

/**
 * The file's format: `{ "current": "<id>", "keys": { "<id>": "<base64 of 32 random bytes>", ... } }`.
 * `current` seals new payloads; every key listed opens payloads sealed with it (keep old keys listed
 * until no history you read still holds payloads sealed with them).
 */
const KeyFile = z
  .object({
    current: z.string().min(1),
    keys: z.record(
      z.string().min(1),
      z.string().refine((v) => /^[A-Za-z0-9+/]+={0,2}$/.test(v) && Buffer.from(v, 'base64').length === KEY_BYTES, {
        error: `must be ${KEY_BYTES} bytes in base64 (e.g. \`openssl rand -base64 32\`)`,
      }),
    ),
  })
  .refine((f) => f.current in f.keys, { error: 'current must name one of keys' });

/** The text of a secret file, refused when missing or readable (or writable) by its group or others. */
export function readSecretFile(file: string, variable: string): string {
  const fail = (message: string): never => {
    throw new ConfigError([{ variable, message }]);
  };
  let mode = 0;
  try {
    mode = statSync(file).mode;
  } catch (err) {
    fail(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  if ((mode & 0o077) !== 0)
    fail(`${file} has mode 0${(mode & 0o777).toString(8)}: it must be readable by its owner only (chmod 600 ${file})`);
  return readFileSync(file, 'utf8');
}

/** The keys of a payload keys file; every problem is a ConfigError naming SLUICE_PAYLOAD_KEY_FILE. */
export function loadPayloadKeys(file: string): PayloadKeys {
  const variable = 'SLUICE_PAYLOAD_KEY_FILE';
  let json: unknown;
  try {
    json = JSON.parse(readSecretFile(file, variable));
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError([{ variable, message: `${file} is not JSON: ${(err as Error).message}` }]);
  }
  const r = KeyFile.safeParse(json);
  if (!r.success)
    throw new ConfigError(
      r.error.issues.map((i) => ({ variable, message: `${file}: ${i.path.join('.') || 'file'} ${i.message}` })),
    );
  return {
    current: r.data.current,
    keys: new Map(Object.entries(r.data.keys).map(([id, b64]) => [id, Buffer.from(b64, 'base64')])),
  };
}

/**
 * The data converter of sluice's Temporal clients and workers: payloads sealed with the keys of
 * `SLUICE_PAYLOAD_KEY_FILE` when it is set, Temporal's default otherwise.
 */
export function payloadDataConverter(c: { SLUICE_PAYLOAD_KEY_FILE?: string | undefined }): DataConverter {
  return c.SLUICE_PAYLOAD_KEY_FILE
    ? { payloadCodecs: [new AesGcmPayloadCodec(loadPayloadKeys(c.SLUICE_PAYLOAD_KEY_FILE))] }
    : {};
}
