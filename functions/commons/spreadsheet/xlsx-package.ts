import { posix } from 'node:path';
import { FileProblem } from './file-problem.ts';
import { decodeXstring, parseXml } from './xml-part.ts';
import type { XmlAttributes } from './xml-scanner.ts';
import { type CheckedEntry, notAWorkbook, partBytes } from './zip-guard.ts';

export type SheetState = 'visible' | 'hidden' | 'veryHidden';

/** One tab of the workbook, in the order Excel shows the tabs. */
export interface PackageSheet {
  name: string;
  state: SheetState;
  /** The worksheet's part; null for a tab that holds no cells (a chart sheet, a dialog or macro sheet). */
  part: CheckedEntry | null;
}

export interface XlsxPackage {
  /** Tabs in `<sheets>` order: the order of the tabs, whatever the order or names of their parts. */
  sheets: PackageSheet[];
  sharedStrings: CheckedEntry | null;
}

interface Relationship {
  type: string;
  /** Zip path of the target part, resolved against the source part. */
  path: string;
}

const damaged = (what: string) => new FileProblem('corrupt', `The file is damaged: ${what}.`);

/** A relationship target resolved as OPC does: relative to the source part's folder, or from the root with `/`. */
function resolveTarget(sourcePart: string, target: string): string {
  let t = target;
  try {
    t = decodeURIComponent(target);
  } catch {
    // not percent-encoded after all: use as written
  }
  const path = t.startsWith('/') ? t.slice(1) : posix.join(posix.dirname(sourcePart), t);
  return posix.normalize(path);
}

/** The relationships part of a source part: `xl/workbook.xml` → `xl/_rels/workbook.xml.rels`. */
const relsPathOf = (sourcePart: string) =>
  posix.join(posix.dirname(sourcePart), '_rels', `${posix.basename(sourcePart)}.rels`);

function readRels(part: string, bytes: Buffer, sourcePart: string): Map<string, Relationship> {
  const rels = new Map<string, Relationship>();
  parseXml(part, bytes, {
    open(name, a) {
      if (name !== 'Relationship' || a.get('TargetMode') === 'External') return;
      const id = a.get('Id');
      const target = a.get('Target');
      if (id && target) rels.set(id, { type: a.get('Type') ?? '', path: resolveTarget(sourcePart, target) });
    },
    text() {},
    close() {},
  });
  return rels;
}

const ofType = (r: Relationship, type: string) => r.type.toLowerCase().endsWith(`/${type.toLowerCase()}`);

/** The relationship id of a `<sheet>`: `r:id`, whatever prefix the relationships namespace was given. */
const relId = (a: XmlAttributes) => a.endingWith(':id');

/**
 * Reads a checked zip as an Excel workbook through its relationships, as Excel does: the package's office document
 * (normally `xl/workbook.xml`), its tabs in `<sheets>` order with their visibility, and each tab's part wherever
 * the relationships put it. Part names compare without case, as OPC says.
 */
export function readPackage(entries: CheckedEntry[]): XlsxPackage {
  const byPath = new Map(entries.map((e) => [e.fileName.toLowerCase(), e]));
  const find = (path: string) => byPath.get(path.toLowerCase()) ?? null;
  const names = entries.map((e) => e.fileName);
  const mimetypeEntry = find('mimetype');
  const mimetype = mimetypeEntry ? partBytes(mimetypeEntry).toString('latin1') : undefined;

  const rootRels = find('_rels/.rels');
  const office = rootRels
    ? [...readRels('_rels/.rels', partBytes(rootRels), '').values()].find((r) => ofType(r, 'officeDocument'))
    : undefined;
  const workbookPath = office?.path ?? 'xl/workbook.xml';
  const workbook = find(workbookPath);
  if (!workbook) throw notAWorkbook(names, mimetype);

  const sheets: { name: string; state: SheetState; rid: string | undefined }[] = [];
  let root: string | null = null;
  parseXml(workbook.fileName, partBytes(workbook), {
    open(name, a) {
      root ??= name;
      if (name !== 'sheet') return;
      const given = a.get('state');
      const state = given === 'hidden' || given === 'veryHidden' ? given : 'visible';
      sheets.push({ name: decodeXstring(a.get('name') ?? ''), state, rid: relId(a) });
    },
    text() {},
    close() {},
  });
  if (root !== 'workbook') throw notAWorkbook(names, mimetype);

  const relsEntry = find(relsPathOf(workbook.fileName));
  if (!relsEntry) throw damaged(`the workbook's relationships part ${relsPathOf(workbook.fileName)} is missing`);
  const rels = readRels(relsEntry.fileName, partBytes(relsEntry), workbook.fileName);

  const sst = [...rels.values()].find((r) => ofType(r, 'sharedStrings'));
  return {
    sheets: sheets.map((s) => {
      const rel = s.rid ? rels.get(s.rid) : undefined;
      if (!rel) throw damaged(`the sheet "${s.name}" has no part in the workbook's relationships`);
      if (!ofType(rel, 'worksheet')) return { name: s.name, state: s.state, part: null };
      const part = find(rel.path);
      if (!part) throw damaged(`the sheet "${s.name}" should be stored in ${rel.path}, which is missing`);
      return { name: s.name, state: s.state, part };
    }),
    sharedStrings: sst ? find(sst.path) : null,
  };
}
