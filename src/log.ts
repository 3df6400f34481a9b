import { type Logger, pino } from 'pino';
import type { LogLevel } from './config.js';

export type { Logger };

/**
 * Structured JSON logs on stderr (stdout belongs to the stdio protocol). Anything that
 * could hold a secret is redacted by path, whatever code logs it.
 */
// Secret-bearing field names. A pino path matches exactly the nesting it spells (`*` is one
// level), so each name is listed at the top level and one and two levels down (the doctrine's
// LOG-002 asks for a canary at each of those depths to be caught).
const SECRET_FIELDS = ['authorization', 'cookie', 'apiKey', 'api_key', 'key', 'privateKey', 'private_key', 'secret', 'password', 'token'];

export const REDACT_PATHS = [
  'req.headers["x-api-key"]',
  ...SECRET_FIELDS,
  ...SECRET_FIELDS.map((f) => `*.${f}`),
  ...SECRET_FIELDS.map((f) => `*.*.${f}`),
];

/**
 * `buffered`: for HTTP mode, where one line per request is written. Lines are batched
 * (4 KiB or 100 ms) instead of one write(2) per line; flushLogs() empties the buffer
 * before exit. stdio mode writes synchronously: few lines, and none may be lost.
 */
export function createLogger(level: LogLevel, options: { buffered?: boolean; destination?: NodeJS.WritableStream } = {}): Logger {
  const dest = options.destination ?? pino.destination({ fd: 2, sync: !options.buffered, minLength: options.buffered ? 4096 : 0 });
  if (options.buffered) {
    const timer = setInterval(() => (dest as { flush?: () => void }).flush?.(), 100);
    timer.unref();
  }
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

/**
 * The logger for the one line per HTTP request: the same destination, level and format, but
 * no redaction pass. Redaction walks every path (wildcards included) on every line, which
 * measured as a quarter of the cost of a cached call; the request line is built by Signet
 * from typed fields (ids checked against patterns, parsed addresses, method names from a
 * fixed set), so there is nothing in it to redact.
 */
export function createRequestLogger(log: Logger): Logger {
  const dest = (log as unknown as Record<symbol, NodeJS.WritableStream>)[pino.symbols.streamSym]!;
  return pino(
    {
      level: log.level,
      base: { service: 'signet' },
      messageKey: 'msg',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    dest,
  );
}

/** Writes out buffered log lines (before exit). */
export function flushLogs(log: Logger): void {
  try {
    log.flush();
  } catch {
    /* nothing left to write to */
  }
}
