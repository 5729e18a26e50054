import type { CampaignStore, ManualControl } from './campaign-store.ts';

/**
 * What an operator asks of a running campaign. The wish is recorded; the workflow acts on it at its next step,
 * through the API. A manual pause outranks the calling window; a resume never opens a closed window.
 */
export class CampaignControl {
  constructor(
    private readonly store: CampaignStore,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async request(campaignId: string, wanted: ManualControl): Promise<{ partKey: string; status: string }> {
    const partKey = await this.store.partOfCampaign(campaignId);
    if (!partKey) throw new Error(`callsheet has no campaign ${campaignId} (check the id in the part report)`);
    const record = await this.store.get(partKey);
    if (!record || !['creating', 'running'].includes(record.status))
      throw new Error(`campaign ${campaignId} has already ended (${record?.status ?? 'unknown'})`);
    await this.store.setControl(partKey, wanted, this.now());
    return { partKey, status: record.status };
  }
}
