/**
 * Temporal payload encryption: a PayloadCodec sealing each payload with AES-256-GCM (node:crypto, a
 * random 12-byte IV per payload) under the current key, its key id in the payload's metadata so keys
 * can rotate; payloads without that metadata (histories written before a key was set) pass through.
 * Used by the daemon's worker and client, the CLI and the library; runs outside the workflow sandbox.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { METADATA_ENCODING_KEY, type Payload, type PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';

/** The `encoding` of a sealed payload (the value Temporal's samples use, so their tools recognise it). */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** The metadata entry naming the key a payload was sealed with. */
export const KEY_ID_METADATA = 'encryption-key-id';

const IV_BYTES = 12;
const TAG_BYTES = 16;
/** AES-256: keys are 32 bytes. */
export const KEY_BYTES = 32;

/** The keys a codec knows, by id; `current` seals new payloads, every key opens old ones. */
export interface PayloadKeys {
  current: string;
  keys: ReadonlyMap<string, Buffer>;
}

const utf8 = (s: string): Uint8Array => Buffer.from(s, 'utf8');
const text = (b: Uint8Array | null | undefined): string | undefined =>
  b ? Buffer.from(b).toString('utf8') : undefined;

/** True when `p` was sealed by a payload codec of this kind. */
export const isEncrypted = (p: Payload): boolean => text(p.metadata?.[METADATA_ENCODING_KEY]) === ENCRYPTED_ENCODING;

/** AES-256-GCM over the whole payload (its metadata too): `iv | ciphertext | tag`. */
export class AesGcmPayloadCodec implements PayloadCodec {
  constructor(private readonly keys: PayloadKeys) {
    if (!keys.keys.has(keys.current)) throw new Error(`no key ${JSON.stringify(keys.current)} among the payload keys`);
    for (const [id, key] of keys.keys)
      if (key.length !== KEY_BYTES) throw new Error(`payload key ${JSON.stringify(id)} is not ${KEY_BYTES} bytes`);
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const key = this.keys.keys.get(this.keys.current)!;
    return payloads.map((p) => {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const plain = temporal.api.common.v1.Payload.encode(p).finish();
      const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      return {
        metadata: { [METADATA_ENCODING_KEY]: utf8(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: utf8(this.keys.current) },
        data: sealed,
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => (isEncrypted(p) ? this.open(p) : p));
  }

  private open(p: Payload): Payload {
    const id = text(p.metadata?.[KEY_ID_METADATA]);
    const key = id === undefined ? undefined : this.keys.keys.get(id);
    if (!key)
      throw new Error(`payload sealed with key ${JSON.stringify(id ?? '')}, which is not among the payload keys`);
    const data = Buffer.from(p.data ?? new Uint8Array());
    if (data.length < IV_BYTES + TAG_BYTES) throw new Error('sealed payload is too short');
    const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES));
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    const plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
    return temporal.api.common.v1.Payload.decode(plain);
  }
}
