#!/usr/bin/env node
// The CLI is TypeScript; tsx compiles it on the fly so `npm ci` is the only build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../local/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
