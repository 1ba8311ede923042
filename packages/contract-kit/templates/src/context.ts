/** What every handler gets besides its input (its second argument, with the caller): add what they need, such as a database. */
export interface Context {}

/** The context the app gives handlers. */
export const context: Context = {};
