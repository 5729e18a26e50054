import { writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { partReportFiles, reportKeys, reportPrefix } from '#commons/report-keys.ts';
import { counted } from '#commons/words.ts';
import { localDataDir } from '#local/stack/data-dir.ts';
import { reportPageFor } from '#local/stack/report-pages.ts';
import { type Command, outFolder, UsageError } from '../command.ts';
import { downloadReports, findPart, openReports, partRecords } from '../operator.ts';
import { openTable } from '../table-access.ts';

export const reportCommand: Command = {
  name: 'report',
  summary: "a campaign's report: summary, and its JSON, HTML page and per-contact exports copied to a folder",
  usage: 'report <campaign id> [--out DIR] [--json]',
  allowPositionals: true,
  options: { out: { type: 'string' }, json: { type: 'boolean' } },
  help: [
    'arguments:',
    '  <campaign id>  from `callsheet campaign list` (a part key works too)',
    'options:',
    '  --out DIR      where the files go (default <data dir>/reports/<upload id>/)',
    '  --json         print the part report itself',
    '',
    'Reads the reports from the deployed bucket when CALLSHEET_BUCKET is set, from the running `callsheet local`',
    'or `run` of $CALLSHEET_DATA_DIR, or else from the copies it keeps in <data dir>/reports/. The HTML page is',
    'one self-contained file: calls over time with the paused stretches, pauses and resumes, per-contact outcomes',
    'and rejected rows. Also copied when the bucket has them: the stats the local stack sampled, the intake report',
    "and the upload annotated with each rejected row's reason.",
  ],
  async run(values, positionals) {
    const [id, ...extra] = positionals;
    if (!id || extra.length > 0) throw new UsageError('give one campaign id');
    const t = await openTable('campaigns');
    let record: Awaited<ReturnType<typeof partRecords>>[number] | null;
    try {
      record = findPart(await partRecords(t), id);
    } finally {
      await t.close();
    }
    if (!record) {
      console.error(`callsheet report: no campaign ${id} in ${t.where}`);
      return 1;
    }
    const label = String(record.part);
    const files = partReportFiles(reportPrefix(record.uploadId), label);
    const jsonKey = files.json;
    const source = await openReports();
    try {
      const json = await source.get(jsonKey);
      if (!json) {
        const live = record.status === 'running' || record.status === 'creating';
        console.error(
          live
            ? `callsheet report: campaign ${id} is ${record.status}; its report is written when it ends (none in ${source.where} yet)`
            : `callsheet report: campaign ${id} ended (${record.status}) without a part report in ${source.where}: its workflow was stopped before it could write one (see callsheet campaign show ${id})`,
        );
        return 1;
      }
      if (values.json === true) {
        process.stdout.write(json.toString('utf8'));
        return 0;
      }
      const out = await outFolder(
        (values.out as string | undefined) ?? join(localDataDir(), 'reports', record.uploadId),
      );
      const downloaded = await downloadReports(
        source,
        [
          jsonKey,
          files.html,
          files.outcomesCsv,
          files.outcomesXlsx,
          files.stats,
          reportKeys(record.uploadId).json,
          reportKeys(record.uploadId).annotated,
        ],
        out,
      );
      const htmlFile = join(out, basename(files.html));
      if (!downloaded.includes(htmlFile)) {
        // A deployed stack writes no page: render it here from what it wrote.
        const page = await reportPageFor((key) => source.get(key), jsonKey, record.watch?.window);
        if (page) {
          await writeFile(htmlFile, page);
          downloaded.push(htmlFile);
        }
      }
      const r = JSON.parse(json.toString('utf8')) as {
        status: string;
        stats: Record<string, number> | null;
        pauses: unknown[];
        resumes: unknown[];
        failure: { message: string } | null;
      };
      const s = r.stats;
      console.log(
        `campaign ${id}: ${r.status}${r.failure ? ` — ${r.failure.message}` : ''}; ` +
          (s
            ? `${counted(s.total ?? 0, 'contact')}, ${s.completed ?? 0} completed, ${s.failed ?? 0} failed, ${s.pending ?? 0} not called`
            : 'no stats') +
          `; ${r.pauses.length} pause(s), ${r.resumes.length} resume(s)`,
      );
      for (const f of downloaded) console.log(f);
      return 0;
    } finally {
      source.close();
    }
  },
};
