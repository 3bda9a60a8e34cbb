/** Errors of the settings (config/): one ConfigError naming every bad variable, for the daemon and the CLI alike. */
export class ConfigError extends Error {
  readonly code = 'CONFIG_INVALID' as const;
  /** The first variable in error. */
  readonly variable: string;

  /** Every missing or invalid variable, so one run reports them all. */
  constructor(readonly issues: ConfigIssue[]) {
    super(issues.map((i) => `${i.variable}: ${i.message}`).join('; '));
    this.name = 'ConfigError';
    this.variable = issues[0]?.variable ?? 'environment';
  }
}

/** One missing or invalid setting: the variable (or file) it comes from, and what is wrong. */
export interface ConfigIssue {
  variable: string;
  message: string;
}
