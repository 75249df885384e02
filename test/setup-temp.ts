import { afterAll } from 'vitest';
import { removeTempDirs } from './helpers/temp-dir.js';

// Folders that tests made outside a test body (module level, beforeAll) go when the file's tests are done.
afterAll(removeTempDirs);
