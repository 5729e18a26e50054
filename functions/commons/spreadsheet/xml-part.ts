import { TextDecoder } from 'node:util';
import { FileProblem } from './file-problem.ts';
import { type XmlHandlers, XmlScanner, XmlSyntaxError } from './xml-scanner.ts';

export const ENTITY_MESSAGE =
  'This workbook contains XML entity declarations, which callsheet refuses. Spreadsheet programs never write them: save the sheet again as .xlsx from Excel, LibreOffice or Google Sheets and upload that copy.';

export const entityProblem = () => new FileProblem('xml_entities', ENTITY_MESSAGE);

function decoderFor(first: Buffer): TextDecoder {
  // OPC allows UTF-16 parts (with a byte order mark); spreadsheet programs write UTF-8.
  if (first[0] === 0xff && first[1] === 0xfe) return new TextDecoder('utf-16le', { fatal: true });
  if (first[0] === 0xfe && first[1] === 0xff) return new TextDecoder('utf-16be', { fatal: true });
  return new TextDecoder('utf-8', { fatal: true });
}

/**
 * One XML part parsed incrementally (xml-scanner.ts). A document type declaration is refused outright (so no
 * entity is ever declared, let alone expanded); any other malformation is a damaged file naming the part.
 */
export class XmlPart {
  private readonly parser: XmlScanner;
  private decoder: TextDecoder | null = null;

  constructor(
    private readonly part: string,
    handlers: XmlHandlers,
  ) {
    this.parser = new XmlScanner(handlers, () => {
      throw entityProblem();
    });
  }

  write(bytes: Buffer): void {
    if (bytes.length === 0) return;
    this.decoder ??= decoderFor(bytes);
    this.scan(this.decode(bytes, true));
  }

  end(): void {
    const rest = this.decoder ? this.decode(undefined, false) : '';
    this.scan(rest);
    this.named(() => this.parser.end());
  }

  private decode(bytes: Buffer | undefined, stream: boolean): string {
    try {
      return (this.decoder as TextDecoder).decode(bytes, { stream });
    } catch {
      throw new FileProblem('corrupt', `The file is damaged: ${this.part} is not valid UTF-8 or UTF-16 text.`);
    }
  }

  private scan(text: string): void {
    if (text !== '') this.named(() => this.parser.write(text));
  }

  /** Malformed XML becomes a damaged-file problem naming the part; the handlers' own problems pass as they are. */
  private named(step: () => void): void {
    try {
      step();
    } catch (err) {
      if (!(err instanceof XmlSyntaxError)) throw err;
      throw new FileProblem('corrupt', `The file is damaged: ${this.part} is not well-formed XML (${err.message}).`);
    }
  }
}

/** Parses a whole part held in memory. */
export function parseXml(part: string, bytes: Buffer, handlers: XmlHandlers): void {
  const x = new XmlPart(part, handlers);
  x.write(bytes);
  x.end();
}

/**
 * Excel's escape for characters XML cannot hold (ECMA-376 ST_Xstring): `_xHHHH_` is the UTF-16 code unit HHHH, and
 * `_x005F_` escapes the underscore of what would otherwise read as an escape.
 */
export const decodeXstring = (s: string): string =>
  s.includes('_x')
    ? s.replace(/_x([0-9A-Fa-f]{4})_/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    : s;
