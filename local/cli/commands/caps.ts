import { DEFAULT_CAP_LIMITS } from '#commons/frequency-cap.ts';
import { FrequencyCapStore } from '#commons/frequency-cap-store.ts';
import { type Command, UsageError } from '../command.ts';
import { openTable } from '../table-access.ts';

export const capsCommand: Command = {
  name: 'caps',
  summary: 'frequency caps: fold call counts kept before an upgrade into the shards intake reads (caps reindex)',
  usage: 'caps reindex',
  allowPositionals: true,
  options: {},
  help: [
    'actions:',
    '  reindex  put the call reservations of the last 7 days kept by versions before the cap shards',
    '           (one `cap#<phone>` item per number) into the shards, then mark the table indexed. Until',
    '           then intake and follow-up rounds read those items too (one request per 100 numbers), so no',
    '           number is called past its cap; after it they read the shards only. Safe to run again.',
    '',
    'Works on the deployed outcomes table when OUTCOMES_TABLE is set (with the usual AWS credentials and',
    'region), otherwise on the local stack in $CALLSHEET_DATA_DIR (default .callsheet/), which does this',
    'itself when it starts. A deployed stack does it by itself once no function or campaign of the',
    'version before runs (docs/operations.md); this marks at once, without waiting.',
  ],
  async run(_values, positionals) {
    const [action, ...extra] = positionals;
    if (action !== 'reindex') throw new UsageError('say what to do: reindex');
    if (extra.length > 0) throw new UsageError('reindex takes nothing more');
    const { db, table, where, close } = await openTable('outcomes');
    try {
      // The limits play no part in folding reservations.
      const { numbers, added } = await new FrequencyCapStore(db, table, DEFAULT_CAP_LIMITS).reindex();
      console.log(
        `${numbers} number(s) with calls counted before the cap shards in ${where}; ${added} reservation(s) added to the shards now. The table is marked indexed.`,
      );
    } finally {
      await close();
    }
    return 0;
  },
};
