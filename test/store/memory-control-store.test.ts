import { MemoryControlStore } from '../../src/store/memory/memory-control-store.js';
import { describeControlStore } from '../contracts/control-store.contract.js';

describeControlStore('memory', () => new MemoryControlStore());
