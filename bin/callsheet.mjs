#!/usr/bin/env node
// The CLI runs as JavaScript compiled by scripts/build-cli.mjs (on `npm ci`, `npm test`, `npm run build`). When any
// of its sources changed since, it is compiled again here first (esbuild takes a fraction of a second), so an
// out-of-date build never runs.
import { buildCli, freshBundle } from '#scripts/build-cli.mjs';

// Node 20 runs the CLI here; Lambda runs Node 22. The SDK's notice about its future Node support is not for users.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

async function loadMain() {
  const fresh = freshBundle();
  if (fresh) return import(fresh);
  try {
    return import(await buildCli({ quiet: true }));
  } catch (err) {
    // A source that does not compile (say, mid-edit): say so and stop; an out-of-date bundle never runs.
    console.error(`callsheet: could not compile the CLI (fix the source, then run it again): ${err.message}`);
    process.exit(1);
  }
}

// A reader that stops early (`callsheet run … | head`) closes the pipe. The command goes on to its end unheard (a
// run still stops its workflows as it should, which a crash here would not), rather than dying with a stack trace.
for (const stream of [process.stdout, process.stderr])
  stream.on('error', (err) => {
    if (err.code !== 'EPIPE' && err.code !== 'ERR_STREAM_DESTROYED') throw err;
  });

const { main } = await loadMain();
process.exitCode = await main(process.argv.slice(2));
