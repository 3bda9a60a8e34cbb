/** Errors of the CLI and client library; `code` is stable, the message is for people. */
export class UsageError extends Error {
  readonly code = 'USAGE' as const;
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
