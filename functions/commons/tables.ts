/**
 * The DynamoDB tables callsheet uses and their partition keys (string, no sort key). CDK creates them in AWS and
 * the local stack creates them in dynalite from this one list. `ttl` names the attribute DynamoDB expires items by
 * (dynalite has no TTL: local items simply stay). `index` is a global secondary index keyed by a string attribute,
 * holding the keys and the attributes `include` names.
 */
export const TABLES = {
  uploads: { partitionKey: 'pk', env: 'UPLOADS_TABLE' },
  /** One item per number, and the shards intake reads (`#shard-<n>`, `#indexed`; suppression-list.ts). */
  suppression: { partitionKey: 'phone', env: 'SUPPRESSION_TABLE' },
  /**
   * One item per part (`part#…`) and the agents' brakes. Parts by status (`by-status`), with what the sweeper
   * asks of a failed or cancelled one: it lists the unfinished parts there instead of scanning every part ever run.
   */
  campaigns: {
    partitionKey: 'pk',
    env: 'CAMPAIGNS_TABLE',
    index: { name: 'by-status', partitionKey: 'status', include: ['secured'] },
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
