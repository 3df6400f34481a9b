import { pino, type Logger } from 'pino';
import type { LogLevel } from './config.js';

export type { Logger };

/**
 * Structured JSON logs on stderr (stdout belongs to the stdio protocol). Anything that
 * could hold a secret is redacted by path, whatever code logs it.
 */
export const REDACT_PATHS = [
  'authorization',
  'req.headers.authorization',
  'headers.authorization',
  'req.headers.cookie',
  'headers.cookie',
  'req.headers["x-api-key"]',
  'apiKey',
  'api_key',
  'key',
  'privateKey',
  'private_key',
  'secret',
  'password',
  'token',
  '*.authorization',
  '*.apiKey',
  '*.privateKey',
  '*.secret',
  '*.token',
];

export function createLogger(level: LogLevel, destination: number | NodeJS.WritableStream = 2): Logger {
  const dest = typeof destination === 'number' ? pino.destination({ fd: destination, sync: true }) : destination;
  return pino(
    {
      level,
      base: { service: 'signet' },
      messageKey: 'msg',
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    dest,
  );
}
