/** The user's workflows of the examples, the one file their worker bundles (Worker.create's workflowsPath). */
export { twoBatches } from './two-batches';
export { twoStages } from './two-stages';
