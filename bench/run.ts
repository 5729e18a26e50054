/**
 * `npm run bench`: speed and memory, each reported as a ratio against a baseline measured in the same run, so
 * the numbers mean the same on any machine. Nothing here asserts; it reports.
 */
import { bundlesBench } from './bundles.ts';
import { clientOverhead } from './client-overhead.ts';
import { contactsBench } from './contacts.ts';
import { chooseGroups } from './groups.ts';
import { hoursBench } from './hours.ts';
import { intakeBench } from './intake.ts';
import { intakeBoundsBench } from './intake-bounds.ts';
import { intakeTablesBench } from './intake-tables.ts';
import { lifecycleBench } from './lifecycle.ts';
import { simulationBench } from './simulation.ts';
import { sweepListBench } from './sweep-list.ts';
import { webhooksBench } from './webhooks.ts';

// Node 20 runs the benchmarks here; Lambda runs Node 22. The SDK's notice about its future Node support is noise.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const GROUPS = {
  client: async () => [await clientOverhead()],
  intake: intakeBench,
  'intake-bounds': intakeBoundsBench,
  'intake-tables': intakeTablesBench,
  lifecycle: lifecycleBench,
  webhooks: webhooksBench,
  contacts: contactsBench,
  bundles: bundlesBench,
  hours: hoursBench,
  simulation: simulationBench,
  sweep: sweepListBench,
};
// `npm run bench -- intake bundles` runs just those groups; no names runs them all.
const chosen = chooseGroups(process.argv.slice(2), Object.keys(GROUPS));
if (chosen.unknown.length > 0) {
  console.error(`unknown benchmark ${chosen.unknown.join(', ')}; choose from ${Object.keys(GROUPS).join(', ')}`);
  process.exit(2);
}
const results = [];
for (const name of chosen.run) results.push(...(await GROUPS[name as keyof typeof GROUPS]()));
for (const r of results) {
  const target = r.target ? `; target ${r.target}${r.met === false ? ' MISS' : ''}` : '';
  console.log(`${r.name}: ${r.ratio.toFixed(2)}× ${r.baseline} (${r.detail})${target}`);
}
if (process.argv.includes('--json')) console.log(JSON.stringify(results, null, 2));
