import type { Log } from '#commons/log.ts';
import { SCANNED_WARNING } from '#lifecycle/safety-net/handler.ts';

/**
 * The sweeper's log for the embedded stack. A data directory made before one of the campaigns table's indexes keeps
 * its table without it (dynalite cannot add one), so every sweep scans the table, which at a local table's size
 * costs nothing noticeable: said once per stack, in words for the embedded stack, not at every sweep. Every other
 * line passes as it is.
 */
export function scanSaidOnce(log: Log): Log {
  let said = false;
  return {
    info: (message, fields) => log.info(message, fields),
    error: (message, fields) => log.error(message, fields),
    warn: (message, fields) => {
      if (message === SCANNED_WARNING) {
        if (said) return;
        said = true;
        return log.warn(
          "sweeper: this data directory's campaigns table was made before one of its indexes (dynalite cannot " +
            'add one), so each sweep scans the table instead: nothing to do at its size',
          fields,
        );
      }
      log.warn(message, fields);
    },
  };
}
