import { ConfigError } from '#commons/config.ts';
import { buildApp } from './build-app.ts';

try {
  // Not synthesized on its own at exit (CDK's default under its CLI): a bad setting must leave no assembly behind,
  // or an empty stack in cdk.out would deploy as the deletion of everything.
  buildApp({ autoSynth: false }).app.synth();
} catch (err) {
  // A setting to fix: its message names it and where to set it; the stack trace would only bury it.
  if (!(err instanceof ConfigError)) throw err;
  console.error(err.message);
  process.exitCode = 1;
}
