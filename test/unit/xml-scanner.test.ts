import { SaxesParser } from 'saxes';
import { describe, expect, it } from 'vitest';
import { type XmlHandlers, XmlScanner, XmlSyntaxError } from '#commons/spreadsheet/xml-scanner.ts';

/** What a parser reported, with adjacent text joined (parsers may split text differently). */
type Event = ['open', string, Record<string, string>] | ['text', string] | ['close', string];

class DoctypeSeen extends Error {}

function recorder(): { events: Event[]; handlers: XmlHandlers } {
  const events: Event[] = [];
  return {
    events,
    handlers: {
      open: (name, attributes) => events.push(['open', name, Object.fromEntries(attributes.entries())]),
      text: (text) => {
        const last = events.at(-1);
        if (last?.[0] === 'text') last[1] += text;
        else events.push(['text', text]);
      },
      close: (name) => events.push(['close', name]),
    },
  };
}

/** Our scanner over `xml` cut into pieces at `cuts`: its events, or the kind of refusal. */
function scan(xml: string, cuts: number[] = []): Event[] | 'malformed' | 'doctype' {
  const { events, handlers } = recorder();
  const scanner = new XmlScanner(handlers, () => {
    throw new DoctypeSeen();
  });
  try {
    let from = 0;
    for (const cut of [...cuts, xml.length]) {
      scanner.write(xml.slice(from, cut));
      from = cut;
    }
    scanner.end();
    return events;
  } catch (err) {
    if (err instanceof DoctypeSeen) return 'doctype';
    if (err instanceof XmlSyntaxError) return 'malformed';
    throw err;
  }
}

const local = (q: string) => q.slice(q.indexOf(':') + 1);

/** The conforming parser the scanner replaced, as the oracle: same events (local names), or a refusal. */
function oracle(xml: string): Event[] | 'malformed' | 'doctype' {
  const { events, handlers } = recorder();
  const p = new SaxesParser({ position: false });
  let failed: 'malformed' | 'doctype' | null = null;
  p.on('doctype', () => {
    failed ??= 'doctype';
  });
  p.on('opentag', (t) => events.push(['open', local(t.name), { ...(t.attributes as Record<string, string>) }]));
  p.on('closetag', (t) => handlers.close(local(t.name)));
  p.on('text', (t) => {
    // saxes reports blank text outside the root; the scanner drops it (nothing reads it).
    if (events.length > 0 && !(events.at(-1)?.[0] === 'close' && depth(events) === 0)) handlers.text(t);
  });
  p.on('cdata', handlers.text);
  p.on('error', () => {
    failed ??= 'malformed';
  });
  try {
    p.write(xml).close();
  } catch {
    failed ??= 'malformed';
  }
  return failed ?? events;
}

function depth(events: Event[]): number {
  let d = 0;
  for (const e of events) d += e[0] === 'open' ? 1 : e[0] === 'close' ? -1 : 0;
  return d;
}

const WELL_FORMED = [
  '<a/>',
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<a></a>',
  '<x:worksheet xmlns:x="urn:x"><x:sheetData><x:row r="1"><x:c r="A1" t="s"><x:v>0</x:v></x:c></x:row></x:sheetData></x:worksheet>',
  `<a b='1' c="2" d = "x &gt; y" e="&#65;&#x42;&amp;&lt;&quot;&apos;">t</a>`,
  '<a b="has > inside" c=\'and "quotes"\'>x</a>',
  '<a b="tab\there\nline\r\nend">x</a>',
  '<a>one &amp; two &lt;three&gt; &#x1F600; &#233;</a>',
  '<a>line\r\nbreaks\rand\nmore</a>',
  '<a><![CDATA[<not a tag> & raw]]>after</a>',
  '<a><!-- a comment <b> --><?pi data?>text</a>',
  '<!-- before --><a/><!-- after -->\n',
  '<a>\n  <b/>\n  <c   x="1"   />\n</a>',
  '<root><r.ow-1 _a:b="x" é="y"/></root>',
  // Character references in an attribute survive its whitespace normalization; literal line ends do not.
  '<a b="x&#13;&#10;y" c="p\r\nq">z</a>',
];

