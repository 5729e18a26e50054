import { createWriteStream } from 'node:fs';
import { jsonLog, type Log } from '#commons/log.ts';

/**
 * The stack's log lines in `file` (appended, readable by its owner only): every line, or only warnings and errors
 * (`info: false`), and warnings and errors on stderr too where the terminal should show what needs a look
 * (`terminal`). `close()` ends the file; a line logged as it closes is dropped rather than thrown.
 */
export function fileLog(
  file: string,
  options: { service: string; info: boolean; terminal: boolean },
): Log & { close(): Promise<void> } {
  const stream = createWriteStream(file, { flags: 'a', mode: 0o600 });
  stream.on('error', () => undefined);
  const toFile = jsonLog(options.service, (line) => {
    if (!stream.writableEnded) stream.write(`${line}\n`);
  });
  const onTerminal = (level: 'warning' | 'error') => (message: string, fields?: Record<string, unknown>) => {
    if (options.terminal) process.stderr.write(`${terminalLine(options.service, level, message, fields)}\n`);
  };
  const toTerminal = { warn: onTerminal('warning'), error: onTerminal('error') };
  return {
    info: options.info ? toFile.info : () => {},
    warn: (message, fields) => {
      toFile.warn(message, fields);
      toTerminal.warn(message, fields);
    },
    error: (message, fields) => {
      toFile.error(message, fields);
      toTerminal.error(message, fields);
    },
    close: () => new Promise<void>((resolve) => stream.end(resolve)),
  };
}

/**
 * A warning or error as a person reads it on the terminal: the message and its plain fields (`campaignId=…`), not
 * the JSON the log file keeps, nor its embedded metrics (`_aws` and the PascalCase counters beside it).
 */
export function terminalLine(
  service: string,
  level: 'warning' | 'error',
  message: string,
  fields: Record<string, unknown> = {},
): string {
  const plain = Object.entries(fields)
    .filter(([k, v]) => !k.startsWith('_') && !/^[A-Z]/.test(k) && v !== undefined && v !== null)
    .filter(([, v]) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')
    .map(([k, v]) => `${k}=${typeof v === 'string' && /\s/.test(v) ? JSON.stringify(v) : String(v)}`);
  return `${service.replace(/-/g, ' ')}: ${level}: ${message}${plain.length > 0 ? ` (${plain.join(' ')})` : ''}`;
}
