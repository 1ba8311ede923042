/** Baseline: a stock Express 5 app (its defaults, one route) answering with the bench's 20 animals. */
import express from 'express';
import { firstAnimals } from '../animals.js';

const animals = firstAnimals(20);
const app = express();
app.get('/v1/pets', (_req, res) => {
  res.json(animals);
});
app.listen(Number(process.env.PORT), '127.0.0.1');
