/**
 * A streaming XML reader for the parts of a workbook, written for speed on worksheet XML (a 100,000-row sheet is
 * about a million tags) while refusing what is not well-formed: tags must nest and match, attributes must be quoted
 * and unique, text outside the root must be blank, only XML's five named entities and character references that
 * name an XML character are read, and characters XML 1.0 does not allow are refused. A document type declaration
 * is never read: `onDoctype` is called and must throw (so no entity can be declared, let alone expanded).
 * Comments and processing instructions are skipped; CDATA sections are text. Line ends are normalized to `\n` as
 * XML requires. The general-purpose parser this replaced (saxes) spent most of a sheet's read on its per-character
 * state machine and the garbage it made.
 */

export interface XmlHandlers {
  /**
   * `name` is local: a namespace prefix (`x:row`) is dropped. Attribute names keep theirs. `attributes` holds this
   * tag's only during the call: the scanner reuses it (a sheet has about a million tags).
   */
  open(name: string, attributes: XmlAttributes): void;
  text(text: string): void;
  close(name: string): void;
}

/** A tag's attributes, in document order, with their references decoded. */
export class XmlAttributes {
  // Reused from tag to tag: only `size` entries are this tag's (emptying the arrays would free and regrow them).
  private readonly names: string[] = [];
  private readonly values: string[] = [];
  private size = 0;
  /** For a tag with many attributes, so finding a repeated name stays linear. */
  private seen: Set<string> | null = null;

  get(name: string): string | undefined {
    const names = this.names;
    for (let i = 0; i < this.size; i++) if (names[i] === name) return this.values[i];
    return undefined;
  }

  /** The value of the first attribute whose name ends with `suffix` (`:id` finds `r:id` whatever its prefix). */
  endingWith(suffix: string): string | undefined {
    for (let i = 0; i < this.size; i++) if ((this.names[i] as string).endsWith(suffix)) return this.values[i];
    return undefined;
  }

  entries(): [name: string, value: string][] {
    return this.names.slice(0, this.size).map((n, i) => [n, this.values[i] as string]);
  }

  /** @internal The scanner's: starts the next tag. */
  clear(): void {
    this.size = 0;
    this.seen = null;
  }

  /** @internal The scanner's: answers false when the tag already has an attribute of this name. */
  add(name: string, value: string): boolean {
    const names = this.names;
    const size = this.size;
    if (size < 8) {
      for (let i = 0; i < size; i++) if (names[i] === name) return false;
    } else {
      if (this.seen === null) this.seen = new Set(names.slice(0, size));
      if (this.seen.has(name)) return false;
      this.seen.add(name);
    }
    names[size] = name;
    this.values[size] = value;
    this.size = size + 1;
    return true;
  }
}

/** Thrown for XML that is not well-formed; the message says where it went wrong in a few words. */
export class XmlSyntaxError extends Error {}

/**
 * Text that would otherwise wait for the next tag is handed on once this much of it is pending, so a huge text node
 * never sits whole in memory here.
 */
const MAX_PENDING_TEXT = 64 << 10;

/**
 * The longest tag, comment, processing instruction or CDATA section read (a cell holds at most 32,767 characters;
 * spreadsheet programs write nothing near this). About the size of one piece of inflated part, so an unfinished
 * construct is re-read about once.
 */
const MAX_CONSTRUCT_CHARS = 1 << 18;
/** Elements open at once (a worksheet nests about six deep); each is held until it closes. */
const MAX_DEPTH = 1000;
const LONGEST_REFERENCE = '&#x10FFFF;'.length;

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding the characters XML forbids is the point
const FORBIDDEN = /[\0-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]/;
const BLANK = /^[ \t\r\n]*$/;
const REFERENCE = /&([^&;]*)(;?)/g;
/** The `<!` constructs: the only ones a part may hold, and the one refused. */
const DECLARATIONS = ['<!--', '<![CDATA[', '<!DOCTYPE'];
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

const isSpace = (ch: number): boolean => ch === 32 || ch === 9 || ch === 10 || ch === 13;
/** A tag's name ends at whitespace, `/` or `>`. */
const endsName = (ch: number): boolean => isSpace(ch) || ch === 47 || ch === 62;

