/** History <-> JSON (the `temporal workflow show --output json` format), with the protobufjs copy of @temporalio/proto. */
import { createRequire } from 'node:module';
import type { temporal } from '@temporalio/proto';

type History = temporal.api.history.v1.IHistory;
interface MessageType {
  fromObject(o: unknown): unknown;
}

// @temporalio/common's historyToJSON/historyFromJSON use their own copy of protobufjs; where the
// install holds several copies (package-lock: one per @temporalio package), its `instanceof Type`
// checks fail ("type must be a Type"). Types and converter must come from the same copy: the one
// @temporalio/proto loads.
const fromProto = createRequire(require.resolve('@temporalio/proto'));
const { toJson, fromJson } = fromProto('protobufjs/ext/protojson') as {
  toJson(type: MessageType, message: unknown): unknown;
  fromJson(type: MessageType, json: unknown, options: { ignoreUnknownFields: boolean }): History | null;
};
const historyType = (fromProto('@temporalio/proto') as { lookupType(name: string): MessageType }).lookupType(
  'temporal.api.history.v1.History',
);

export function historyToJSON(history: History): string {
  return JSON.stringify(toJson(historyType, historyType.fromObject(history)), null, 2);
}

export function historyFromJSON(json: unknown): History {
  const history = fromJson(historyType, json, { ignoreUnknownFields: true });
  if (!history) throw new TypeError('not a workflow history');
  return history;
}
