// Types of the CommonJS door (index.cjs): `init` as the ES module's, and `load()` for all of it.
import type { InitOptions, Lab } from './index.js';

export declare function init(options?: InitOptions): Promise<Lab>;
export declare function load(): Promise<typeof import('./index.js')>;
