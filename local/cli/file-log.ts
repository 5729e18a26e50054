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
  const toTerminal = options.terminal ? jsonLog(options.service, (line) => process.stderr.write(`${line}\n`)) : null;
  return {
    info: options.info ? toFile.info : () => {},
    warn: (message, fields) => {
      toFile.warn(message, fields);
      toTerminal?.warn(message, fields);
    },
    error: (message, fields) => {
      toFile.error(message, fields);
      toTerminal?.error(message, fields);
    },
    close: () => new Promise<void>((resolve) => stream.end(resolve)),
  };
}
