/** Errors of the CLI; `code` is stable, the message is for people. Both exit 2 (usage). */
export class UsageError extends Error {
  readonly code: 'USAGE' | 'PORT_IN_USE' = 'USAGE';
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A port a command would listen on is taken; the message names the port and what changes it. */
export class PortInUseError extends UsageError {
  override readonly code = 'PORT_IN_USE' as const;
  constructor(readonly port: number, what: string, change: string) {
    super(`port ${port} (${what}) is in use; ${change}, or stop what listens there`);
    this.name = 'PortInUseError';
  }
}
