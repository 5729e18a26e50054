// aws-local-stepfunctions 3 calls Promise.withResolvers, which Node 20 lacks.
type Resolvers<T> = { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void };
const P = Promise as unknown as { withResolvers?: <T>() => Resolvers<T> };
if (typeof P.withResolvers !== 'function') {
  P.withResolvers = <T>(): Resolvers<T> => {
    let resolve!: (v: T) => void;
    let reject!: (e: unknown) => void;
    const promise = new Promise<T>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
}