/** Whether s[from, to) is only whitespace. */
function isBlank(s: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (!isSpace(s.charCodeAt(i))) return false;
  return true;
}

function trimSpaceEnd(s: string): string {
  let end = s.length;
  while (end > 0 && isSpace(s.charCodeAt(end - 1))) end--;
  return end === s.length ? s : s.slice(0, end);
}

/**
 * An XML name (letters, digits, `_ : - .`, and anything from U+00B7 up; not starting with a digit, `-` or `.`),
 * checked with a loop: it runs for every tag and attribute name.
 */
function validName(name: string): boolean {
  if (name.length === 0) return false;
  for (let i = 0; i < name.length; i++) {
    const ch = name.charCodeAt(i);
    if ((ch >= 97 && ch <= 122) || (ch >= 65 && ch <= 90) || ch === 95 || ch === 58 || ch >= 0xc0) continue;
    if (i > 0 && ((ch >= 48 && ch <= 57) || ch === 45 || ch === 46 || ch === 0xb7)) continue;
    return false;
  }
  return true;
}

/** The name without its namespace prefix (`x:row` → `row`); a loop, as names are short and this runs per tag. */
function localName(qname: string): string {
  for (let i = 0; i < qname.length; i++) if (qname.charCodeAt(i) === 58 /* : */) return qname.slice(i + 1);
  return qname;
}

function isXmlChar(code: number): boolean {
  return (
    code === 0x9 ||
    code === 0xa ||
    code === 0xd ||
    (code >= 0x20 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd) ||
    (code >= 0x10000 && code <= 0x10ffff)
  );
}

