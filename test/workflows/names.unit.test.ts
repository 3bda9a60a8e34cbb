/**
 * The workflow types the clients start and list by name (WORKFLOW_TYPES in contracts/names, so a
 * client loads no workflow code) are the names of the workflows' functions the daemon registers.
 */
import { describe, expect, it } from 'vitest';
import { WORKFLOW_TYPES } from '../../contracts/names';
import { batchWorkflow } from '../../workflows/batch/workflow';
import { jobWorkflow } from '../../workflows/job';
import { pipelineWorkflow } from '../../workflows/pipeline/workflow';
import { scaleWindowWorkflow } from '../../workflows/scaler/window';
import { scalerWorkflow } from '../../workflows/scaler/workflow';

describe('workflow types by name', () => {
  it('names each orchestration by its workflow function', () => {
    expect(WORKFLOW_TYPES).toEqual({
      job: jobWorkflow.name,
      batch: batchWorkflow.name,
      pipeline: pipelineWorkflow.name,
      scaler: scalerWorkflow.name,
      scaleWindow: scaleWindowWorkflow.name,
    });
  });
});
