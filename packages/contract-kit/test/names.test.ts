import { describe, expect, it } from 'vitest';
import { operationNames } from 'contract-kit';

describe('operation names', () => {
  it('never gives two operations names that differ only in case: each names a file', () => {
    const names = operationNames([
      { method: 'get', path: '/a', operationId: 'userGetOAuth2Application' },
      { method: 'get', path: '/b', operationId: 'userGetOauth2Application' },
      { method: 'get', path: '/c', operationId: 'user-get-oauth2-application' },
    ]);
    expect(names).toEqual(['userGetOAuth2Application', 'userGetOauth2Application2', 'userGetOauth2Application3']);
  });
});
