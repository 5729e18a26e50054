import type { Contact } from '#commons/contact.ts';
import type { ContactUpsertedV1, EventSink } from '#commons/contact-events.ts';

/** The tag every contact of a launched campaign sheet gets. */
export const CAMPAIGN_TAG = 'callsheet-campaign';

/**
 * Intake's hook: the accepted rows of a launched campaign sheet become `Contact Upserted` events (name, custom
 * instruction, the campaign tag), so the contact store knows everyone a campaign called. Event ids come from the
 * upload and the number, so a redelivered upload changes nothing.
 */
export class CampaignContactEvents {
  constructor(private readonly events: EventSink) {}

  async upsertAccepted(uploadId: string, contacts: Contact[]): Promise<void> {
    await this.events.send(
      contacts.map((c) => ({
        event_id: `campaign:${uploadId}:${c.phone}`,
        phone_number: c.phone,
        ...(c.name ? { name: c.name } : {}),
        ...(c.customInstruction ? { custom_instruction: c.customInstruction } : {}),
        tags: [CAMPAIGN_TAG],
      })) satisfies ContactUpsertedV1[],
    );
  }
}
