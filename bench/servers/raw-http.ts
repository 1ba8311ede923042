/** Baseline: node:http answering every request with the bench's 20 animals as JSON. */
import { createServer } from 'node:http';
import { firstAnimals } from '../animals.js';

const animals = firstAnimals(20);

createServer((_req, res) => {
  const body = JSON.stringify(animals);
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}).listen(Number(process.env.PORT), '127.0.0.1');
