// AttnLabError: the one error type the package throws. Its message names the function, the argument
// and the shapes, e.g. "scaledDotProductAttention: K is 7×16 but Q is 5×8 (d_k must match)".
export class AttnLabError extends Error {
  constructor(message) {
    super(message);
    this.name = 'AttnLabError';
  }
}
