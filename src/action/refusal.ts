/** The action stops before verify has a result: `code` is the output, `exit` the step's exit code. */
export class Refusal extends Error {
  constructor(
    readonly code: string,
    readonly exit: number,
    message: string,
  ) {
    super(message);
  }
}
