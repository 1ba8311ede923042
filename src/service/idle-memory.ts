import { Script } from 'node:vm';

// Imported by main.ts. V8's memory reducer gives the heap back to the system once a process
// stops allocating: a few seconds after load, it runs a garbage collection that shrinks the old
// space and releases the pages V8 keeps pooled. In Node.js 24 and 26 it never decides that
// allocation has stopped unless something has been allocated on the embedder's (cppgc) heap
// lately: with nothing there, it reads the rate as zero and zero as "high"
// (`--trace-memory-reducer` prints "high alloc" every 8 s of idle), so only its 100-second
// watchdog collects, and any ordinary full collection postpones that again. After the bench's
// load and 45 s idle the service stayed at 154 to 166 MiB resident (heap 48 MiB, 57 MiB of V8
// pages); compiling a script allocates a cppgc object (node:vm's ContextifyScript), and with one
// every few seconds the reducer ran and the service was at 118 to 129 MiB (heap 25 MiB). Node.js
// 22 does not need it and is not harmed by it.
const EVERY_MS = 5_000;

setInterval(() => new Script('0'), EVERY_MS).unref();
