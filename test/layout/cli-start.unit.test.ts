/**
 * What the `sluice` command loads before it answers (issue 23: the CLI answers at once): the
 * program's definitions (`--version`, `--help`, every command's parsing) load commander alone, and
 * a `status` or `list` loads Temporal's client but neither the AWS SDK, the service's HTTP
 * client, OpenTelemetry's SDK, JSONata nor any workflow code (the clients start, query and update
 * workflows by name). Read from the sources' value imports (./load-closure); the times are
 * measured in bench/cli/start.ts.
 */
import { describe, expect, it } from 'vitest';
import { loadedWith } from './load-closure';
import { code, sourceFiles } from './source-tree';

const files = sourceFiles([
  'contracts',
  'common',
  'platform-api',
  'results',
  'workflows',
  'config',
  'client',
  'console',
]);

/** The packages loaded with all of `entries` (a command's action and the client modules it loads). */
const packagesOf = (...entries: string[]): string[] =>
  [...new Set(entries.flatMap((e) => [...loadedWith(e, files, code).packages]))].sort();

/** The workflows' source files loaded with all of `entries`. */
const workflowFilesOf = (...entries: string[]): string[] =>
  [...new Set(entries.flatMap((e) => [...loadedWith(e, files, code).files]))].filter((f) => f.startsWith('workflows/'));

/** What no status or list command needs. */
const HEAVY =
  /^(@aws-sdk\/|@opentelemetry\/|@temporalio\/interceptors-opentelemetry$|undici$|jsonata$|cli-progress$|yaml$)/;

describe('what the CLI loads', () => {
  it('defines every command with commander alone: --version and --help load no client, schema or SDK', () => {
    expect(packagesOf('client/cli/main.ts')).toEqual(['commander']);
  });

  it('runs `status` with the Temporal client and the job client only', () => {
    const status = ['client/cli/job/actions.ts', 'client/cli/context.ts', 'client/job.ts'];
    const loaded = packagesOf(...status);
    expect(loaded).toContain('@temporalio/client');
    expect(loaded.filter((p) => HEAVY.test(p))).toEqual([]);
    expect(loaded).not.toContain('@temporalio/workflow');
    expect(workflowFilesOf(...status)).toEqual([]);
  });

  it('runs `batch status` and `batch list` with the Temporal client and the batch client only', () => {
    // The batch group's definitions (loaded with any batch command) show the defaults without zod's schemas.
    const list = [
      'client/cli/batch/commands.ts',
      'client/cli/batch/actions.ts',
      'client/cli/context.ts',
      'client/batch.ts',
    ];
    const loaded = packagesOf(...list);
    expect(loaded).toContain('@temporalio/client');
    expect(loaded.filter((p) => HEAVY.test(p))).toEqual([]);
    expect(loaded).not.toContain('@temporalio/workflow');
    expect(workflowFilesOf(...list)).toEqual([]);
  });

  it('starts a batch without JSONata, the AWS SDK, undici or OpenTelemetry (the lookup sends with Node’s http)', () => {
    // The endpoint's lookup: the GraphQL client alone (client/cli/context.ts, `lookup`), importing the schemas it uses.
    const start = [
      'client/cli/batch/start.ts',
      'client/cli/context.ts',
      'client/batch.ts',
      'platform-api/graphql-client.ts',
    ];
    const loaded = packagesOf(...start);
    expect(loaded).toContain('@temporalio/client');
    expect(loaded.filter((p) => /^(jsonata$|@aws-sdk\/|undici$|@opentelemetry\/)/.test(p))).toEqual([]);
    // The daemon's clients (the barrel) still send through undici's pools, loaded at their first request.
    expect(packagesOf('platform-api/index.ts')).not.toContain('undici');
  });

  it('starts and watches a batch with the light client: no @temporalio/client, gRPC-js or protobuf library', () => {
    // client/cli/batch/starter.ts: temporal-lite over Node's http2 unless a codec, TLS, an API key or tracing needs the full client.
    const lite = [
      'client/cli/batch/start.ts',
      'client/cli/batch/starter.ts',
      'client/cli/batch/progress.ts',
      'client/batch-lite.ts',
      'platform-api/graphql-client.ts',
    ];
    const loaded = packagesOf(...lite);
    expect(loaded.filter((p) => /^(@temporalio\/(?!envconfig$)|@grpc\/|protobufjs$|long$)/.test(p))).toEqual([]);
    expect(loaded.filter((p) => /^(jsonata$|@aws-sdk\/|undici$|@opentelemetry\/)/.test(p))).toEqual([]);
    // The full client's path, for the settings the light one cannot serve, loads it.
    expect(packagesOf('client/cli/context.ts')).toContain('@temporalio/client');
  });

  it('loads no workflow code with any client: they start, query and update workflows by name', () => {
    const clients = ['client/job.ts', 'client/batch.ts', 'client/pipeline.ts', 'client/scaler.ts'];
    expect(packagesOf(...clients)).not.toContain('@temporalio/workflow');
    expect(workflowFilesOf(...clients)).toEqual([]);
  });

  it('opens a results store without the AWS SDK (loaded at an s3:// store’s first use)', () => {
    expect(packagesOf('results/store/open.ts').filter((p) => p.startsWith('@aws-sdk/'))).toEqual([]);
    expect(packagesOf('results/store/s3-client.ts')).toContain('@aws-sdk/client-s3');
  });
});
