import { describe, expect, it } from 'vitest';
import { SuppressionList } from '#commons/suppression-list.ts';
import { writeOutcomeReport } from '#lifecycle/part-end/campaign-report.ts';
import { usePipeline } from '../helpers/pipeline.ts';
import { phones } from '../helpers/sheets.ts';
import { runWithWebhooks, stackDb } from './webhook-run.ts';

const p = usePipeline();

describe('opt-outs spoken on a call', () => {
  it('suppresses at once a number whose contact says an opt-out phrase, in English or Hindi', async () => {
    const [english, hindi, plain] = phones(3, '+1415581') as [string, string, string];
    const { campaignId } = await runWithWebhooks(
      p,
      [
        [english, 'Eng', 'Be brief. [emulator:opt-out]'],
        [hindi, 'Hin', '[emulator:opt-out:hi]'],
        [plain, 'Plain', 'Be brief.'],
      ],
      'optout',
      { answerRate: 1 },
    );
    const suppressed = await new SuppressionList(stackDb(p), p.stack.dynamo.tables.suppression).list();
    const mine = suppressed.filter((s) => [english, hindi, plain].includes(s.phone));
    expect(mine.map((s) => s.phone).sort()).toEqual([english, hindi].sort());
    expect(mine.every((s) => s.source === 'transcript')).toBe(true);
    const contacts = await p.stack.webhooks.outcomes.contactOutcomes(campaignId);
    expect(contacts.find((c) => c.phone === english)?.optOutPhrase).toBe('do not call me');
    expect(contacts.find((c) => c.phone === hindi)?.optOutPhrase).toBe('दोबारा कॉल मत करना');
    expect(contacts.find((c) => c.phone === plain)?.optOutPhrase).toBeNull();

    // At campaign end the per-contact table lands under reports/ and says who was suppressed mid-campaign.
    const report = await writeOutcomeReport(p.stack.webhooks.outcomes, p.stack.objects, {
      bucket: p.stack.bucket,
      reportPrefix: 'reports/test-upload/',
      part: 1,
      campaignId,
      since: new Date(0),
    });
    expect(report.suppressedMidCampaign.sort()).toEqual([english, hindi].sort());
    const csv = (await p.stack.objects.get(p.stack.bucket, report.keys.csv))?.bytes.toString('utf8') ?? '';
    const lines = csv.trimEnd().split('\r\n');
    expect(lines).toHaveLength(4);
    expect(lines.find((l) => l.startsWith(`"${english}",`))).toContain('suppressed mid-campaign');
    expect(lines.find((l) => l.startsWith(`"${plain}",`))).not.toContain('suppressed');
    expect((await p.stack.objects.head(p.stack.bucket, report.keys.xlsx))?.eTag).toBeTruthy();
  });
});
