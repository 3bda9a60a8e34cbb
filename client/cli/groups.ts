/**
 * Every top-level command as `sluice --help` lists it (its names, its help term, its summary),
 * without loading its definition: main registers in full only the command the command line names
 * (issue 23: a command loads only what it uses), the others as these stubs. Each definition takes
 * its summary from here; test/cli/help.test.ts checks the stubs' listing is the full program's.
 */

/** A lazily registered command: its names (the first shown, the others hidden aliases), its term in the listing when it has options or arguments, and its summary. */
export interface GroupStub {
  names: readonly string[];
  /** As commander's listing shows the full command (`name [options] <arg>`); the name alone if absent. */
  term?: string;
  summary: string;
}

export const DEV_COMMAND: GroupStub = {
  names: ['dev'],
  term: 'dev [options]',
  summary: 'the whole stack locally: Temporal dev server, platform, daemon',
};

/** `run`, `status`, `cancel`, `result`, in the order `sluice --help` lists them. */
export const JOB_COMMANDS = {
  run: { names: ['run'], term: 'run [options]', summary: 'run a job through a durable workflow, shown live' },
  status: { names: ['status'], term: 'status [options] <id>', summary: 'workflow status, phase, remote job, progress' },
  cancel: { names: ['cancel'], term: 'cancel [options] <id>', summary: 'cancel the job and its remote job' },
  result: {
    names: ['result'],
    term: 'result [options] <id>',
    summary: "the job's result (exit 4 while it still runs)",
  },
} as const satisfies Record<string, GroupStub>;

export const BATCH_GROUP: GroupStub = {
  names: ['batch'],
  summary: 'run many jobs from a JSONL file, durably: start, watch, pause, resume, cancel, results',
};

/** `scale` is the former name, kept hidden: scripts written for it go on working. */
export const SCALER_GROUP: GroupStub = {
  names: ['scaler', 'scale'],
  summary: "keep an endpoint's workersMin/workersMax right: a scaler per endpoint, overrides, schedules",
};

export const PIPELINE_GROUP: GroupStub = {
  names: ['pipeline'],
  summary: 'run every input through several endpoints, stage after stage: validate, start, watch, control, results',
};

export const CONFIG_COMMAND: GroupStub = {
  names: ['config'],
  term: 'config [options]',
  summary: 'the settings in force for the job commands, and where each came from',
};

export const ENDPOINTS_GROUP: GroupStub = {
  names: ['endpoints'],
  summary: 'list, create, update and delete serverless endpoints',
};

export const TEMPLATES_GROUP: GroupStub = {
  names: ['templates'],
  summary: 'list, create and update worker templates (the command an endpoint runs)',
};

export const PLATFORM_COMMAND: GroupStub = {
  names: ['platform'],
  term: 'platform [options]',
  summary: 'run the local serverless platform alone (queue, REST, GraphQL, worker pods)',
};

export const WORKER_COMMAND: GroupStub = {
  names: ['worker'],
  term: 'worker [options]',
  summary: 'run the orchestrator daemon (configured by TEMPORAL_*, SLUICE_*)',
};

export const CONSOLE_COMMAND: GroupStub = {
  names: ['console'],
  term: 'console [options]',
  summary: 'the web console: batches, scalers, endpoints and jobs in a browser',
};

export const COMPOSE_GROUP: GroupStub = {
  names: ['compose'],
  summary: 'prepare the docker-compose.yml stack (secrets in .env)',
};

export const DEMO_COMMAND: GroupStub = {
  names: ['demo'],
  term: 'demo [options]',
  summary: 'start the stack and run example jobs through it, live (what `npm start` runs)',
};