const MALFORMED = [
  '',
  'text only',
  '<a>',
  '<a></b>',
  '</a>',
  '<a><b></a></b>',
  '<a/><b/>',
  'x<a/>',
  '<a/>x',
  '<a b=1/>',
  '<a b="1"c="2"/>',
  '<a b="1" b="2"/>',
  '<a b="x<y"/>',
  '<a b/>',
  '<a>&nbsp;</a>',
  '<a>&amp</a>',
  '<a>&#0;</a>',
  '<a>&#xD800;</a>',
  '<a>&#x110000;</a>',
  '<a>bell\u0007</a>',
  '<a>\uFFFE</a>',
  '<1a/>',
  '< a/>',
  '<a / >',
  '<a',
  '<a><!-- unterminated</a>',
  '<a><![CDATA[ unterminated</a>',
  '<a><!ELEMENT a ANY></a>',
  // Names a JavaScript object has on its prototype are no more entities than any other undeclared name.
  '<a>&constructor;</a>',
  '<a b="&toString;"/>',
  '<a>&__proto__;</a>',
  '<a>1]]>2</a>',
  '<a><!-- x -- y --></a>',
  '<a><!-- x ---></a>',
  `<a ${Array.from({ length: 20 }, (_, i) => `k${i}="${i}"`).join(' ')} k13="again"/>`,
];

