/** The pipeline workflow's query and updates, defined once for the workflow and the client. */
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import { PIPELINE_QUERIES, PIPELINE_UPDATES } from '../../contracts/names';
import type { PipelineState } from '../../contracts';

export const pipelineStateQuery = defineQuery<PipelineState>(PIPELINE_QUERIES.state);
/** Stops reading new inputs (the client pauses every stage's batch: workflows cannot send updates). */
export const pausePipelineUpdate = defineUpdate<PipelineState>(PIPELINE_UPDATES.pause);
export const resumePipelineUpdate = defineUpdate<PipelineState>(PIPELINE_UPDATES.resume);
