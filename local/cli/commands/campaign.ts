import { CampaignControl, letGoOfBrake } from '#lifecycle/campaign-control.ts';
import type { CampaignSafety } from '#lifecycle/campaign-safety.ts';
import { type CampaignRecord, CampaignStore, isEnded, type ManualControl } from '#lifecycle/campaign-store.ts';
import { type Command, UsageError } from '../command.ts';
import { findPart, operatorSession, partRecords, statusWords } from '../operator.ts';
import { openTable } from '../table-access.ts';
import { OUTCOMES_HELP, OUTCOMES_OPTIONS, runOutcomes } from './outcomes.ts';

const ACTIONS: ManualControl[] = ['pause', 'resume', 'cancel'];

/** One line per part: what an operator scans for. */
export function partLine(r: CampaignRecord): string {
  const last = r.timeline?.at(-1);
  return [
    (r.campaignId ?? '-').padEnd(22),
    statusWords(r).padEnd(9),
    r.partKey,
    r.control ? `asked: ${r.control.wanted} at ${r.control.at}` : '',
    last ? `last: ${last.event} (${last.reason}) at ${last.at}` : '',
  ]
    .filter(Boolean)
    .join('  ');
}

/**
 * `campaign show`'s lines. A part created for a later start records no look of its own (its "next look" is its
 * creation): while it is quiet, its last look is shown instead of a next one in the past.
 */
export function showPart(r: CampaignRecord): string[] {
  const w = r.watch;
  const unplanned = w?.quiet && Date.parse(w.nextLookAt) <= Date.parse(w.observedAt);
  const look = unplanned ? `not dialling at its last look (${w.observedAt})` : `next look ${w?.nextLookAt}`;
  // The workflow's own pauses, resumes and brakes, and what the guard or the sweeper did once it had ended.
  const events = [
    ...(r.timeline ?? []).map((t) => ({ at: t.at, what: `${t.event} (${t.reason})` })),
    ...(r.secured ? [{ at: r.secured.at, what: `${r.secured.outcome} by ${r.secured.by} (${r.secured.reason})` }] : []),
  ].sort((a, b) => a.at.localeCompare(b.at));
  return [
    `campaign ${r.campaignId ?? '(not created)'}: ${statusWords(r)}`,
    `part ${r.part} of upload ${r.uploadId} (${r.partKey})`,
    `started ${r.startedAt ?? '-'}${r.finishedAt ? `, finished ${r.finishedAt}` : ''}`,
    // An ended part has no look to come: its window alone.
    ...(r.watch ? [`window: ${r.watch.window.description}${isEnded(r) ? '' : `; ${look}`}`] : []),
    ...(r.control ? [`operator asked: ${r.control.wanted} at ${r.control.at}`] : []),
    ...(r.failure ? [`failure: ${r.failure.message}`] : []),
    ...(r.secured ? [`secured by ${r.secured.by}: ${r.secured.outcome} (${r.secured.reason})`] : []),
    ...(events.length
      ? ['timeline:', ...events.map((t) => `  ${t.at}  ${t.what}`)]
      : ['timeline: no pause, resume or brake yet']),
  ];
}

