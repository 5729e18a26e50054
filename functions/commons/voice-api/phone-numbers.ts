import type { Transport } from './http.ts';
import type { PhoneNumber } from './types.ts';

export class PhoneNumbersApi {
  constructor(private readonly http: Transport) {}

  async list(): Promise<PhoneNumber[]> {
    return (await this.http.send<PhoneNumber[]>({ method: 'GET', path: '/phone-numbers', repeatability: 'repeatable' }))
      .data;
  }
}
