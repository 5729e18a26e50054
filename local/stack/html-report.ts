import { RESUME_IN_DOUBT } from '#lifecycle/part-report.ts';
/**
 * One campaign part's report as a single self-contained HTML page (no scripts, no external files): what happened,
 * calls finished over time as an inline SVG chart with the paused stretches shaded (closed window, operator), the
 * pause/resume timeline, per-contact outcomes and the upload's rejected rows. Pure: it renders what it is given.
 */

/** The fields of a part report (reports/<upload>/part-N.json) the page shows; anything else is ignored. */
export interface PartReportView {
  uploadId?: string;
  part: number;
  of?: number;
  campaignId: string | null;
  campaignName?: string;
  status: string;
  failure?: { code: string; message: string } | null;
  stats: Record<string, number> | null;
  window?: { zones?: string[]; hours?: string; clipped?: boolean } | null;
  pauses: { at: string; reason: string }[];
  resumes: { at: string }[];
  brakes?: { at: string; event: string; reason?: string }[];
  startedAt?: string;
  finishedAt?: string;
  outcomes?: { exports?: { csv?: string }; suppressedMidCampaign?: string[] } | null;
  /** A follow-up round's number (1 is the first calling of the sheet). */
  round?: number;
  /** On a root part's report: the follow-up rounds started after it. */
  followUpRounds?: { round: number; contacts: number; outcomes: string[]; notBefore: string }[];
}

/** The campaign's stats at one instant (sampled while it ran). */
export interface StatsSample {
  at: string;
  total: number;
  completed: number;
  failed: number;
  pending: number;
  in_progress: number;
}

export interface ReportPageInput {
  /** When the part's calling window was open (in all its zones) between its start and end, in ms. */
  windowOpen?: { from: number; to: number }[];
  /** Stats sampled while the campaign ran, oldest first; without them the chart uses each contact's last call. */
  samples?: StatsSample[];
  part: PartReportView;
  /** The upload's rejected rows (intake report), when known. */
  rejected?: { row: number; reason: string; input: string }[];
  /** What intake said up front (intake report `notes`): rows it could not place, an API plan too small for the parts. */
  notes?: string[];
  /** The per-contact table (outcomes-part-N.csv) as header and rows, when written. */
  outcomes?: { header: string[]; rows: string[][] } | null;
}

