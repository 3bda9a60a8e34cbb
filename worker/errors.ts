/** Errors of the worker daemon. */
export class ConfigError extends Error {
  readonly code = 'CONFIG_INVALID' as const;
  /** The first variable in error. */
  readonly variable: string;

  /** Every missing or invalid variable, so one run reports them all. */
  constructor(readonly issues: { variable: string; message: string }[]) {
    super(issues.map((i) => `${i.variable}: ${i.message}`).join('; '));
    this.name = 'ConfigError';
    this.variable = issues[0]?.variable ?? 'environment';
  }
}
