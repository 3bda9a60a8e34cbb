/** Errors of the worker daemon. */
export class ConfigError extends Error {
  readonly code = 'CONFIG_INVALID' as const;
  constructor(readonly variable: string, message: string) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}
