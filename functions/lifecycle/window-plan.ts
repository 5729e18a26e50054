import { type CallingWindow, describeWindow, parseWindowRules } from '../commons/calling-window.ts';
import type { CampaignPlan } from '../commons/campaign-plan.ts';

/** Default calling hours by destination country, local time; `*` for every other country. */
export const DEFAULT_WINDOWS: Record<string, string> = {
  US: 'daily 08:00-21:00',
  CA: 'daily 08:00-21:00',
  IN: 'daily 09:00-21:00',
  GB: 'Mon-Fri 08:00-21:00; Sat,Sun 09:00-21:00',
  '*': 'Mon-Fri 09:00-18:00',
};

export interface PartWindow extends CallingWindow {
  timeZone: string;
  /** Where the hours came from, for the report. */
  source: 'upload' | 'country default' | 'deployment default';
  description: string;
}

/** The window a part is called in: the upload's own, else the default for the part's country, in the part's zone. */
export function partWindow(plan: CampaignPlan, defaults: Record<string, string>, fallbackZone: string): PartWindow {
  const timeZone = plan.part.timeZone ?? fallbackZone;
  const holidays = plan.window.holidays;
  if (plan.window.rules) {
    const w = { rules: plan.window.rules, holidays };
    return { ...w, timeZone, source: 'upload', description: describeWindow(w) };
  }
  const country = plan.part.country ?? '';
  const spec = defaults[country] ?? defaults['*'] ?? (DEFAULT_WINDOWS['*'] as string);
  const w = { rules: parseWindowRules(spec), holidays };
  return {
    ...w,
    timeZone,
    source: defaults[country] ? 'country default' : 'deployment default',
    description: `${describeWindow(w)} (${defaults[country] ? `default for ${country}` : 'deployment default'})`,
  };
}
