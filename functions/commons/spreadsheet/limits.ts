import { FileProblem } from './file-problem.ts';

/** Bounds that keep a hostile or accidental upload from exhausting a Lambda. */
export interface ReadLimits {
  /** The upload itself. */
  maxFileBytes: number;
  /** Everything inside an .xlsx, once inflated. */
  maxUncompressedBytes: number;
  /** Inflated ÷ compressed, per zip entry larger than `ratioFloorBytes`. */
  maxInflateRatio: number;
  ratioFloorBytes: number;
  /** Data rows read from the contact sheet. */
  maxRows: number;
  /**
   * The workbook's shared strings are held in memory while its sheets are read; these bound them (count and total
   * UTF-16 characters), whatever markup they came wrapped in.
   */
  maxSharedStrings: number;
  maxSharedStringChars: number;
  /** Non-blank rows of a Settings worksheet. */
  maxSettingsRows: number;
  /**
   * One CSV record (a line, or several when a quoted cell holds line breaks), in characters: a row is parsed whole,
   * so this bounds what one row can cost however its cells are split.
   */
  maxRecordChars: number;
}

export const DEFAULT_LIMITS: ReadLimits = {
  maxFileBytes: 50 * 1024 * 1024,
  maxUncompressedBytes: 512 * 1024 * 1024,
  maxInflateRatio: 200,
  ratioFloorBytes: 1024 * 1024,
  maxRows: 200_000,
  maxSharedStrings: 4_000_000,
  maxSharedStringChars: 64 * 1024 * 1024,
  maxSettingsRows: 200,
  maxRecordChars: 1024 * 1024,
};

/**
 * Excel's limit on the text of one cell. No spreadsheet program writes a longer cell, so a longer one (a generated
 * file, or a CSV whose quote is never closed) is refused, in every format, as soon as it passes the limit.
 */
export const MAX_CELL_CHARS = 32_767;

/** A count as a person reads it: 32,767. */
export const inWords = (n: number): string => n.toLocaleString('en-US');

/** Bytes as a person reads them: `62,914,560 bytes (60 MB)`. */
const bytesInWords = (bytes: number) =>
  `${inWords(bytes)} bytes${bytes >= 1024 * 1024 ? ` (${inWords(Math.round((bytes / (1024 * 1024)) * 10) / 10)} MB)` : ''}`;

/** `size` when known; null for a stream that ran past the limit before its end. */
export function fileTooLarge(size: number | null, limits: Pick<ReadLimits, 'maxFileBytes'>): FileProblem {
  const limit = bytesInWords(limits.maxFileBytes);
  const what =
    size === null
      ? `The file is larger than ${limit}, the most callsheet reads per file`
      : `The file is ${bytesInWords(size)}; callsheet reads at most ${limit} per file`;
  return new FileProblem('too_large', `${what}, so it was not read. Split it into smaller files and upload each.`);
}

/** `cell` as a person finds it (`Cell B7 of the sheet "Contacts"`), and what may explain it. */
export const cellTooLong = (cell: string, hint = ''): FileProblem =>
  new FileProblem(
    'cell_too_long',
    `${cell} holds more than ${inWords(MAX_CELL_CHARS)} characters, the most a spreadsheet cell can hold, so the file was not read.${hint} Shorten that cell and upload the file again.`,
  );
