/** Structured logs for every long-running part (platform, daemon, dev stack): pino, pretty on a terminal. */
import pino, { type Logger, type LoggerOptions } from 'pino';

/** Fields whose values never reach a log: keys, tokens, secrets and s3Config (with its secret key), at the top or one level down. */
const SECRET_FIELDS = [
  'apiKey',
  'api_key',
  'authorization',
  'token',
  'secret',
  'password',
  'accessId',
  'accessSecret',
  'accessKeyId',
  'secretAccessKey',
  's3Config',
  'SLUICE_API_KEY',
  'RUNPOD_AI_API_KEY',
  'SLUICE_WEBHOOK_SECRET',
];

/** pino's `redact`: every secret field, alone or inside another object (`headers.authorization`, `config.SLUICE_API_KEY`). */
export const LOG_REDACT: LoggerOptions['redact'] = {
  paths: SECRET_FIELDS.flatMap((f) => [f, `*.${f}`, `*.*.${f}`]),
  censor: '[redacted]',
};

/** pino JSON logs; pretty when writing to a terminal (or when SLUICE_LOG_PRETTY=1). */
export function createLogger(name: string, level = process.env.SLUICE_LOG_LEVEL ?? 'info'): Logger {
  const pretty =
    process.env.SLUICE_LOG_PRETTY === '1' || (process.env.SLUICE_LOG_PRETTY !== '0' && process.stdout.isTTY);
  if (pretty) {
    return pino({
      name,
      level,
      redact: LOG_REDACT,
      transport: {
        target: 'pino-pretty',
        options: { colorize: true, translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname' },
      },
    });
  }
  return pino({ name, level, redact: LOG_REDACT });
}
