import { ConfigError } from '#commons/config.ts';
import { buildApp } from './build-app.ts';

try {
  buildApp().app.synth();
} catch (err) {
  // A setting to fix: its message names it and where to set it; the stack trace would only bury it.
  if (!(err instanceof ConfigError)) throw err;
  console.error(err.message);
  process.exitCode = 1;
}
