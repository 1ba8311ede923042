// Written by renderTypes from test/fixtures/notes-3.2.yaml (test/types/fixture-types.ts). Do not edit it by hand.

import type { StreamsMark } from 'contract-kit';
import type { components, paths } from './openapi.js';

/** Each operation of the contract, by the name its handler goes by. */
export interface Operations {
  /** GET /notes */
  listNotes: paths["/notes"]["get"];
  /** POST /notes */
  addNote: paths["/notes"]["post"];
  /** QUERY /notes */
  queryNotes: components["pathItems"]["QUERY /notes"]["post"];
  /** GET /notes/{noteId} */
  getNote: paths["/notes/{noteId}"]["get"];
  /** LINK /notes/{noteId} */
  linkNote: components["pathItems"]["LINK /notes/{noteId}"]["post"];
  /** GET /prefs */
  getPrefs: paths["/prefs"]["get"];
  /** GET /search */
  searchNotes: paths["/search"]["get"];
  /** GET /feed */
  followNotes: paths["/feed"]["get"] & StreamsMark;
  /** GET /notes/export */
  exportNotes: paths["/notes/export"]["get"] & StreamsMark;
  /** POST /notes/import */
  importNotes: paths["/notes/import"]["post"] & StreamsMark;
}
