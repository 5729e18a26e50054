import { type CampaignRecord, type CampaignStore, isEnded } from '#lifecycle/campaign-store.ts';
import type { SimScheduler } from '#local/stack/sim-scheduler.ts';

/**
 * The parts of a run that wait on an operator: every part still running was asked to pause (and not to resume or
 * cancel since), and its workflow has recorded that pause as the operator's since. Empty when any running part
 * still has work of its own, or none runs.
 */
export function heldByOperator(records: readonly CampaignRecord[]): CampaignRecord[] {
  const running = records.filter((r) => !isEnded(r));
  const waits = (r: CampaignRecord) => {
    const asked = r.control?.wanted === 'pause' ? Date.parse(r.control.at) : Number.NaN;
    // A look that read the record before the request was written records no manual pause: only one that saw it.
    return (r.timeline ?? []).some((t) => t.event === 'pause' && t.reason === 'manual' && Date.parse(t.at) >= asked);
  };
  return running.length > 0 && running.every(waits) ? running : [];
}

/** The scheduler's actor that holds simulated time while only an operator can move the run on. */
const HOLD = 'operator pause';

/**
 * Under `callsheet run` simulated time races to the next thing due: a campaign paused by hand would sit out days of
 * it in seconds, until its workflow timed out. While every running part waits on an operator, the clock stands
 * still instead, and the run says what it waits for; a resume or cancel from another terminal lets it go on.
 */
export function holdForOperators(options: {
  scheduler: SimScheduler;
  store: CampaignStore;
  partKeys: () => string[];
  say: (line: string) => void;
  /** Whether the run was stopped (Ctrl-C): the clock is let go, so the guard can secure the stopped parts. */
  stopped: () => boolean;
  /** How often the parts are read (real time); 0: only when `look` is called. */
  everyMs?: number;
}): { look(): Promise<void>; stop(): void } {
  const { scheduler, store, partKeys, say, stopped } = options;
  let holding = false;
  let looking = false;
  let closed = false;
  const look = async () => {
    if (looking || closed) return;
    looking = true;
    try {
      const held = stopped() ? [] : heldByOperator([...(await store.getMany(partKeys())).values()]);
      // Stopped while the read was out: the run is past its wait, and nothing would let the clock go again.
      if (closed) return;
      if (held.length > 0 && !holding) {
        holding = true;
        scheduler.join(HOLD);
        const ids = held.map((r) => r.campaignId ?? r.partKey);
        say(
          `${ids.length === 1 ? `campaign ${ids[0]} is` : `campaigns ${ids.join(', ')} are`} paused by an operator: ` +
            `simulated time stands still until \`callsheet campaign resume <id>\` (or cancel) from another terminal; Ctrl-C ends the run.`,
        );
      } else if (held.length === 0 && holding) {
        holding = false;
        scheduler.leave(HOLD);
        if (!stopped()) say('an operator moved the run on; simulated time runs again.');
      }
    } catch {
      // A read that failed is tried again at the next tick.
    } finally {
      looking = false;
    }
  };
  const every = options.everyMs ?? 250;
  const timer = every > 0 ? setInterval(() => void look(), every) : null;
  return {
    look,
    stop() {
      closed = true;
      if (timer) clearInterval(timer);
      if (holding) scheduler.leave(HOLD);
      holding = false;
    },
  };
}
