import yauzl from 'yauzl';
import { FileProblem } from './file-problem.ts';
import type { ReadLimits } from './limits.ts';

export interface WorkbookSheet {
  name: string;
  /** Zip path of the sheet's XML, e.g. `xl/worksheets/sheet2.xml`. */
  path: string;
}

export interface XlsxInspection {
  /** Worksheets in tab order. */
  sheets: WorkbookSheet[];
  externalLinks: number;
}

const SMALL_PARTS = new Set(['xl/workbook.xml', 'xl/_rels/workbook.xml.rels', 'mimetype']);

const bomb = (msg: string) =>
  new FileProblem('zip_bomb', `This file inflates far beyond a contact sheet (${msg}); it was not opened.`);

function openZip(bytes: Buffer): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true, validateEntrySizes: true }, (err, zip) => {
      if (err || !zip)
        reject(
          new FileProblem(
            'corrupt',
            `The file is damaged or truncated and cannot be opened as .xlsx (${err?.message}).`,
          ),
        );
      else resolve(zip);
    });
  });
}

/**
 * Checks an .xlsx before any parser sees it: declared and actual inflated sizes, per-entry inflate ratio (the
 * headers of a crafted file can lie, so every entry is inflated here with a running count and abandoned the moment
 * it passes a bound), and reads the workbook's sheet list.
 */
export async function inspectXlsx(bytes: Buffer, limits: ReadLimits): Promise<XlsxInspection> {
  const zip = await openZip(bytes);
  const small = new Map<string, string>();
  let total = 0;
  let externalLinks = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('error', (err: Error) =>
        reject(err instanceof FileProblem ? err : new FileProblem('corrupt', `The file is damaged: ${err.message}.`)),
      );
      zip.on('end', () => resolve());
      zip.on('entry', (entry: yauzl.Entry) => {
        if (entry.fileName.startsWith('xl/externalLinks/')) externalLinks++;
        if ((entry.generalPurposeBitFlag & 0x1) !== 0) {
          reject(
            new FileProblem(
              'encrypted',
              'The file is password-protected. Remove the password in your spreadsheet program and upload it again.',
            ),
          );
          return;
        }
        if (total + entry.uncompressedSize > limits.maxUncompressedBytes) {
          reject(bomb(`it declares more than ${limits.maxUncompressedBytes} bytes`));
          return;
        }
        const ratioLimit = Math.max(limits.ratioFloorBytes, entry.compressedSize * limits.maxInflateRatio);
        if (entry.uncompressedSize > ratioLimit) {
          reject(
            bomb(
              `${entry.fileName} declares a ${Math.round(entry.uncompressedSize / Math.max(1, entry.compressedSize))}:1 inflate ratio`,
            ),
          );
          return;
        }
        zip.openReadStream(entry, (err, stream) => {
          if (err || !stream) {
            reject(new FileProblem('corrupt', `The file is damaged: ${err?.message ?? 'unreadable entry'}.`));
            return;
          }
          let inflated = 0;
          const keep = SMALL_PARTS.has(entry.fileName);
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => {
            inflated += chunk.length;
            total += chunk.length;
            if (inflated > ratioLimit || total > limits.maxUncompressedBytes) {
              stream.destroy();
              reject(bomb(`${entry.fileName} inflates past what its size allows`));
              return;
            }
            if (keep) chunks.push(chunk);
          });
          stream.on('error', (e: Error) =>
            reject(
              /too many bytes|too few bytes/.test(e.message)
                ? bomb(`${entry.fileName} is larger than its header says`)
                : new FileProblem('corrupt', `The file is damaged: ${e.message}.`),
            ),
          );
          stream.on('end', () => {
            if (keep) small.set(entry.fileName, Buffer.concat(chunks).toString('utf8'));
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  } finally {
    zip.close();
  }

  if (small.get('mimetype')?.includes('opendocument')) {
    throw new FileProblem(
      'unsupported_format',
      'This is an OpenDocument spreadsheet (.ods). Save it as .xlsx (Excel) or .csv and upload it again.',
    );
  }
  const workbook = small.get('xl/workbook.xml');
  const rels = small.get('xl/_rels/workbook.xml.rels');
  if (!workbook || !rels) {
    throw new FileProblem(
      'unsupported_format',
      'This zip file is not an Excel workbook (.xlsx). Save the sheet as .xlsx or .csv and upload it again.',
    );
  }
  return { sheets: sheetList(workbook, rels), externalLinks };
}

const attr = (tag: string, name: string): string | undefined =>
  new RegExp(`\\b${name}="([^"]*)"`)
    .exec(tag)?.[1]
    ?.replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'");

/** Sheet names in tab order with the zip path of each, from workbook.xml and its relationships. */
function sheetList(workbookXml: string, relsXml: string): WorkbookSheet[] {
  const targets = new Map<string, string>();
  for (const m of relsXml.matchAll(/<Relationship\b[^>]*>/g)) {
    const id = attr(m[0], 'Id');
    const target = attr(m[0], 'Target');
    if (id && target) targets.set(id, target.startsWith('/') ? target.slice(1) : `xl/${target}`);
  }
  const sheets: WorkbookSheet[] = [];
  for (const m of workbookXml.matchAll(/<(?:\w+:)?sheet\b[^>]*>/g)) {
    const name = attr(m[0], 'name');
    const rid = attr(m[0], 'r:id') ?? attr(m[0], 'id');
    const path = rid ? targets.get(rid) : undefined;
    if (name !== undefined && path) sheets.push({ name, path });
  }
  return sheets;
}
