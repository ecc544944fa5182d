// Entry of dist/action.js (action.yml's `main`): the logic is in run.ts, which GitHub's local
// runner (@github/local-action) loads directly.
import { run } from './run';

void run();
