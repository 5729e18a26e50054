const STOP_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Ctrl-C, a kill, or the terminal closing (SIGHUP) stop a command alike: `stop` runs once, on the first of them, and
 * the command ends as it would on Ctrl-C (a run stops its workflows, the guard secures their campaigns). Returns the
 * function that stops listening.
 */
export function onStopSignal(stop: (signal: NodeJS.Signals) => void): () => void {
  const handler = (signal: NodeJS.Signals) => {
    off();
    // A closed terminal fails every later write: the command still stops and secures, saying nothing.
    if (signal === 'SIGHUP') for (const out of [process.stdout, process.stderr]) out.on('error', () => {});
    stop(signal);
  };
  const off = () => {
    for (const s of STOP_SIGNALS) process.off(s, handler);
  };
  for (const s of STOP_SIGNALS) process.on(s, handler);
  return off;
}
