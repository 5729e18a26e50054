import type { Transport } from './http.ts';
import type { PhoneNumber } from './types.ts';

export class PhoneNumbersApi {
  constructor(private readonly http: Transport) {}

  async list(): Promise<PhoneNumber[]> {
    return this.http.data<PhoneNumber[]>({ method: 'GET', path: '/phone-numbers', repeatability: 'repeatable' });
  }
}
