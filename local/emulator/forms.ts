import type { IncomingHttpHeaders } from 'node:http';
import busboy from 'busboy';
import { LIMITS } from '#commons/voice-api/contract.ts';
import { HttpError, invalid } from './http-kit.ts';

export interface UploadedFile {
  field: string;
  filename: string;
  bytes: Buffer;
}

/** Splits a multipart/form-data body into its text fields and files. */
export function parseMultipart(
  headers: IncomingHttpHeaders,
  raw: Buffer,
): Promise<{ fields: Record<string, string>; files: UploadedFile[] }> {
  if (!(headers['content-type'] ?? '').startsWith('multipart/form-data')) {
    return Promise.reject(
      invalid([{ loc: ['body'], msg: 'the body must be multipart/form-data', type: 'value_error' }]),
    );
  }
  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = {};
    const files: UploadedFile[] = [];
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers, limits: { fileSize: LIMITS.campaignFileBytes + 1, files: 2, fields: 20 } });
    } catch (err) {
      reject(
        invalid([{ loc: ['body'], msg: `malformed multipart body: ${(err as Error).message}`, type: 'value_error' }]),
      );
      return;
    }
    parser.on('field', (name, value) => {
      fields[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => files.push({ field: name, filename: info.filename ?? '', bytes: Buffer.concat(chunks) }));
    });
    parser.on('error', (err) =>
      reject(
        new HttpError(422, [
          { loc: ['body'], msg: `malformed multipart body: ${(err as Error).message}`, type: 'value_error' },
        ]),
      ),
    );
    parser.on('close', () => resolve({ fields, files }));
    parser.end(raw);
  });
}

/** Reads an application/x-www-form-urlencoded body (an empty body is an empty form). */
export function parseUrlEncoded(headers: IncomingHttpHeaders, raw: Buffer): Record<string, string> {
  if (raw.length === 0) return {};
  if (!(headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
    throw invalid([{ loc: ['body'], msg: 'the body must be application/x-www-form-urlencoded', type: 'value_error' }]);
  }
  return Object.fromEntries(new URLSearchParams(raw.toString('utf8')));
}
