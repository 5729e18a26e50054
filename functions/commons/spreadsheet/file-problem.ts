/** Why a whole file cannot be used; `message` is written for the person who uploaded it. */
export type FileProblemCode =
  | 'empty_file'
  | 'too_large'
  | 'unsupported_format'
  | 'encrypted'
  | 'corrupt'
  | 'zip_bomb'
  | 'no_phone_column'
  | 'too_many_rows'
  | 'invalid_settings'
  | 'not_utf8'
  | 'xml_entities'
  | 'unterminated_quote'
  | 'cell_too_long'
  | 'line_too_long'
  | 'unreadable';

export class FileProblem extends Error {
  constructor(
    readonly code: FileProblemCode,
    message: string,
  ) {
    super(message);
    this.name = 'FileProblem';
  }
}