describe('XmlScanner', () => {
  it.each(WELL_FORMED)('reads %j as the conforming parser does', (xml) => {
    const expected = oracle(xml);
    expect(Array.isArray(expected)).toBe(true);
    expect(scan(xml)).toEqual(expected);
  });

  it.each(MALFORMED)('refuses %j, as the conforming parser does', (xml) => {
    expect(oracle(xml)).toBe('malformed');
    expect(scan(xml)).toBe('malformed');
  });

  it.each([
    '<!DOCTYPE a [<!ENTITY x "boom">]><a>&x;</a>',
    '<?xml version="1.0"?><!DOCTYPE a SYSTEM "http://127.0.0.1/x.dtd"><a/>',
  ])('stops at the document type declaration of %j without reading it', (xml) => {
    expect(oracle(xml)).toBe('doctype');
    expect(scan(xml)).toBe('doctype');
    // Cut anywhere, the declaration is still found before anything after it is read.
    for (let cut = 1; cut < xml.length; cut++) expect(scan(xml, [cut])).toBe('doctype');
  });

  it('reports the same events however the text is cut into pieces', () => {
    for (const xml of WELL_FORMED) {
      const whole = scan(xml);
      for (let cut = 1; cut < xml.length; cut++) expect(scan(xml, [cut]), `${xml} cut at ${cut}`).toEqual(whole);
      // Every character its own piece.
      expect(scan(xml, [...xml].map((_, i) => i).slice(1))).toEqual(whole);
    }
    for (const xml of MALFORMED)
      for (let cut = 1; cut < xml.length; cut++) expect(scan(xml, [cut]), `${xml} cut at ${cut}`).toBe('malformed');
  });

  it('hands on a long text node in pieces without splitting a reference or a line end', () => {
    const body = `${'x'.repeat(70_000)}&amp;${'y'.repeat(70_000)}\r\n${'z'.repeat(70_000)}`;
    const xml = `<a>${body}</a>`;
    const seen: string[] = [];
    const scanner = new XmlScanner({ open: () => {}, close: () => {}, text: (t) => seen.push(t) }, () => {
      throw new DoctypeSeen();
    });
    // Cut just after the `&` and just after the CR: neither may be read on its own.
    const amp = xml.indexOf('&') + 1;
    const cr = xml.indexOf('\r') + 1;
    scanner.write(xml.slice(0, amp));
    scanner.write(xml.slice(amp, cr));
    scanner.write(xml.slice(cr));
    scanner.end();
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.join('')).toBe(`${'x'.repeat(70_000)}&${'y'.repeat(70_000)}\n${'z'.repeat(70_000)}`);
  });

  it('refuses a tag longer than 262,144 characters instead of re-reading it at every piece', () => {
    const xml = `<a><b c="${'x'.repeat(400_000)}"/></a>`;
    const { handlers } = recorder();
    const scanner = new XmlScanner(handlers, () => {
      throw new DoctypeSeen();
    });
    expect(() => {
      for (let at = 0; at < xml.length; at += 64 << 10) scanner.write(xml.slice(at, at + (64 << 10)));
    }).toThrow(/longer than 262144 characters/);
    // Just under the bound, the same tag is read.
    const fits = `<a><b c="${'x'.repeat(250_000)}"/></a>`;
    const events = scan(fits, [70_000, 150_000, 240_000]);
    expect(Array.isArray(events) && events[1]?.[2]).toEqual({ c: 'x'.repeat(250_000) });
  });

  it('refuses nesting deeper than 1000 elements, and a long "&" run without ";", without holding either', () => {
    expect(scan(`${'<a>'.repeat(1001)}${'</a>'.repeat(1001)}`)).toBe('malformed');
    expect(scan(`${'<a>'.repeat(1000)}${'</a>'.repeat(1000)}`)).toEqual(expect.any(Array));
    // A run that cannot become a reference is handed on (and refused) rather than held while the buffer grows.
    const amp = `<a>&${'x'.repeat(4_000_000)}</a>`;
    const cuts = Array.from({ length: Math.floor(amp.length / 16_384) }, (_, i) => (i + 1) * 16_384);
    expect(scan(amp, cuts)).toBe('malformed');
  });

  it('finds prefixed attribute names by their ending, as relationships name them', () => {
    const seen: (string | undefined)[] = [];
    const scanner = new XmlScanner(
      {
        open: (_, a) => seen.push(a.endingWith(':id'), a.get('name'), a.get('missing')),
        text: () => {},
        close: () => {},
      },
      () => {
        throw new DoctypeSeen();
      },
    );
    scanner.write('<sheets><sheet name="Contacts &amp; more" sheetId="1" rel:id="rId3"/></sheets>');
    scanner.end();
    expect(seen).toEqual([undefined, undefined, undefined, 'rId3', 'Contacts & more', undefined]);
  });

  it('agrees with the conforming parser on random worksheet-like documents, cut at random', () => {
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const pieces = [
      '<c r="A1" t="s"><v>1</v></c>',
      '<c t="inlineStr"><is><t xml:space="preserve"> a &amp; b </t></is></c>',
      '<c r="B1"><v>3.5</v></c>',
      '<x:c r="C1"/>',
      '<c r=\'D1\' t="str"><v>&#x41;</v></c>',
      '<!-- note -->',
      '\n  ',
      '<c><is><r><t>rich</t></r><rPh sb="0" eb="1"><t>ふ</t></rPh></is></c>',
      '<c><v><![CDATA[5]]></v></c>',
    ];
    for (let doc = 0; doc < 200; doc++) {
      let xml = '<worksheet><sheetData>';
      for (let r = 0; r < 1 + rand(5); r++) {
        xml += `<row${rand(2) ? ` r="${r + 1}"` : ''}>`;
        for (let c = 0; c < rand(6); c++) xml += pieces[rand(pieces.length)];
        xml += '</row>';
      }
      xml += '</sheetData></worksheet>';
      const cuts = [...new Set([rand(xml.length), rand(xml.length), rand(xml.length)])]
        .filter((c) => c > 0)
        .sort((a, b) => a - b);
      expect(scan(xml, cuts)).toEqual(oracle(xml));
    }
  });
});
