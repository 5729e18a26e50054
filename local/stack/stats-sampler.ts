import { documentClient } from '#commons/aws/clients.ts';
import { labelOfPartKey } from '#commons/campaign-plan.ts';
import type { Log } from '#commons/log.ts';
import { CampaignStore, quietAt } from '#lifecycle/campaign-store.ts';
import type { StatsSample } from './html-report.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './local-aws.ts';
import type { LocalStack } from './local-stack.ts';

const STATS = ['total', 'completed', 'failed', 'pending', 'in_progress'] as const;

/**
 * How often the report pages' stats are sampled, in the stack's time, while a part may be dialling (quiet stretches
 * are skipped).
 */
export const STATS_EVERY_MS = 2 * 60_000;

/** Key of a part's samples: its upload and its label (`1`, or `1-r2a` for a follow-up round). */
export const sampleKey = (uploadId: string, label: string) => `${uploadId}#${label}`;

/**
 * Campaign stats over time for the local stack's report pages: every `everyMs` of the stack's time (simulated or
 * real), the counts each running part's workflow last saw (its record's `watch.counts`, with the time it saw
 * them). The API is not asked: a hundred parts sampled every two minutes would spend the plan their polls and
 * resumes need. The lifecycle's part report carries only the final stats; this draws the curve between.
 */
export function sampleStats(
  stack: LocalStack,
  options: { everyMs: number; log: Log },
): { samples(uploadId: string, label: string): StatsSample[]; stop(): void } {
  const db = documentClient({
    region: LOCAL_REGION,
    endpoints: { dynamodb: stack.dynamo.endpoint },
    credentials: LOCAL_CREDENTIALS,
  });
  const store = new CampaignStore(db, stack.dynamo.tables.campaigns);
  const series = new Map<string, StatsSample[]>();
  const sample = async (): Promise<number | null> => {
    try {
      const running = await store.unfinished();
      for (const part of running) {
        const s = part.watch?.counts;
        if (!s || !part.watch) continue;
        const key = sampleKey(part.uploadId, labelOfPartKey(part.uploadId, part.partKey));
        const list = series.get(key) ?? [];
        const last = list.at(-1);
        // A step chart needs only the changes.
        if (!last || STATS.some((f) => last[f] !== s[f])) list.push({ at: part.watch.observedAt, ...s });
        series.set(key, list);
      }
      // Every part confirmed not dialling (window closed, paused): nothing moves before the next look, or before a
      // scheduled start, from which a campaign dials on its own.
      const now = stack.scheduler?.now() ?? Date.now();
      if (running.length > 0 && running.every((p) => p.watch && quietAt(p.watch, now)))
        return Math.min(
          ...running.flatMap((p) => [
            Date.parse(p.watch?.nextLookAt ?? '') || Number.POSITIVE_INFINITY,
            Date.parse(p.watch?.quietUntil ?? '') || Number.POSITIVE_INFINITY,
          ]),
        );
    } catch (err) {
      options.log.warn('stats sample failed', { error: (err as Error).message });
    }
    return null;
  };
  let stop: () => void;
  const scheduler = stack.scheduler;
  // On simulated time nothing is recorded before some actor wakes: a night between two looks is one sample.
  if (scheduler)
    stop = scheduler.every(options.everyMs, async () => Math.max((await sample()) ?? 0, scheduler.nextWake() ?? 0));
  else {
    // Real time: a quiet answer only saves a few reads, so every tick samples.
    const timer = setInterval(() => void sample(), options.everyMs);
    timer.unref();
    stop = () => clearInterval(timer);
  }
  return {
    samples: (uploadId, label) => series.get(sampleKey(uploadId, label)) ?? [],
    stop: () => {
      stop();
      db.destroy();
    },
  };
}
