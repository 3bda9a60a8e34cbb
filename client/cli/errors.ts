/** Errors of the CLI; `code` is stable, the message is for people. All exit 2 (usage). */
export class UsageError extends Error {
  readonly code: 'USAGE' | 'PORT_IN_USE' | 'DATA_DIR_IN_USE' = 'USAGE';
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A port a command would listen on is taken; the message names the port and what changes it. */
export class PortInUseError extends UsageError {
  override readonly code = 'PORT_IN_USE' as const;
  constructor(
    readonly port: number,
    what: string,
    change: string,
    detail = 'is in use',
  ) {
    super(`port ${port} (${what}) ${detail}; ${change}, or stop what listens there`);
    this.name = 'PortInUseError';
  }
}

/** Another running `sluice` owns the data dir's Temporal dev server (two stacks would share its state). */
export class DataDirInUseError extends UsageError {
  override readonly code = 'DATA_DIR_IN_USE' as const;
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `the data dir ${dataDir} is in use by a running sluice (pid ${pid}); stop it, or choose another with --data-dir`,
    );
    this.name = 'DataDirInUseError';
  }
}
