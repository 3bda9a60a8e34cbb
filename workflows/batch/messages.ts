/** The batch workflow's query and updates, defined once for both of its modes (bulk and per-job workflows). */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { BATCH_QUERIES, BATCH_SIGNALS, BATCH_UPDATES } from '../../contracts/names';
import type { BatchConfigure, BatchFeed, BatchState } from '../../contracts';

export const batchStateQuery = defineQuery<BatchState>(BATCH_QUERIES.state);
/** Stops new submissions; resolves once nothing more is submitted (bulk: the step running has ended). */
export const pauseUpdate = defineUpdate<BatchState>(BATCH_UPDATES.pause);
export const resumeUpdate = defineUpdate<BatchState>(BATCH_UPDATES.resume);
export const configureUpdate = defineUpdate<BatchState, [BatchConfigure]>(BATCH_UPDATES.configure);
/** How far the open feed of a batch goes (a batch with `feed`); a later signal never moves it back. */
export const feedSignal = defineSignal<[BatchFeed]>(BATCH_SIGNALS.feed);
