/** The account's API budget has no token for this caller soon enough; nothing was sent. Try again at `retryAt`. */
export class BudgetExhaustedError extends Error {
  constructor(
    readonly caller: string,
    readonly retryAt: number,
  ) {
    super(`the account's Voice API budget is used up for ${caller} calls until ${new Date(retryAt).toISOString()}`);
    this.name = 'BudgetExhaustedError';
  }
}
