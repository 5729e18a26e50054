/** One JSON line per event, so CloudWatch Logs Insights can query fields. Never pass secrets or phone lists. */
export interface Log {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export function jsonLog(service: string, write: (line: string) => void = (l) => process.stdout.write(`${l}\n`)): Log {
  const at =
    (level: string) =>
    (message: string, fields: Record<string, unknown> = {}) =>
      write(JSON.stringify({ level, service, message, time: new Date().toISOString(), ...fields }));
  return { info: at('INFO'), warn: at('WARN'), error: at('ERROR') };
}

export const silentLog: Log = { info() {}, warn() {}, error() {} };
