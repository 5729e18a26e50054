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
};