function reference(match: string, body: string, semicolon: string): string {
  if (semicolon === '') throw new XmlSyntaxError(`"${match.slice(0, 12)}" is not a complete reference (no ";")`);
  // Own names only: `constructor` or `toString` must not resolve through the object's prototype.
  if (Object.hasOwn(NAMED, body)) return NAMED[body] as string;
  let code = Number.NaN;
  if (/^#x[0-9A-Fa-f]{1,6}$/.test(body)) code = Number.parseInt(body.slice(2), 16);
  else if (/^#[0-9]{1,7}$/.test(body)) code = Number.parseInt(body.slice(1), 10);
  else throw new XmlSyntaxError(`the entity "&${body.slice(0, 20)};" is not defined`);
  if (!isXmlChar(code)) throw new XmlSyntaxError(`"&${body};" is not a character XML allows`);
  return String.fromCodePoint(code);
}

/** Entity and character references replaced. */
const decodeReferences = (s: string): string => (s.includes('&') ? s.replace(REFERENCE, reference) : s);

/** XML's end-of-line handling: CR LF and a lone CR each become LF. */
const normalizeLines = (s: string): string => (s.includes('\r') ? s.replace(/\r\n?/g, '\n') : s);

/** A construct cut off by the end of what was read: wait for more, or, at the end, refuse. */
function incomplete(final: boolean): number {
  if (final) throw new XmlSyntaxError('it ends inside a tag');
  return -1;
}

export class XmlScanner {
  private buf = '';
  private readonly stack: string[] = [];
  private rootSeen = false;
  private readonly attributes = new XmlAttributes();

  constructor(
    private readonly handlers: XmlHandlers,
    private readonly onDoctype: () => never,
  ) {}

  write(chunk: string): void {
    if (FORBIDDEN.test(chunk)) throw new XmlSyntaxError('it holds a character XML does not allow');
    this.buf = this.buf === '' ? chunk : this.buf + chunk;
    this.scan(false);
  }

  end(): void {
    this.scan(true);
    if (this.stack.length > 0) throw new XmlSyntaxError(`<${this.stack.at(-1)}> is never closed`);
    if (!this.rootSeen) throw new XmlSyntaxError('it has no root element');
  }

  private text(raw: string): void {
    if (raw === '') return;
    if (this.stack.length === 0) {
      if (!BLANK.test(raw)) throw new XmlSyntaxError('it has text outside its root element');
      return;
    }
    if (raw.includes(']]>')) throw new XmlSyntaxError('it has "]]>" in text');
    this.handlers.text(decodeReferences(normalizeLines(raw)));
  }

  /** Consumes every complete construct in the buffer; at the end (`final`) nothing may be left incomplete. */
  private scan(final: boolean): void {
    const s = this.buf;
    let i = 0;
    for (;;) {
      const lt = s.indexOf('<', i);
      if (lt < 0) {
        i = this.trailingText(s, i, final);
        break;
      }
      if (lt > i) this.text(s.slice(i, lt));
      i = lt;
      const next = this.construct(s, lt, final);
      if (next < 0) {
        // Waiting for the rest is re-reading it: bounded, so a hostile part cannot make that quadratic.
        if (s.length - lt > MAX_CONSTRUCT_CHARS)
          throw new XmlSyntaxError(
            `it has a tag, comment or CDATA section longer than ${MAX_CONSTRUCT_CHARS} characters`,
          );
        break;
      }
      i = next;
    }
    this.buf = i >= s.length ? '' : s.slice(i);
  }

  /** Text after the last `<`: handed on at the end, or when much is pending (short of a split reference or CR). */
  private trailingText(s: string, from: number, final: boolean): number {
    if (final) {
      this.text(s.slice(from));
      return s.length;
    }
    if (s.length - from < MAX_PENDING_TEXT) return from;
    let cut = s.length;
    // Held back only when it could still become a reference (`&#x10FFFF;` is the longest XML allows); a longer run
    // without `;` is handed on and refused, rather than waited on while the buffer grows.
    // Only the last few characters can start one: searching back through a long text without `&` read all of it.
    let amp = -1;
    for (let k = s.length - 1; k >= from && k >= s.length - LONGEST_REFERENCE; k--)
      if (s.charCodeAt(k) === 38 /* & */) {
        amp = k;
        break;
      }
    if (amp >= 0 && s.indexOf(';', amp) < 0) cut = amp;
    if (s.charCodeAt(cut - 1) === 13) cut--;
    this.text(s.slice(from, cut));
    return cut;
  }

  /** Reads the markup starting at `lt`; answers where it ends, or -1 if the buffer holds only part of it. */
  private construct(s: string, lt: number, final: boolean): number {
    // No closure here: this runs for every tag, and tsx wraps each closure it makes in a naming call.
    const c = s.charCodeAt(lt + 1);
    if (Number.isNaN(c)) return incomplete(final);
    if (c === 47 /* / */) {
      const gt = s.indexOf('>', lt);
      if (gt < 0) return incomplete(final);
      const open = this.stack.pop();
      // Compared in place: a close tag is most of a sheet's tags, and slicing each out made garbage.
      const matches =
        open !== undefined &&
        s.startsWith(open, lt + 2) &&
        (lt + 2 + open.length === gt || isBlank(s, lt + 2 + open.length, gt));
      if (!matches) {
        const name = trimSpaceEnd(s.slice(lt + 2, gt));
        throw new XmlSyntaxError(
          open === undefined ? `</${name}> closes nothing` : `<${open}> is closed by </${name}>`,
        );
      }
      this.handlers.close(localName(open));
      return gt + 1;
    }
    if (c === 63 /* ? */) {
      const end = s.indexOf('?>', lt + 2);
      return end < 0 ? incomplete(final) : end + 2;
    }
    if (c === 33 /* ! */) return this.declaration(s, lt, final);
    return this.startTag(s, lt, final);
  }

  /** `<!--…-->`, `<![CDATA[…]]>`, or a document type declaration (refused). */
  private declaration(s: string, lt: number, final: boolean): number {
    const head = s.slice(lt, lt + 9);
    if (head.startsWith('<!--')) {
      const end = s.indexOf('-->', lt + 4);
      if (end < 0) return incomplete(final);
      // `--` may not appear inside a comment (nor end it as `--->`).
      const dashes = s.indexOf('--', lt + 4);
      if (dashes < end) throw new XmlSyntaxError('it has "--" inside a comment');
      return end + 3;
    }
    if (head === '<![CDATA[') {
      const end = s.indexOf(']]>', lt + 9);
      if (end < 0) return incomplete(final);
      if (this.stack.length === 0) throw new XmlSyntaxError('it has a CDATA section outside its root element');
      const text = s.slice(lt + 9, end);
      if (text !== '') this.handlers.text(normalizeLines(text));
      return end + 3;
    }
    if (head === '<!DOCTYPE') this.onDoctype();
    // Too little read yet to tell which it is.
    if (head.length < 9 && DECLARATIONS.some((d) => d.startsWith(head))) return incomplete(final);
    throw new XmlSyntaxError(`"${head}" is not markup XML allows here`);
  }

  private startTag(s: string, lt: number, final: boolean): number {
    // Read in place with char codes: a regular expression per attribute cost twice as much.
    const len = s.length;
    let k = lt + 1;
    while (k < len && !endsName(s.charCodeAt(k))) k++;
    if (k >= len) return incomplete(final);
    const name = s.slice(lt + 1, k);
    if (!validName(name)) throw new XmlSyntaxError(`"<${s.slice(lt + 1, lt + 21)}" is not a valid tag`);
    const attributes = this.attributes;
    attributes.clear();
    let selfClosing = false;
    for (;;) {
      const gap = k;
      while (k < len && isSpace(s.charCodeAt(k))) k++;
      if (k >= len) return incomplete(final);
      const ch = s.charCodeAt(k);
      if (ch === 62 /* > */) {
        k++;
        break;
      }
      if (ch === 47 /* / */) {
        if (k + 1 >= len) return incomplete(final);
        if (s.charCodeAt(k + 1) !== 62) throw new XmlSyntaxError(`<${name}> has "/" inside it`);
        selfClosing = true;
        k += 2;
        break;
      }
      if (k === gap) throw new XmlSyntaxError(`<${name}> has attributes without space between them`);
      // The name runs to `=`: read char by char, so a tag of many attributes is read in one pass.
      let eq = k;
      for (; eq < len; eq++) {
        const c = s.charCodeAt(eq);
        if (c === 61 /* = */) break;
        if (c === 62 || c === 60 || c === 34 || c === 39)
          throw new XmlSyntaxError(`<${name}> has an attribute without a value`);
      }
      if (eq >= len) return incomplete(final);
      const key = trimSpaceEnd(s.slice(k, eq));
      if (!validName(key)) throw new XmlSyntaxError(`<${name}> has a malformed attribute`);
      k = eq + 1;
      while (k < len && isSpace(s.charCodeAt(k))) k++;
      if (k >= len) return incomplete(final);
      const quote = s.charCodeAt(k);
      if (quote !== 34 && quote !== 39) throw new XmlSyntaxError(`<${name}> has an attribute value without quotes`);
      // One pass to the closing quote, noting what the value needs (values are short: a loop beats indexOf calls).
      let close = k + 1;
      let special = false;
      for (; close < len; close++) {
        const c = s.charCodeAt(close);
        if (c === quote) break;
        if (c === 60) throw new XmlSyntaxError(`<${name}> has "<" in an attribute value`);
        if (c === 38 || c === 9 || c === 10 || c === 13) special = true;
      }
      if (close >= len) return incomplete(final);
      const raw = s.slice(k + 1, close);
      // Attribute-value normalization: literal tabs and line ends read as spaces (references keep theirs).
      const value = special ? decodeReferences(raw.replace(/\r\n|[\t\n\r]/g, ' ')) : raw;
      if (!attributes.add(key, value)) throw new XmlSyntaxError(`<${name}> has the attribute ${key} twice`);
      k = close + 1;
    }
    if (this.stack.length === 0) {
      if (this.rootSeen) throw new XmlSyntaxError('it has more than one root element');
      this.rootSeen = true;
    }
    const local = localName(name);
    this.handlers.open(local, attributes);
    if (selfClosing) this.handlers.close(local);
    else {
      if (this.stack.length >= MAX_DEPTH) throw new XmlSyntaxError(`it nests elements more than ${MAX_DEPTH} deep`);
      this.stack.push(name);
    }
    return k;
  }
}
