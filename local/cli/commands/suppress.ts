import { isCountryCode, normalizePhone } from '#commons/phone/phone.ts';
import { SuppressionList } from '#commons/suppression-list.ts';
import { counted } from '#commons/words.ts';
import { type Command, UsageError } from '../command.ts';
import { openTable } from '../table-access.ts';

const ACTIONS = ['add', 'remove', 'list', 'reindex'] as const;

export const suppressCommand: Command = {
  name: 'suppress',
  summary: 'add, remove or list numbers on the do-not-call list that intake removes from every upload',
  usage: 'suppress add|remove <phone>... [--country CC] [--reason TEXT] | suppress list [--json] | suppress reindex',
  allowPositionals: true,
  options: { country: { type: 'string' }, reason: { type: 'string' }, json: { type: 'boolean' } },
  help: [
    'actions:',
    '  add <phone>...     put numbers on the list (written in E.164, or national with --country); a number',
    '                     already listed keeps its reason and date',
    '  remove <phone>...  take numbers off the list',
    '  list               show every number on the list',
    '  reindex            put every number of the list in the shards intake checks (done by any of these',
    '                     actions when a list from before the shards has none; until then intake looks',
    '                     numbers up one by one)',
    'options:',
    '  --country CC       country for numbers written without a country code',
    '  --reason TEXT      why the numbers may not be called (default: "opted out")',
    '  --json             list: print a JSON array',
    '',
    'Works on the deployed table when SUPPRESSION_TABLE is set (with the usual AWS credentials and region),',
    'otherwise on the local stack in $CALLSHEET_DATA_DIR (default .callsheet/) that `callsheet run` uses.',
  ],
  async run(values, positionals) {
    const [action, ...numbers] = positionals;
    if (!ACTIONS.includes(action as (typeof ACTIONS)[number]))
      throw new UsageError(`say what to do: ${ACTIONS.join(', ')}`);
    const country = (values.country as string | undefined)?.toUpperCase();
    if (country !== undefined && !isCountryCode(country))
      throw new UsageError(`--country ${values.country} is not an ISO 3166 country code`);
    const bare = action === 'list' || action === 'reindex';
    if (bare && numbers.length > 0) throw new UsageError(`${action} takes no numbers`);
    if (!bare && numbers.length === 0) throw new UsageError(`give the numbers to ${action}`);

    const phones = numbers.map((input) => {
      const result = normalizePhone(input, country);
      if (!result.ok)
        throw new UsageError(
          `${JSON.stringify(input)} is not a valid phone number${country ? ` for ${country}` : ' (write it as +<country code><number>, or give --country)'}`,
        );
      return result.e164;
    });

    const { db, table, where, close } = await openTable('suppression');
    const list = new SuppressionList(db, table);
    try {
      if (action === 'reindex') {
        const count = await list.reindex();
        console.log(`${count} number(s) of the suppression list in ${where} are in its shards.`);
        return 0;
      }
      if (await list.ensureIndexed()) console.error(`Indexed the suppression list in ${where} (once).`);
      if (action === 'add') {
        const { added, already } = await list.add(phones, (values.reason as string | undefined) ?? 'opted out', 'cli');
        if (added.length > 0)
          console.log(
            `${counted(added.length, 'number')} added to the suppression list in ${where}: ${added.join(', ')}`,
          );
        for (const s of already)
          console.log(
            `${s.phone} was already on the list: ${s.reason} (added ${s.addedAt} by ${s.source}); kept as it was.`,
          );
      } else if (action === 'remove') {
        const { removed, notListed } = await list.remove(phones);
        if (removed.length > 0)
          console.log(
            `${counted(removed.length, 'number')} taken off the suppression list in ${where}: ${removed.join(', ')}`,
          );
        if (notListed.length > 0)
          console.log(`Not on the suppression list in ${where}, so nothing to take off: ${notListed.join(', ')}`);
      } else {
        const all = await list.list();
        if (values.json) console.log(JSON.stringify(all, null, 2));
        else if (all.length === 0) console.log(`The suppression list in ${where} is empty.`);
        else for (const s of all) console.log(`${s.phone}  ${s.reason}  (added ${s.addedAt} by ${s.source})`);
      }
    } finally {
      await close();
    }
    return 0;
  },
};
