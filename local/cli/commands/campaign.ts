import { CampaignControl } from '../../../functions/lifecycle/campaign-control.ts';
import { CampaignStore, type ManualControl } from '../../../functions/lifecycle/campaign-store.ts';
import { type Command, UsageError } from '../command.ts';
import { openTable } from '../table-access.ts';
import { OUTCOMES_HELP, OUTCOMES_OPTIONS, runOutcomes } from './outcomes.ts';

const ACTIONS: ManualControl[] = ['pause', 'resume', 'cancel'];

export const campaignCommand: Command = {
  name: 'campaign',
  summary: 'pause, resume or cancel a running campaign; its workflow acts on it at its next step',
  usage: 'campaign pause|resume|cancel <campaign id> | campaign outcomes <campaign id> [--csv | --xlsx] [--out FILE]',
  allowPositionals: true,
  options: OUTCOMES_OPTIONS,
  help: [
    'A manual pause outranks the calling window; resume never opens a closed window; cancel pauses the',
    'campaign for good and ends its part as cancelled. The campaign id is in the part report.',
    '',
    'Works on the deployed table when CAMPAIGNS_TABLE is set (with the usual AWS credentials and region),',
    'otherwise on the local stack in $CALLSHEET_DATA_DIR (default .callsheet/).',
    '',
    ...OUTCOMES_HELP,
  ],
  async run(values, positionals) {
    if (positionals[0] === 'outcomes') return runOutcomes(values, positionals.slice(1));
    const [action, id, ...extra] = positionals;
    if (!ACTIONS.includes(action as ManualControl) || !id || extra.length > 0)
      throw new UsageError('say pause, resume or cancel, then the campaign id');
    const { db, table, close } = await openTable('campaigns');
    const store = new CampaignStore(db, table);
    try {
      const { partKey } = await new CampaignControl(store).request(id, action as ManualControl);
      console.log(`${action} requested for campaign ${id} (part ${partKey}); its workflow acts at its next step.`);
      return 0;
    } finally {
      await close();
    }
  },
};
