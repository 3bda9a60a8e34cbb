/** Webhook faults: a job's webhook lost, sent twice, delayed, or reset after the receiver got it; drawn per webhook from the seeded stream. */
import { FaultStream, type Draw } from './draw';
import { type Faults } from './options';

/** A fault of one job's webhook. */
export type WebhookFaultKind = 'lost' | 'duplicate' | 'delay' | 'reset';

/** The fault of the next webhook (kind null: none; `ms`: the delay of a `delay`). */
export type WebhookFault = Draw<WebhookFaultKind>;

/** The draws of the webhooks, or undefined when no webhook fault is on. */
export function webhookFaults(faults: Faults): (() => WebhookFault) | undefined {
  const stream = new FaultStream<WebhookFaultKind>(
    faults.seed,
    1,
    [
      ['lost', faults.webhookLost],
      ['duplicate', faults.webhookDuplicate],
      ['delay', faults.webhookDelay],
      ['reset', faults.webhookReset],
    ],
    faults.webhookDelayMs,
  );
  return stream.active ? () => stream.next() : undefined;
}
