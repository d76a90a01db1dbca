// The page's one attnlab instance, created on first use (lessons and the home page's figures share it).
import { init } from 'attnlab';

let labPromise;
export function getLab() {
  labPromise ??= init();
  return labPromise;
}
