/**
 * The DynamoDB tables callsheet uses and their partition keys (string, no sort key). CDK creates them in AWS and
 * the local stack creates them in dynalite from this one list. `ttl` names the attribute DynamoDB expires items by
 * (dynalite has no TTL: local items simply stay). Each of `indexes` is a global secondary index keyed by a string
 * attribute, holding the keys and the attributes `include` names (an item without the attribute is not in it).
 */
export const TABLES = {
  uploads: { partitionKey: 'pk', env: 'UPLOADS_TABLE' },
  /** One item per number, and the shards intake reads (`#shard-<n>`, `#indexed`; suppression-list.ts). */
  suppression: { partitionKey: 'phone', env: 'SUPPRESSION_TABLE' },
  /**
   * One item per part (`part#…`) and the agents' brakes. Parts by status (`by-status`), with what the sweeper
   * asks of a failed or cancelled one: it lists the unfinished parts there instead of scanning every part ever run.
   * Parts that ended without completing, by the day they ended (`by-end-day`, `endedDay`), with what the sweeper
   * needs to watch their campaigns' calls for a week.
   */
  campaigns: {
    partitionKey: 'pk',
    env: 'CAMPAIGNS_TABLE',
    indexes: [
      { name: 'by-status', partitionKey: 'status', include: ['secured'] },
      { name: 'by-end-day', partitionKey: 'endedDay', include: ['status', 'campaignId', 'finishedAt', 'secured'] },
    ],
  },
  /**
   * Call outcomes (`call#<id>`, indexed per `campaign#<id>`), webhook replay claims (`event#…`), call counts
   * (`caps#<shard>`, `caps#indexed`, frequency-cap-store.ts; `cap#<phone>` as kept before the shards,
   * legacy-caps.ts), when an upgrade to the shards was first seen (`reindex#upgrade`, functions/intake/reindex/),
   * events for calls the API does not know (`unknown-call#<id>`).
   */
  outcomes: { partitionKey: 'pk', env: 'OUTCOMES_TABLE', ttl: 'expiresAt' },
  /** Contact state, its notes and the event ids seen (functions/contacts/contact-store.ts). */
  contacts: { partitionKey: 'pk', env: 'CONTACTS_TABLE', ttl: 'expiresAt' },
  /** The account-wide Voice API budget every caller takes tokens from (functions/commons/api-budget/). */
  apiBudget: { partitionKey: 'pk', env: 'API_BUDGET_TABLE', ttl: 'expiresAt' },
} as const;

export type TableName = keyof typeof TABLES;
