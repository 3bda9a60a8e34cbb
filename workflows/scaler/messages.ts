/** The scaler workflow's query, updates and signal (override, pause, resume, configure, schedule window, backlog), defined once. */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { SCALER_QUERIES, SCALER_SIGNALS, SCALER_UPDATES } from '../../contracts/names';
import type { BacklogReport, OverrideInput, ScaleWindow, ScalerState, ScalerConfigure } from '../../contracts';

export const scalerStateQuery = defineQuery<ScalerState>(SCALER_QUERIES.state);
/** Pins the bounds for `forMs`; resolves once they are written. */
export const overrideUpdate = defineUpdate<ScalerState, [OverrideInput]>(SCALER_UPDATES.override);
export const clearOverrideUpdate = defineUpdate<ScalerState>(SCALER_UPDATES.clearOverride);
/** Stops every change of the bounds; resolves once no write is under way. */
export const pauseScalerUpdate = defineUpdate<ScalerState>(SCALER_UPDATES.pause);
export const resumeScalerUpdate = defineUpdate<ScalerState>(SCALER_UPDATES.resume);
export const configureScalerUpdate = defineUpdate<ScalerState, [ScalerConfigure]>(SCALER_UPDATES.configure);
/** A schedule's floor/ceiling window (null clears it). */
export const setWindowUpdate = defineUpdate<ScalerState, [ScaleWindow | null]>(SCALER_UPDATES.setWindow);
export const backlogUpdate = defineUpdate<ScalerState, [BacklogReport]>(SCALER_UPDATES.backlog);
export const backlogSignal = defineSignal<[BacklogReport]>(SCALER_SIGNALS.backlog);
