import { createMemorySessionStore } from '../../src/persistence/memorySessionStore.js';
import { describeSessionStore } from './sessionStoreConformance.js';

describeSessionStore('the memory store', { open: async () => createMemorySessionStore() });
