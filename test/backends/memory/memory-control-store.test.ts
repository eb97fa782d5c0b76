import { MemoryControlStore } from '../../../src/backends/memory/memory-control-store.js';
import { describeControlStore } from '../../contracts/control-store.contract.js';

describeControlStore('memory', (options) => new MemoryControlStore(options));
