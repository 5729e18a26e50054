import type { IntakeReport } from '../../functions/intake/report.ts';

/** Seconds as an ISO 8601 duration: PT1H2M3S, or P2DT4H. */
export function isoDuration(seconds: number): string {
  const d = Math.floor(seconds / 86_400);
  const h = Math.floor((seconds % 86_400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = Math.round(seconds % 60);
  const time = `${h ? `${h}H` : ''}${m ? `${m}M` : ''}${s || (!h && !m) ? `${s}S` : ''}`;
  return `P${d ? `${d}D` : ''}${time ? `T${time}` : ''}`;
}

/** The emulator's account as `GET /_emulator/state` shows it: what the summary counts calls from. */
export interface EmulatorCalls {
  credits: number;
  calls: { status: string; started_at: string | null; failure_reason: string | null; campaign_id?: string | null }[];
}

/** What happened to the sheet's rows, in one place: the numbers a user asks about first. */
export function runSummary(intake: IntakeReport | null, emu: EmulatorCalls | null) {
  const rejected = intake?.rejected ?? [];
  const suppressed = rejected.filter((r) => r.reason === 'suppressed').length;
  const placed = emu?.calls.filter((c) => c.started_at !== null) ?? [];
  const failedByReason: Record<string, number> = {};
  for (const c of emu?.calls ?? []) {
    if (c.status === 'completed' || c.status === 'queued' || c.status === 'in_progress' || c.status === 'ringing')
      continue;
    const reason = c.failure_reason ?? c.status;
    failedByReason[reason] = (failedByReason[reason] ?? 0) + 1;
  }
  return {
    rows: intake?.rows.total ?? 0,
    accepted: intake?.rows.valid ?? 0,
    rejected: rejected.length - suppressed,
    suppressed,
    attempted: emu ? emu.calls.length : null,
    called: emu ? placed.length : null,
    answered: emu ? emu.calls.filter((c) => c.status === 'completed').length : null,
    failedByReason: emu ? failedByReason : null,
    creditsLeft: emu ? emu.credits : null,
  };
}

export function summaryLines(s: ReturnType<typeof runSummary>): string[] {
  const failed = Object.entries(s.failedByReason ?? {})
    .map(([reason, n]) => `${n} ${reason.replace(/_/g, ' ')}`)
    .join(', ');
  return [
    `rows: ${s.rows}; accepted ${s.accepted}, rejected ${s.rejected}, suppressed (do-not-call list) ${s.suppressed}`,
    ...(s.called === null
      ? []
      : [
          `calls: ${s.attempted} attempted, ${s.called} dialled, ${s.answered} answered${failed ? `, not answered or failed: ${failed}` : ''}; credits left ${s.creditsLeft} INR`,
        ]),
  ];
}

/** PT2H3M → 2 h 3 min (the JSON keeps ISO 8601). */
export const readableDuration = (iso: string) =>
  iso
    .replace(/^P/, '')
    .replace('T', ' ')
    .replace(/(\d+)D/, '$1 d ')
    .replace(/(\d+)H/, '$1 h ')
    .replace(/(\d+)M/, '$1 min ')
    .replace(/(\d+)S/, '$1 s')
    .trim();
