import { createMemorySessionStore } from '../../src/persistence/memorySessionStore.js';
import { describeCompactedSession } from './compactedSessionSuite.js';
import { describeSessionStore } from './sessionStoreConformance.js';

describeSessionStore('the memory store', { open: async () => createMemorySessionStore() });
describeCompactedSession('the memory store', { open: async () => createMemorySessionStore() });
