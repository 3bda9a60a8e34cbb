/**
 * Payloads the client reads from Temporal's raw views (a history's start event, a pending activity's
 * heartbeat), decoded as the SDK decodes a result: through the client's own data converter, its
 * codecs first (payload encryption: SLUICE_PAYLOAD_KEY_FILE), then its payload converter.
 */
import { type Client } from '@temporalio/client';
import { type Payload } from '@temporalio/common';

/** The value of `payloads[0]` decoded with `client`'s data converter; undefined when there is none. */
export async function firstPayloadValue<T>(client: Client, payloads?: Payload[] | null): Promise<T | undefined> {
  if (!payloads?.length) return undefined;
  const { payloadCodecs, payloadConverter } = client.options.loadedDataConverter;
  let decoded = payloads;
  // Codecs encode first to last, so they decode last to first (as the SDK does).
  for (let i = payloadCodecs.length - 1; i >= 0; i--) decoded = await payloadCodecs[i]!.decode(decoded);
  return decoded[0] ? payloadConverter.fromPayload<T>(decoded[0]) : undefined;
}