const esc = (s: unknown): string =>
  String(s ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

/** RFC 4180 CSV (quotes, doubled quotes, CRLF) into rows of cells. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += c;
  }
  if (cell !== '' || row.length > 0) rows.push([...row, cell]);
  return rows;
}

/** Paused stretches from the timeline: each pause until the next resume (or the end). */
export function pausedStretches(part: PartReportView, end: number): { from: number; to: number; reason: string }[] {
  const events = [
    ...part.pauses.map((p) => ({ at: Date.parse(p.at), kind: 'pause' as const, reason: p.reason })),
    ...part.resumes.map((r) => ({ at: Date.parse(r.at), kind: 'resume' as const, reason: '' })),
  ].sort((a, b) => a.at - b.at);
  const out: { from: number; to: number; reason: string }[] = [];
  let open: { from: number; reason: string } | null = null;
  for (const e of events) {
    if (e.kind === 'pause' && !open) open = { from: e.at, reason: e.reason };
    else if (e.kind === 'resume' && open) {
      out.push({ ...open, to: e.at });
      open = null;
    }
  }
  if (open) out.push({ ...open, to: end });
  return out;
}

const REASON_LABEL: Record<string, string> = {
  window: 'calling window closed',
  manual: 'by an operator',
  cancel: 'cancelled',
  [RESUME_IN_DOUBT]: "a resume's answer was lost: the agent is off until the window opens",
};
const reasonLabel = (r: string) => REASON_LABEL[r] ?? r;

/** Points (time, finished, completed) of the chart: sampled stats, else each contact's last call. */
function series(
  part: PartReportView,
  input: ReportPageInput,
  end: number,
): { t: number; finished: number; completed: number | null }[] {
  if (input.samples?.length) {
    const points = input.samples.map((s) => ({
      t: Date.parse(s.at),
      finished: s.completed + s.failed,
      completed: s.completed as number | null,
    }));
    if (part.stats)
      points.push({
        t: end,
        finished: (part.stats.completed ?? 0) + (part.stats.failed ?? 0),
        completed: part.stats.completed ?? 0,
      });
    return points.filter((p) => !Number.isNaN(p.t)).sort((a, b) => a.t - b.t);
  }
  const outcomes = input.outcomes;
  // 'Last Call At' in reports written before the column said it was the end.
  const at = Math.max(
    outcomes?.header.indexOf('Last Call Ended At') ?? -1,
    outcomes?.header.indexOf('Last Call At') ?? -1,
  );
  return (outcomes && at >= 0 ? outcomes.rows.map((r) => Date.parse(r[at] ?? '')) : [])
    .filter((t) => !Number.isNaN(t))
    .sort((a, b) => a - b)
    .map((t, i) => ({ t, finished: i + 1, completed: null }));
}

/** Calls finished over time (sampled stats, or cumulative from each contact's last call) with paused stretches shaded. */
function chart(part: PartReportView, input: ReportPageInput): string {
  const start = Date.parse(part.startedAt ?? '');
  const end = Date.parse(part.finishedAt ?? '');
  if (Number.isNaN(start) || Number.isNaN(end) || end <= start) return '<p>No time span to chart.</p>';
  const points = series(part, input, end);
  const total = Math.max(1, part.stats?.total ?? points.at(-1)?.finished ?? 0);
  const W = 720;
  const H = 240;
  const pad = { l: 48, r: 16, t: 16, b: 36 };
  const x = (t: number) => pad.l + ((Math.min(Math.max(t, start), end) - start) / (end - start)) * (W - pad.l - pad.r);
  const y = (n: number) => H - pad.b - (n / total) * (H - pad.t - pad.b);
  const bands = pausedStretches(part, end)
    .map(
      (s) =>
        `<rect class="paused ${esc(s.reason)}" x="${x(s.from).toFixed(1)}" y="${pad.t}" width="${Math.max(1, x(s.to) - x(s.from)).toFixed(1)}" height="${H - pad.t - pad.b}"><title>${esc(reasonLabel(s.reason))}: ${esc(new Date(s.from).toISOString())} – ${esc(new Date(s.to).toISOString())}</title></rect>`,
    )
    .join('');
  const steps = (value: (p: (typeof points)[number]) => number | null) => {
    let d = `M${x(start).toFixed(1)},${y(0).toFixed(1)}`;
    for (const p of points) {
      const v = value(p);
      if (v !== null) d += ` H${x(p.t).toFixed(1)} V${y(v).toFixed(1)}`;
    }
    return `${d} H${x(end).toFixed(1)}`;
  };
  const sampled = points.some((p) => p.completed !== null);
  const strip = H - pad.b + 3;
  const openBands = (input.windowOpen ?? [])
    .filter((w) => w.to > start && w.from < end)
    .map(
      (w) =>
        `<rect class="window-open" x="${x(w.from).toFixed(1)}" y="${strip}" width="${Math.max(1, x(w.to) - x(w.from)).toFixed(1)}" height="5"><title>calling window open: ${esc(new Date(Math.max(w.from, start)).toISOString())} – ${esc(new Date(Math.min(w.to, end)).toISOString())}</title></rect>`,
    )
    .join('');
  const finishedNow = points.at(-1)?.finished ?? 0;
  const label = (t: number) => new Date(t).toISOString().slice(5, 16).replace('T', ' ');
  return `<svg id="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="Calls finished over time">
<rect x="${pad.l}" y="${pad.t}" width="${W - pad.l - pad.r}" height="${H - pad.t - pad.b}" fill="#fff" stroke="#ccc"/>
${bands}
<path class="finished" d="${steps((p) => p.finished)}" fill="none" stroke="#1565c0" stroke-width="2"/>
${sampled ? `<path class="completed" d="${steps((p) => p.completed)}" fill="none" stroke="#2e7d32" stroke-width="1.5" stroke-dasharray="4 2"/>` : ''}
<text x="${pad.l - 6}" y="${y(total) + 4}" text-anchor="end">${total}</text>
<text x="${pad.l - 6}" y="${y(0) + 4}" text-anchor="end">0</text>
${openBands}
<text x="${pad.l}" y="${H - 12}">${esc(label(start))}Z</text>
<text x="${W - pad.r}" y="${H - 12}" text-anchor="end">${esc(label(end))}Z</text>
</svg>
<p class="legend"><span class="key line"></span> calls finished (${finishedNow} of ${total}${sampled ? `; ${input.samples?.length} samples of the campaign's stats` : ", from each contact's last call"})
${sampled ? '<span class="key done"></span> completed' : ''}${input.windowOpen ? ' <span class="key open"></span> calling window open (strip below the plot)' : ''}
<span class="key window"></span> calling window closed <span class="key manual"></span> paused by an operator</p>`;
}

function table(header: string[], rows: (string | number)[][], id: string): string {
  if (rows.length === 0) return `<p id="${id}">None.</p>`;
  return `<table id="${id}"><thead><tr>${header.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`)
    .join('')}</tbody></table>`;
}

export function renderReportPage(input: ReportPageInput): string {
  const { part } = input;
  const which = `part ${part.part}${part.of ? ` of ${part.of}` : ''}`;
  // Intake already names each part of a split upload "(part i of n)": the campaign's name alone, then.
  const title = `${part.campaignName ?? which}${part.round && part.round > 1 ? `, round ${part.round}` : ''}`;
  const stats = part.stats ?? {};
  const timeline = [
    ...part.pauses.map((p) => ({ at: p.at, what: `paused: ${reasonLabel(p.reason)}` })),
    ...part.resumes.map((r) => ({ at: r.at, what: 'resumed' })),
    // A brake says why it was pulled (the failed pause's reason, or a resume in doubt); its release needs no why.
    ...(part.brakes ?? []).map((b) => ({
      at: b.at,
      what: b.event === 'brake' && b.reason ? `brake: ${reasonLabel(b.reason)}` : b.event,
    })),
  ].sort((a, b) => (a.at < b.at ? -1 : 1));
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}
.paused.window{fill:#9e9e9e;opacity:.35}.paused.manual,.paused.cancel{fill:#ef6c00;opacity:.35}
.key{display:inline-block;width:14px;height:10px;margin:0 4px 0 12px}.key.line{background:#1565c0}
.key.window{background:#9e9e9e}.key.done{background:#2e7d32}.key.open,.window-open{background:#66bb6a;fill:#66bb6a}.key.manual{background:#ef6c00}
svg text{font-size:11px;fill:#555}
</style></head><body>
<h1>${esc(title)}</h1>
<p id="status">Status: <strong>${esc(part.status)}</strong>${part.failure ? ` — ${esc(part.failure.message)}` : ''}</p>
<p>Campaign <code id="campaign-id">${esc(part.campaignId ?? 'none')}</code>, ${esc(which)} of upload <code>${esc(part.uploadId ?? '')}</code>.
Calling window: ${esc(part.window?.hours ?? 'unknown')}${part.window?.zones?.length ? ` (${esc(part.window.zones.join(', '))})` : ''}.
From ${esc(part.startedAt ?? '?')} to ${esc(part.finishedAt ?? '?')}.</p>
${input.notes?.length ? `<h2>Intake notes</h2>\n<ul id="notes">${input.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>\n` : ''}<h2>Calls</h2>
${table(
  ['total', 'completed', 'failed', 'pending', 'in progress'],
  [[stats.total ?? 0, stats.completed ?? 0, stats.failed ?? 0, stats.pending ?? 0, stats.in_progress ?? 0]],
  'stats',
)}
<h2>Over time</h2>
${chart(part, input)}
<h2>Pauses and resumes</h2>
${table(
  ['at (UTC)', 'what'],
  timeline.map((t) => [t.at, t.what]),
  'timeline',
)}
${
  part.followUpRounds?.length
    ? `<h2>Follow-up rounds</h2>\n${table(
        ['round', 'contacts', 'calls again', 'not before'],
        part.followUpRounds.map((r) => [r.round, r.contacts, r.outcomes.join(', '), r.notBefore]),
        'rounds',
      )}`
    : ''
}
<h2>Per-contact outcomes</h2>
${input.outcomes ? table(input.outcomes.header, input.outcomes.rows, 'outcomes') : '<p id="outcomes">Not written for this part.</p>'}
${part.outcomes?.suppressedMidCampaign?.length ? `<p>Suppressed while the campaign ran: ${esc(part.outcomes.suppressedMidCampaign.join(', '))}</p>` : ''}
<h2>Rejected rows of the upload</h2>
${table(
  ['row', 'reason', 'input'],
  (input.rejected ?? []).map((r) => [r.row, r.reason, r.input]),
  'rejected',
)}
</body></html>
`;
}