export const campaignCommand: Command = {
  name: 'campaign',
  summary:
    'list campaigns, show one, pause, resume or cancel one (a pause is sent to the API at once), release a brake',
  usage:
    'campaign list [--json] | show <campaign id> [--json] | pause|resume|cancel|release <campaign id> | outcomes <campaign id> [--csv | --xlsx] [--out FILE]',
  allowPositionals: true,
  options: { ...OUTCOMES_OPTIONS, json: { type: 'boolean' } },
  help: [
    'list                 every part: campaign id, status, part key, what the operator asked, last pause/resume',
    'show <campaign id>   one part: window, timeline, failure (also takes a part key)',
    'pause|resume|cancel <campaign id>',
    '  A manual pause outranks the calling window; resume never opens a closed window; cancel pauses the',
    '  campaign for good and ends its part as cancelled, and is final: a pause or resume asked after it is refused.',
    '  The campaign id is in `campaign list` and the part report (a part key is taken too).',
    '  Pause and cancel also pause the campaign on the Voice API at once (VOICE_API_URL and VOICE_API_KEY, or the',
    "  running stack), so dialling stops now rather than at the workflow's next step; a campaign the API will not",
    '  pause now (one waiting for its scheduled start answers 409) is left to its workflow, at its next step.',
    'release <campaign id>',
    '  A part that ended holding the brake (its agent switched off: its workflow stopped, or it was cancelled with',
    '  a resume in doubt) keeps it until an operator lets go. Through the Voice API (VOICE_API_URL and VOICE_API_KEY,',
    '  or the running stack) it pauses the campaign first, and refuses while the API will not confirm the pause,',
    '  or while a resume whose answer was lost may still be carried out (until the opening after the next close,',
    '  unless the campaign is cancelled or deleted in the vendor dashboard); the last part to let go switches the',
    '  agent on again. With no API to reach it lets go in the register only (and not while such a resume may',
    '  land): switch the agent on in the vendor dashboard once the campaign shows paused there.',
    '',
    'Works on the deployed table when CAMPAIGNS_TABLE is set (with the usual AWS credentials and region), on the',
    'running `callsheet local` or `callsheet run` of $CALLSHEET_DATA_DIR (default .callsheet/) when one runs,',
    'otherwise on that directory itself.',
    '',
    ...OUTCOMES_HELP,
  ],
  async run(values, positionals) {
    const [action, id, ...extra] = positionals;
    if (action === 'outcomes') return runOutcomes(values, positionals.slice(1));
    const json = values.json === true;
    if (action === 'list') {
      if (id) throw new UsageError('list takes no campaign id');
      const t = await openTable('campaigns');
      try {
        const records = await partRecords(t);
        if (json) console.log(JSON.stringify(records, null, 2));
        else if (records.length === 0) console.log(`No campaigns in ${t.where}.`);
        else for (const r of records) console.log(partLine(r));
        return 0;
      } finally {
        await t.close();
      }
    }
    if (action === 'show') {
      if (!id || extra.length > 0) throw new UsageError('say show, then one campaign id');
      const t = await openTable('campaigns');
      try {
        const r = findPart(await partRecords(t), id);
        if (!r) {
          console.error(`callsheet campaign: no campaign ${id} in ${t.where}`);
          return 1;
        }
        console.log(json ? JSON.stringify(r, null, 2) : showPart(r).join('\n'));
        return 0;
      } finally {
        await t.close();
      }
    }
    if (action === 'release') {
      if (!id || extra.length > 0) throw new UsageError('say release, then one campaign id');
      return releaseBrake(id);
    }
    if (!ACTIONS.includes(action as ManualControl) || !id || extra.length > 0)
      throw new UsageError('say list, show, pause, resume, cancel or release, then the campaign id');
    const t = await openTable('campaigns');
    const store = new CampaignStore(t.db, t.table);
    try {
      const session = await operatorSession(store);
      const { partKey, campaignId } = await new CampaignControl(store, () => session.at).request(
        id,
        action as ManualControl,
      );
      // Recorded first, so a look that reads it does not resume (and one under way checks again before it
      // resumes); then a pause or cancel stops the dialling now rather than at the workflow's next look, up to
      // POLL_MAX_SECONDS away. A resume waits for the workflow, which alone knows whether the window is open.
      const safety = action === 'resume' ? null : session.safety;
      const api = safety ? await safety.confirmPaused(campaignId) : null;
      const onApi = api && pauseWords(api);
      const step = !api?.ok ? 'acts on it' : action === 'cancel' ? 'cancels it' : 'records it';
      if (t.live)
        console.log(
          `${action} requested for campaign ${campaignId} (part ${partKey})${onApi ? `: ${onApi}` : ''}; its workflow ${step} at its next step.`,
        );
      else
        console.log(
          `${action} recorded for campaign ${campaignId} (part ${partKey}), but no callsheet stack is running on ${t.where}: ` +
            'its workflow stopped with it, so nothing else acts on this now' +
            (onApi ? `; ${onApi}.` : '. The campaign on the API stays as it was left.'),
        );
      // The API has no cancel: the campaign stays paused at the vendor, and the sweeper watches it for a week only.
      if (action === 'cancel')
        console.log(
          "The campaign stays paused at the vendor (its call logs serve the report); for a week after the part ends the sweeper pauses it again if it dials (resumed in the vendor's dashboard). Cancel it in the vendor's dashboard too if nobody should ever resume it there.",
        );
      return 0;
    } finally {
      await t.close();
    }
  },
};

/** What the Voice API made of an operator's pause, in words. */
function pauseWords(api: Awaited<ReturnType<CampaignSafety['confirmPaused']>>): string {
  if (!api.ok) return `the Voice API did not confirm a pause now: ${api.message}`;
  return api.how === 'paused' ? 'paused on the Voice API now' : `not dialling on the Voice API: ${api.message}`;
}

/** `campaign release`: lets go of the brake an ended part holds, and says what is left to do. */
async function releaseBrake(id: string): Promise<number> {
  const t = await openTable('campaigns');
  const store = new CampaignStore(t.db, t.table);
  try {
    if (!t.live) {
      // A data directory no stack runs on: a live part there lost its workflow when its stack stopped.
      const record = await store.get((await store.partOfCampaign(id)) ?? id);
      if (record && !isEnded(record))
        throw new Error(
          `campaign ${id} is still recorded as ${record.status}, but no callsheet stack runs on ${t.where}: its workflow ` +
            'stopped with the stack that ran it. Start `callsheet local` (or `callsheet run`) on this data directory: its ' +
            'sweeper ends the part and secures its campaign; then release its brake, if it holds one.',
        );
    }
    const { at, safety } = await operatorSession(store);
    const done = await letGoOfBrake(store, id, safety, at);
    if (!done.held) {
      console.log(`campaign ${id} holds no brake on agent ${done.agentId}; nothing to let go.`);
      return 0;
    }
    if (done.othersHolding > 0) {
      console.log(
        `campaign ${id} let go of the brake on agent ${done.agentId}; ${done.othersHolding} other part(s) still hold it, so the agent stays off.`,
      );
      return 0;
    }
    if (done.agent === 'reactivated') {
      console.log(`campaign ${id} let go of the brake; agent ${done.agentId} is active again.`);
      return 0;
    }
    if (done.agent === 'gone') {
      console.log(
        `campaign ${id} let go of the brake; the Voice API has no agent ${done.agentId} (${done.message}), so there is ` +
          'nothing to switch on. (A restarted `callsheet local` runs a new emulator, with a new agent.)',
      );
      return 0;
    }
    console.log(
      `campaign ${id} let go of the brake; no part holds it now. Switch agent ${done.agentId} on in the vendor dashboard` +
        (done.agent === 'still-inactive'
          ? ` (the Voice API did not: ${done.message}).`
          : ` (no Voice API to reach here), once its campaign shows paused there.`),
    );
    return done.agent === 'still-inactive' ? 1 : 0;
  } finally {
    await t.close();
  }
}
