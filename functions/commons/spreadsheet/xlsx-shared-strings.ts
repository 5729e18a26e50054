import { FileProblem } from './file-problem.ts';
import { MAX_CELL_CHARS, type ReadLimits } from './limits.ts';
import { decodeXstring, XmlPart } from './xml-part.ts';
import { type CheckedEntry, partChunks } from './zip-guard.ts';

/** Strings are packed into pages of about this many characters. */
const PAGE_CHARS = 1 << 20;

/**
 * The workbook's shared strings, as the text a person sees in each: the runs of a rich string joined, phonetic
 * guides (`<rPh>`, Japanese furigana) left out, Excel's `_xHHHH_` escapes decoded.
 *
 * Memory is the text itself plus 4 bytes a string: strings are packed into flat pages (so no string keeps alive the
 * parser chunk it was cut from, and no run or font object is kept), and both the count and the characters are
 * bounded by the read limits, whatever markup they arrived in. A text longer than a cell may hold (32,767
 * characters) is kept only to one character past that limit: enough for the cell that uses it to be refused, named
 * (xlsx-worksheet.ts), and no more held for a text no spreadsheet program writes.
 */
export class SharedStrings {
  private pages: string[] = [];
  private pageStart: number[] = [];
  private page: string[] = [];
  private pageChars = 0;
  private total = 0;
  private ends = new Uint32Array(1024);
  count = 0;

  constructor(private readonly limits: ReadLimits) {}

  push(s: string): void {
    if (this.count >= this.limits.maxSharedStrings)
      throw tooMuchText(`more than ${this.limits.maxSharedStrings} different texts`);
    if (this.total + s.length > this.limits.maxSharedStringChars)
      throw tooMuchText(`more than ${this.limits.maxSharedStringChars} characters of text`);
    if (this.count + 1 >= this.ends.length) {
      const grown = new Uint32Array(this.ends.length * 2);
      grown.set(this.ends);
      this.ends = grown;
    }
    this.page.push(s);
    this.pageChars += s.length;
    this.total += s.length;
    this.count++;
    this.ends[this.count] = this.total;
    if (this.pageChars >= PAGE_CHARS) this.flush();
  }

  /** Ends the current page: its strings become one flat string. */
  flush(): void {
    if (this.page.length === 0) return;
    this.pageStart.push(this.total - this.pageChars);
    this.pages.push(this.page.join(''));
    this.page = [];
    this.pageChars = 0;
  }

  get(index: number): string | undefined {
    if (!(index >= 0 && index < this.count)) return undefined;
    const start = this.ends[index] as number;
    const end = this.ends[index + 1] as number;
    if (start === end) return '';
    // The page holding `start`: the last page starting at or before it.
    let lo = 0;
    let hi = this.pageStart.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.pageStart[mid] as number) <= start) lo = mid;
      else hi = mid - 1;
    }
    const base = this.pageStart[lo] as number;
    return (this.pages[lo] as string).slice(start - base, end - base);
  }
}

const tooMuchText = (what: string) =>
  new FileProblem(
    'too_large',
    `The workbook holds ${what}, far more than a contact sheet needs; it was not read. Split it into smaller files, or save only the contact sheet.`,
  );

/** Raw text read of one string: `_xHHHH_` escapes shrink seven characters to one, so past this it is surely too long. */
const MAX_RAW_CHARS = 7 * (MAX_CELL_CHARS + 1);

/** Reads `xl/sharedStrings.xml` (or wherever the workbook keeps it), a chunk at a time. */
export async function readSharedStrings(entry: CheckedEntry | null, limits: ReadLimits): Promise<SharedStrings> {
  const strings = new SharedStrings(limits);
  if (!entry) return strings;
  let inSi = false;
  let phonetic = 0;
  let inT = false;
  let t = '';
  let si = '';
  const xml = new XmlPart(entry.fileName, {
    open(name) {
      if (name === 'si') {
        inSi = true;
        si = '';
      } else if (name === 'rPh') phonetic++;
      else if (name === 't' && inSi && phonetic === 0) {
        inT = true;
        t = '';
      }
    },
    text(text) {
      if (inT && si.length + t.length <= MAX_RAW_CHARS) {
        t += text;
        if (si.length + t.length > limits.maxSharedStringChars)
          throw tooMuchText(`more than ${limits.maxSharedStringChars} characters of text`);
      }
    },
    close(name) {
      if (name === 't' && inT) {
        inT = false;
        si += decodeXstring(t);
        if (si.length > MAX_CELL_CHARS) si = si.slice(0, MAX_CELL_CHARS + 1);
        t = '';
      } else if (name === 'rPh') phonetic--;
      else if (name === 'si' && inSi) {
        inSi = false;
        strings.push(si);
        si = '';
      }
    },
  });
  for await (const chunk of partChunks(entry)) {
    xml.write(chunk);
    // Texts are cut from the parser's chunk: packing them now lets the chunk go, however much markup it held.
    strings.flush();
  }
  xml.end();
  strings.flush();
  return strings;
}
